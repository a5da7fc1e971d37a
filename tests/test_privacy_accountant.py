"""Privacy accountant: published composition examples, conversions, refusal before release."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from sosproj.errors import InvalidParameterError, PrivacyBudgetError
from sosproj.privacy.accountant import (
    Charge,
    PrivacyAccountant,
    advanced_composition,
    basic_composition,
    gaussian_epsilon,
    optimal_composition_delta,
    optimal_composition_epsilon,
    zcdp_epsilon_bs16,
    zcdp_epsilon_cks20,
)
from sosproj.privacy.calibration import gaussian_delta, gaussian_sigma

# ------------------------------------------------------------- published examples


def test_dwork_roth_example_3_7_advanced_composition() -> None:
    """Dwork & Roth (2014), Example 3.7: k = 10 000 databases, each (1/801, 0)-DP, delta' = e^-32;
    advanced composition (their Thm. 3.20, DRV10) gives a lifetime loss of about epsilon = 1."""
    k = 10_000
    eps, delta = advanced_composition([1 / 801] * k, [0.0] * k, math.exp(-32))
    # sqrt(2 k ln(1/delta')) = 800 exactly, so the first term is 800/801.
    assert math.sqrt(2 * k * 32) == pytest.approx(800.0)
    assert eps == pytest.approx(800 / 801 + k / 801 * math.expm1(1 / 801), rel=1e-12)
    assert eps == pytest.approx(1.0, abs=0.02)
    assert delta == pytest.approx(math.exp(-32))
    # basic composition would give 10000/801 ~ 12.5 for the same releases
    assert basic_composition([1 / 801] * k, [0.0] * k)[0] == pytest.approx(k / 801)


def test_dwork_roth_theorem_3_20_homogeneous_form() -> None:
    """DRV10 / Dwork-Roth Thm 3.20: eps' = sqrt(2k ln(1/d')) eps + k eps (e^eps - 1), delta = k d + d'."""
    for k, e0, d0, dp in [(10, 0.5, 1e-7, 1e-6), (100, 0.1, 0.0, 1e-5), (1000, 0.01, 1e-9, 1e-8)]:
        eps, delta = advanced_composition([e0] * k, [d0] * k, dp)
        assert eps == pytest.approx(math.sqrt(2 * k * math.log(1 / dp)) * e0 + k * e0 * math.expm1(e0))
        assert delta == pytest.approx(k * d0 + dp)


def _rr_profile_exact(eps0: Fraction, k: int, eps: float) -> float:
    """Independent brute force: hockey-stick divergence between k-fold randomized response outputs.

    P(x) = prod p^{x_i} (1-p)^{1-x_i}, Q = the same with p and 1-p swapped, p = e^eps0/(1+e^eps0).
    delta(eps) = sum_x max(0, P(x) - e^eps Q(x)) over all 2^k output strings (KOV 2015, Thm 3.3:
    randomized response is the worst case for k-fold composition of eps0-DP mechanisms)."""
    e = math.exp(float(eps0))
    p, q = e / (1 + e), 1 / (1 + e)
    total = 0.0
    for x in itertools.product((0, 1), repeat=k):
        ones = sum(x)
        P = p ** ones * q ** (k - ones)
        Q = q ** ones * p ** (k - ones)
        total += max(0.0, P - math.exp(eps) * Q)
    return total


@pytest.mark.parametrize("k", [1, 2, 5, 8])
@pytest.mark.parametrize("eps0", [0.1, 0.5, 1.0])
def test_kov_optimal_composition_matches_brute_force(k: int, eps0: float) -> None:
    for eps in [0.0, 0.3 * k * eps0, 0.7 * k * eps0, k * eps0]:
        ref = _rr_profile_exact(Fraction(eps0), k, eps)
        assert optimal_composition_delta(eps0, 0.0, k, eps) == pytest.approx(ref, abs=1e-12)


