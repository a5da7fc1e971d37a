"""The paper's claims as executable checks, one module per claim.

Importing this package registers every check in
:data:`sosproj.certificates.registry.REGISTRY`:

* :mod:`.stability`: stability of projections (constant 1 and the paper's 4/3);
* :mod:`.cosine_set`: :math:`G(\\{X \\succeq 0, X_{ii} \\le 1\\}) \\le 2 n^{3/2}`;
* :mod:`.injective_norm`: degree-4 SoS certificate of the injective norm, p = 3;
* :mod:`.sparse_lemma`: the sparse certificate lemma on :math:`\\mathcal{P}_t`;
* :mod:`.even_sparse`: the even-k sparse fact (sparse spectraplex);
* :mod:`.end_to_end`: the end-to-end error theorems (cosine, dense and sparse k-way);
* :mod:`.cube_vs_ball`: Boolean-cube against unit-ball relaxation complexities.

>>> from sosproj.certificates.registry import list_checks
>>> sorted(list_checks())[:2]
['cosine_set', 'cube_vs_ball']
"""

from sosproj.certificates.checks import (  # noqa: F401  (imported for registration)
    cosine_set,
    cube_vs_ball,
    end_to_end,
    even_sparse,
    injective_norm,
    sparse_lemma,
    stability,
)
