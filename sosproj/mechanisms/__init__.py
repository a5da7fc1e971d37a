"""Private mechanisms: perturb-and-project, cosine similarities, k-way marginals.

>>> from sosproj.mechanisms import perturb_and_project
>>> callable(perturb_and_project)
True
"""

from sosproj._lazy import attach

# The function shares its module's name: bind it eagerly so that importing the submodule
# (which sets the package attribute to the module) can never shadow the function.
from sosproj.mechanisms.perturb_and_project import perturb_and_project  # noqa: E402, F401

_NAMES = {
    "Release": "sosproj.mechanisms.release",
    "release_cosine_similarities": "sosproj.mechanisms.cosine",
    "release_marginals": "sosproj.mechanisms.marginals",
    "MarginalRelease": "sosproj.mechanisms.release",
    "MarginalTablesRelease": "sosproj.mechanisms.release",
    "release_tables": "sosproj.mechanisms.marginal_tables",
}
_SUBMODULES = ["release", "perturb_and_project", "cosine", "marginals", "marginal_tables"]

__getattr__, __dir__, __all__ = attach(__name__, _SUBMODULES, _NAMES)
__all__ = sorted({*__all__, "perturb_and_project"})
