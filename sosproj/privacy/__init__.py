"""Privacy layer: noise calibration, samplers, budget accounting.

>>> from sosproj.privacy import gaussian_sigma
>>> gaussian_sigma(1.0, 1e-6) > 0
True
"""

from sosproj._lazy import attach

_NAMES = {
    "gaussian_sigma": "sosproj.privacy.calibration",
    "gaussian_delta": "sosproj.privacy.calibration",
    "gaussian_noise": "sosproj.privacy.noise",
    "PrivacyAccountant": "sosproj.privacy.accountant",
    "sample_discrete_gaussian": "sosproj.privacy.discrete_gaussian",
    "discrete_gaussian_sigma": "sosproj.privacy.discrete_gaussian",
    "discrete_gaussian_delta": "sosproj.privacy.discrete_gaussian",
    "snap": "sosproj.privacy.rounding",
    "round_to_grid": "sosproj.privacy.rounding",
}
_SUBMODULES = ["calibration", "noise", "accountant", "discrete_gaussian", "rounding"]

__getattr__, __dir__, __all__ = attach(__name__, _SUBMODULES, _NAMES)
