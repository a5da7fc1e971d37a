"""sosproj: exact projections onto sum-of-squares pseudo-moment sets and the
differentially private perturb-and-project mechanisms built on them.

Implements "Perturb-and-Project: Differentially Private Similarities and
Marginals" (ICML 2024). Public names are loaded lazily.

>>> import sosproj as sp
>>> round(sp.gaussian_sigma(0.5, 1e-5, calibration="classical"), 4)
9.6896
"""

from sosproj._lazy import attach
from sosproj._version import __version__

_SUBMODULES = ["sets", "poly", "sdp", "mechanisms", "certificates", "privacy", "data",
               "audit", "errors", "validation", "rng", "cli"]
_NAMES = {
    "gaussian_sigma": "sosproj.privacy.calibration",
    "perturb_and_project": "sosproj.mechanisms.perturb_and_project",
    "Release": "sosproj.mechanisms.release",
    "release_cosine_similarities": "sosproj.mechanisms.cosine",
    "release_marginals": "sosproj.mechanisms.marginals",
    "MarginalRelease": "sosproj.mechanisms.release",
    "MarginalTablesRelease": "sosproj.mechanisms.release",
    "Dataset": "sosproj.data.domain",
    "Domain": "sosproj.data.domain",
    "release_tables": "sosproj.mechanisms.marginal_tables",
    "PolySystem": "sosproj.poly.system",
    "MomentRelaxation": "sosproj.poly.relaxation",
    "PseudoMomentSet": "sosproj.sets.pseudo_moment",
    "LeastSquaresProjector": "sosproj.sdp.least_squares",
    "load_dataset": "sosproj.data.datasets",
    "PrivacyAccountant": "sosproj.privacy.accountant",
    "audit_mechanism": "sosproj.audit",
    "audit_release": "sosproj.audit",
    "sample_discrete_gaussian": "sosproj.privacy.discrete_gaussian",
    "discrete_gaussian_sigma": "sosproj.privacy.discrete_gaussian",
    "SosprojError": "sosproj.errors",
    "ProjectionError": "sosproj.errors",
}

__getattr__, __dir__, __all__ = attach(__name__, _SUBMODULES, _NAMES)
__all__ = [*__all__, "__version__"]
