r"""Certificates: Gaussian complexities, rate fits and executable checks of the paper's bounds.

* :func:`gaussian_complexity`: Monte Carlo estimate of :math:`G(S)=\mathbb{E}\sup_{X\in S}\langle W,X\rangle`
  with a confidence interval (joblib locally, Dask when a scheduler is given);
* :func:`fit_rate`: log-log rate fits with bootstrap intervals;
* the registry (:func:`list_checks`, :func:`get_check`, :func:`run_check`, :data:`REGISTRY`) of the
  paper's claims as checks with verdicts;
* :func:`run_spec`: run a TOML suite (``certificates/quick.toml``) and record its report.

Regenerate the recorded reports with ``python -m sosproj.certificates certificates/quick.toml``
(or ``sosproj certify certificates/quick.toml``).

>>> from sosproj.certificates import gaussian_complexity
>>> from sosproj.sets import Spectraplex
>>> est = gaussian_complexity(Spectraplex(1.0), shape=(4, 4), trials=50, rng=0)
>>> est.trials
50
"""

from sosproj.certificates.complexity import ComplexityEstimate, gaussian_complexity
from sosproj.certificates.rates import RateFit, fit_rate
from sosproj.certificates.registry import (
    REGISTRY,
    Check,
    CheckResult,
    get_check,
    list_checks,
    register,
    run_check,
)
from sosproj.certificates.spec import Report, Spec, run_spec

__all__ = ["ComplexityEstimate", "gaussian_complexity", "RateFit", "fit_rate", "REGISTRY", "Check",
           "CheckResult", "get_check", "list_checks", "register", "run_check", "Report", "Spec", "run_spec"]