def test_kov_with_approximate_delta_and_ordering() -> None:
    """KOV Thm 3.3 with delta0 > 0, and optimal <= advanced <= ... as the theory says."""
    d = optimal_composition_delta(0.5, 1e-6, 3, 0.5)
    rr = optimal_composition_delta(0.5, 0.0, 3, 0.5)
    assert d == pytest.approx(1 - (1 - 1e-6) ** 3 * (1 - rr))
    for k, e0 in [(10, 0.5), (100, 0.1), (500, 0.05)]:
        opt = optimal_composition_epsilon(e0, 0.0, k, 1e-6)
        adv = advanced_composition([e0] * k, [0.0] * k, 1e-6)[0]
        assert opt <= adv + 1e-12
        assert opt <= k * e0 + 1e-12
        # and the optimal epsilon is tight: the profile is exactly delta there
        assert optimal_composition_delta(e0, 0.0, k, opt) == pytest.approx(1e-6, rel=1e-6)
    assert optimal_composition_epsilon(1.0, 0.0, 1, 0.5) == 0.0  # TV of one RR is 0.462 <= 0.5
    assert optimal_composition_epsilon(1.0, 0.1, 5, 0.2) == math.inf  # 1-(0.9)^5 > 0.2


# ------------------------------------------------------------------- zCDP


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # raised inside autodp's own minimizer
@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.1, 0.5, 1.0, 2.63, 10.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_cks20_conversion_against_autodp_and_bs16(rho: float, delta: float) -> None:
    ours = zcdp_epsilon_cks20(rho, delta)
    assert ours <= zcdp_epsilon_bs16(rho, delta) + 1e-12
    assert zcdp_epsilon_bs16(rho, delta) == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)))
    # a Gaussian mechanism with this rho is rho-zCDP, so the exact Gaussian epsilon is a lower bound
    assert gaussian_epsilon(math.sqrt(2 * rho), delta) <= ours + 1e-9
    autodp_conv = pytest.importorskip("autodp.converter")
    ref = autodp_conv.rdp_to_approxdp(lambda a: a * rho)(delta)  # BBGHS20/CKS20 conversion
    assert ours == pytest.approx(ref, rel=1e-5, abs=1e-9)


def test_cks20_brute_force_minimum() -> None:
    """Dense grid over alpha as an independent minimizer of CKS20 Cor. 13."""
    alphas = 1 + np.logspace(-6, 6, 200_001)
    for rho, delta in [(0.05, 1e-6), (1.0, 1e-9), (5.0, 1e-3)]:
        vals = alphas * rho + (math.log(1 / delta) + (alphas - 1) * np.log1p(-1 / alphas)
                               - np.log(alphas)) / (alphas - 1)
        assert zcdp_epsilon_cks20(rho, delta) == pytest.approx(vals.min(), rel=1e-7)


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-5), (0.5, 1e-5), (1.0, 1e-6), (2.0, 1e-6), (8.0, 1e-9)])
def test_gaussian_conversion_round_trips_analytic_sigma(eps: float, delta: float) -> None:
    """One analytic Gaussian (lead's Balle-Wang calibration) charged in zCDP is worth exactly eps."""
    sigma = gaussian_sigma(eps, delta, 2.5)
    acc = PrivacyAccountant(eps, delta, conversion="gaussian")
    acc.charge_gaussian(sigma=sigma, sensitivity=2.5, epsilon=eps, delta=delta)
    spent_eps, spent_delta = acc.spent()
    assert spent_eps == pytest.approx(eps, rel=1e-9)
    assert spent_eps <= eps * (1 + 1e-12)
    assert gaussian_delta(sigma, spent_eps, 2.5) <= delta * (1 + 1e-9)
    # the generic zCDP conversion must be more conservative
    assert zcdp_epsilon_cks20(acc.rho, delta) >= eps


