"""Brent's root finder of the calibration (issue 14, release start-up): the same floats as SciPy's brentq."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import brentq

from sosproj.errors import InvalidParameterError
from sosproj.privacy.calibration import _log_delta, _log_sigma_bracket, brent_root


@pytest.mark.parametrize("eps", [1e-3, 0.03, 0.3, 1.0, 3.0, 10.0, 40.0])
@pytest.mark.parametrize("delta", [1e-300, 1e-30, 1e-9, 1e-3, 0.3])
def test_calibration_root_is_scipys_bit_for_bit(eps: float, delta: float) -> None:
    ld = math.log(delta)

    def f(x: float) -> float:
        return _log_delta(math.exp(x), eps, 1.0) - ld

    lo, hi = _log_sigma_bracket(f, eps, delta)
    assert f(lo) > 0.0 >= f(hi)
    kw = dict(xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    assert brent_root(f, lo, hi, **kw) == brentq(f, lo, hi, **kw)


def test_random_functions_and_tolerances_match_scipy() -> None:
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        c = rng.normal(size=4)

        def g(x: float, c: np.ndarray = c) -> float:
            return float(c[0] + c[1] * x + c[2] * x ** 3 + math.sin(5 * c[3] * x))

        if np.sign(g(-5.0)) == np.sign(g(5.0)):
            continue
        for xtol in (1e-15, 1e-6, 0.1):
            assert brent_root(g, -5.0, 5.0, xtol=xtol) == brentq(g, -5.0, 5.0, xtol=xtol)
            checked += 1
    assert checked > 300


def test_bad_bracket_and_no_convergence_are_errors() -> None:
    with pytest.raises(InvalidParameterError, match="opposite signs"):
        brent_root(lambda x: x * x + 1.0, -1.0, 1.0)
    with pytest.raises(RuntimeError, match="no convergence"):
        brent_root(lambda x: x ** 3 - 0.3, 0.0, 1.0, xtol=1e-15, maxiter=2)
    with pytest.raises(InvalidParameterError):
        brent_root(lambda x: x, -1.0, 1.0, xtol=0.0)
    assert brent_root(lambda x: x, 0.0, 1.0) == 0.0          # an endpoint root is returned as is


def test_release_path_does_not_import_scipy_optimize() -> None:
    code = ("import sys, numpy as np, sosproj as sp\n"
            "sp.release_marginals(np.random.default_rng(0).integers(0, 2, (50, 4)), 2, epsilon=1.0, delta=1e-6,"
            " rng=0)\n"
            "print('scipy.optimize' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"
