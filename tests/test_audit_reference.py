"""Independent high-precision references for the quantities the audits treat as the truth.

``gaussian_epsilon`` (the exact epsilon of the Gaussian mechanism, Balle and Wang 2018) is
checked against an mpmath computation at 40 digits: the profile
:math:`\\delta(\\varepsilon) = \\Phi(\\mu/2 - \\varepsilon/\\mu) - e^{\\varepsilon}\\Phi(-\\mu/2 - \\varepsilon/\\mu)`
evaluated with ``mpmath.ncdf`` and inverted by bisection (no scipy, no log-space tricks).
``claimed_mu`` of the black-box audit is checked the same way: its profile passes through
the claim.
"""

from __future__ import annotations

import mpmath as mp
import pytest

from sosproj.audit import claimed_mu
from sosproj.privacy.accountant import gaussian_epsilon

mp.mp.dps = 40


def _delta_mp(mu: mp.mpf, eps: mp.mpf) -> mp.mpf:
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def _epsilon_mp(mu: float, delta: float) -> mp.mpf:
    mu, delta = mp.mpf(mu), mp.mpf(delta)
    if _delta_mp(mu, mp.mpf(0)) <= delta:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while _delta_mp(mu, hi) > delta:
        hi *= 2
    for _ in range(90):  # delta(eps) is decreasing: plain bisection to ~hi * 1e-27
        mid = (lo + hi) / 2
        if _delta_mp(mu, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


@pytest.mark.parametrize("mu", [0.05, 0.2367, 1.0, 5.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-12])
def test_gaussian_epsilon_matches_mpmath(mu: float, delta: float) -> None:
    ref = float(_epsilon_mp(mu, delta))
    got = gaussian_epsilon(mu, delta)
    assert got == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert got >= ref - 1e-12  # never reported below the exact value


@pytest.mark.parametrize("eps,delta", [(0.5, 1e-5), (1.0, 1e-6), (2.0, 1e-6)])
def test_claimed_mu_profile_passes_through_the_claim(eps: float, delta: float) -> None:
    mu = mp.mpf(claimed_mu(eps, delta))
    assert float(_delta_mp(mu, mp.mpf(eps))) == pytest.approx(delta, rel=1e-6)
