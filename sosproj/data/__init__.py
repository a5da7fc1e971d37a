"""Data layer: subset moments and moment tensors of binary datasets, bundled data, generators.

Public names load lazily (``sosproj.data.subset_moments`` imports only what it needs).

>>> import sosproj.data as sd
>>> sd.load_dataset("digits")[0].shape
(1797, 64)
"""

from sosproj._lazy import attach

_SUBMODULES = ["moment_tensor", "datasets", "synthetic", "contingency", "domain", "codebook", "residuals"]
_NAMES = {
    "subsets_upto": "sosproj.data.moment_tensor",
    "subset_counts": "sosproj.data.moment_tensor",
    "subset_counts_stream": "sosproj.data.moment_tensor",
    "subset_moments": "sosproj.data.moment_tensor",
    "SubsetCountAccumulator": "sosproj.data.moment_tensor",
    "moment_tensor": "sosproj.data.moment_tensor",
    "multisets": "sosproj.data.moment_tensor",
    "pool_tensor": "sosproj.data.moment_tensor",
    "tensor_from_subset_moments": "sosproj.data.moment_tensor",
    "truncate_rows": "sosproj.data.moment_tensor",
    "enforce_sparsity": "sosproj.data.moment_tensor",
    "normalized_tensor_sensitivity": "sosproj.data.moment_tensor",
    "load_dataset": "sosproj.data.datasets",
    "Domain": "sosproj.data.domain",
    "Dataset": "sosproj.data.domain",
    "Codebook": "sosproj.data.codebook",
    "LabeledTable": "sosproj.data.codebook",
    "ResidualLayout": "sosproj.data.residuals",
    "list_datasets": "sosproj.data.datasets",
    "planted_binary": "sosproj.data.synthetic",
    "sparse_binary": "sosproj.data.synthetic",
}

__getattr__, __dir__, __all__ = attach(__name__, _SUBMODULES, _NAMES)