def test_gaussian_composition_is_one_gaussian() -> None:
    """k Gaussians with the same mu compose to one with mu*sqrt(k) (Dong-Roth-Su Cor 3.3)."""
    s = gaussian_sigma(1.0, 1e-6)
    acc = PrivacyAccountant(10.0, 1e-6)
    acc.charge_gaussian(sigma=s, sensitivity=1.0, count=4)
    # 4 copies of mu = 1/s == one with mu = 2/s, i.e. sigma/2
    assert acc.spent()[0] == pytest.approx(gaussian_epsilon(2.0 / s, 1e-6), rel=1e-9)
    assert acc.rho == pytest.approx(4 / (2 * s * s))


# ------------------------------------------------------------ budget & refusal


def test_refuses_over_budget_and_keeps_ledger() -> None:
    acc = PrivacyAccountant(1.0, 1e-6)
    s = gaussian_sigma(0.5, 1e-6)
    # exact Gaussian composition: n copies fit iff n <= (sigma(0.5) / sigma(1))^2 = 3.64
    for _ in range(3):
        acc.charge_gaussian(sigma=s, sensitivity=1.0, epsilon=0.5, delta=1e-6)
    n = len(acc.ledger)
    with pytest.raises(PrivacyBudgetError, match="exceed the privacy budget"):
        acc.charge_gaussian(sigma=s, sensitivity=1.0, epsilon=0.5, delta=1e-6)
    assert len(acc.ledger) == n
    assert acc.spent()[0] <= 1.0
    acc.charge_gaussian(sigma=100 * s, sensitivity=1.0)  # a tiny one still fits
    assert len(acc.ledger) == n + 1


def test_zcdp_accounting_beats_approx_accounting() -> None:
    """Three (0.5, 1e-6) analytic Gaussians: approx basic composition says eps=1.5, zCDP/GDP much less."""
    s = gaussian_sigma(0.5, 1e-7)
    approx = PrivacyAccountant(1.5, 3e-7, accounting="approx", composition="basic")
    zc = PrivacyAccountant(1.5, 3e-7)
    for acc in (approx, zc):
        for _ in range(3):
            acc.charge_gaussian(sigma=s, sensitivity=1.0, epsilon=0.5, delta=1e-7)
    assert approx.spent() == pytest.approx((1.5, 3e-7))
    assert zc.spent()[0] < 1.0
    with pytest.raises(PrivacyBudgetError):
        approx.charge(epsilon=0.01)


def test_approx_ledger_basic_and_mixed() -> None:
    acc = PrivacyAccountant(1.0, 1e-5)
    acc.charge(epsilon=0.3, delta=1e-6)
    acc.charge(epsilon=0.3, delta=0.0, count=2)
    eps, delta = acc.spent()
    assert eps == pytest.approx(0.9)
    assert delta == pytest.approx(1e-6)
    with pytest.raises(PrivacyBudgetError):
        acc.charge(epsilon=0.2)
    acc.charge_zcdp(1e-4)  # mixed ledger: zCDP part converted with the free delta
    eps2, delta2 = acc.spent()
    assert 0.9 < eps2 <= 1.0 and delta2 <= 1e-5
    assert not acc.can_afford(Charge(kind="approx", label="x", epsilon=0.5, delta=0.0))


def test_delta_exhausted_is_refused() -> None:
    acc = PrivacyAccountant(5.0, 1e-6)
    with pytest.raises(PrivacyBudgetError):
        acc.charge(epsilon=0.1, delta=2e-6)
    acc.charge(epsilon=0.1, delta=1e-6)
    with pytest.raises(PrivacyBudgetError):  # no delta left for a Gaussian
        acc.charge_gaussian(sigma=100.0, sensitivity=1.0)


def test_many_small_charges_use_advanced_or_optimal() -> None:
    acc = PrivacyAccountant(3.5, 1e-6)
    for _ in range(200):
        acc.charge(epsilon=0.05)
    eps = acc.spent()[0]
    assert eps < 200 * 0.05  # basic would be 10
    assert eps == pytest.approx(optimal_composition_epsilon(0.05, 0.0, 200, 1e-6), rel=1e-6)


