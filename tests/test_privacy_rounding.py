"""Rounding to a public grid (Mironov 2012 mitigation): exactness, bounds, clamping, low bits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sosproj.errors import InvalidParameterError
from sosproj.privacy.noise import gaussian_noise
from sosproj.privacy.rounding import on_grid, power_of_two_at_least, round_to_grid, snap


@pytest.mark.parametrize("scale", [1e-9, 0.1, 0.5, 1.0, 3.0, 1024.0, 1e9 + 1])
def test_power_of_two_at_least(scale: float) -> None:
    lam = power_of_two_at_least(scale)
    assert lam >= scale and lam / 2 < scale
    assert math.frexp(lam)[0] == 0.5  # an exact power of two


def test_rounding_is_exact_bounded_and_idempotent() -> None:
    x = np.random.default_rng(0).standard_normal(100_000) * 1e3
    for lam in [2.0 ** -10, 0.25, 1.0, 64.0]:
        r = round_to_grid(x, lam)
        assert on_grid(r, lam)
        assert np.max(np.abs(r - x)) <= lam / 2
        assert np.array_equal(round_to_grid(r, lam), r)
    assert not on_grid([0.3], 0.25)


def test_snap_clamps_to_public_bound() -> None:
    out = snap([10.0, -10.0, 0.49, 0.51], 1.0, bound=3.0)
    assert out.tolist() == [3.0, -3.0, 0.0, 1.0]
    with pytest.raises(InvalidParameterError):
        snap([1.0], 1.0, bound=-1.0)
    with pytest.raises(InvalidParameterError):
        round_to_grid([1.0], 0.0)


def test_snapping_removes_low_order_bits() -> None:
    """Same noise on two inputs differing below the grid: raw floats always differ (the low bits
    carry the input, Mironov's channel); snapped releases coincide except at rare grid boundaries."""
    sigma = 4.0
    z = gaussian_noise(200_000, sigma, rng=3)
    a, b = 0.0 + z, 1e-9 + z
    assert np.mean(a != b) > 0.99
    lam = power_of_two_at_least(sigma / 8)
    sa, sb = snap(a, lam, bound=100.0), snap(b, lam, bound=100.0)
    assert np.mean(sa != sb) < 1e-4
    # and the snapping costs little accuracy: rounding error <= lam / 2 = sigma / 16 here
    assert np.max(np.abs(sa - a)) <= lam / 2