def test_parameter_validation() -> None:
    with pytest.raises(InvalidParameterError):
        PrivacyAccountant(0.0, 1e-6)
    with pytest.raises(InvalidParameterError):
        PrivacyAccountant(1.0, 1.0)
    with pytest.raises(InvalidParameterError):
        PrivacyAccountant(1.0, 1e-6, conversion="magic")
    acc = PrivacyAccountant(1.0, 1e-6, accounting="approx")
    with pytest.raises(InvalidParameterError, match="epsilon= and delta="):
        acc.charge_gaussian(sigma=1.0, sensitivity=1.0)
    with pytest.raises(InvalidParameterError):
        PrivacyAccountant(1.0, 1e-6).charge_gaussian(sigma=-1.0, sensitivity=1.0)
    g = PrivacyAccountant(5.0, 1e-6, conversion="gaussian")
    with pytest.raises(InvalidParameterError, match="cks20"):
        g.charge_gaussian(sigma=10.0, sensitivity=1.0, discrete=True)
    assert g.ledger == ()


def test_perturb_and_project_refused_before_noise() -> None:
    """A refused charge releases nothing and draws no noise (the generator state is unchanged)."""
    from sosproj.mechanisms.perturb_and_project import perturb_and_project
    from sosproj.sets import Box

    acc = PrivacyAccountant(1.0, 1e-6)
    A = np.zeros((3, 3))
    rel = perturb_and_project(A, Box(-1, 1), epsilon=0.9, delta=1e-7, sensitivity=1.0, rng=0,
                              accountant=acc)
    assert rel.value.shape == (3, 3)
    gen = np.random.default_rng(7)
    state = gen.bit_generator.state
    with pytest.raises(PrivacyBudgetError):
        perturb_and_project(A, Box(-1, 1), epsilon=0.9, delta=1e-7, sensitivity=1.0, rng=gen,
                            accountant=acc)
    assert gen.bit_generator.state == state
    assert len(acc.ledger) == 1
    assert "perturb_and_project" in acc.ledger[0].label


def _mechanism_calls() -> dict[str, object]:
    from sosproj.mechanisms.cosine import release_cosine_similarities
    from sosproj.mechanisms.marginals import release_marginals
    from sosproj.mechanisms.perturb_and_project import perturb_and_project
    from sosproj.sets import Box

    D = np.random.default_rng(0).integers(0, 2, size=(30, 3))
    V = np.random.default_rng(1).standard_normal((4, 3))
    return {
        "perturb_and_project": lambda acc, rng: perturb_and_project(
            np.zeros(3), Box(-1, 1), epsilon=0.9, delta=1e-7, sensitivity=1.0, rng=rng, accountant=acc),
        "cosine": lambda acc, rng: release_cosine_similarities(
            V, epsilon=0.9, delta=1e-7, sensitivity=1.0, method="gaussian", rng=rng, accountant=acc),
        "marginals": lambda acc, rng: release_marginals(
            D, 2, epsilon=0.9, delta=1e-7, method="symmetrize", rng=rng, accountant=acc),
        "marginals_tables": lambda acc, rng: release_marginals(
            D, 2, epsilon=0.9, delta=1e-7, method="tables", rng=rng, accountant=acc),
    }


@pytest.mark.parametrize("name", ["perturb_and_project", "cosine", "marginals", "marginals_tables"])
def test_every_mechanism_charges_and_refuses_over_budget(name: str) -> None:
    """Budget (1.0, 1e-6): one (0.9, 1e-7) release fits, a second is refused before any noise is drawn."""
    call = _mechanism_calls()[name]
    acc = PrivacyAccountant(1.0, 1e-6)
    call(acc, 0)
    assert len(acc.ledger) == 1 and acc.ledger[0].kind == "gaussian"
    gen = np.random.default_rng(3)
    state = gen.bit_generator.state
    with pytest.raises(PrivacyBudgetError):
        call(acc, gen)
    assert gen.bit_generator.state == state and len(acc.ledger) == 1
