"""Black-box audit (sosproj.audit.audit_release): the real release functions, worst-case pairs, controls.

The full audit of every registered mechanism at the three claims, the negative controls
and the power per mechanism run in ``benchmarks/audit_report.py`` (minutes); its recorded
output is checked by ``tests/test_audit_recorded.py``. Here: the pairs are worst case
(checked against independent computations of the measured quantity), the statistics are
valid on a correct mechanism, every negative control fails on the real
``perturb_and_project`` at its registered number of runs, and the sampling is the same in
one process and in several.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sosproj.audit import (
    KINDS,
    MECHANISMS,
    NegativeControl,
    audit_release,
    broken_noise,
    claimed_mu,
    noise_free_output,
    sample_release,
)
from sosproj.audit.blackbox import SELECTIONS
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.privacy import noise
from sosproj.privacy.calibration import gaussian_sigma

CLAIM = (1.0, 1e-6)


# ----------------------------------------------------------- worst-case pairs


def _normalized_tensor(D: np.ndarray, s: int) -> np.ndarray:
    """(1/m) sum_r (x_r / sqrt(s)) (x_r / sqrt(s))^T: the k = 2 measurement, written out."""
    X = np.asarray(D, dtype=float) / np.sqrt(s)
    return X.T @ X / X.shape[0]


def _table_counts(D: np.ndarray) -> np.ndarray:
    """The 2 x 2 contingency table of 2 binary attributes, by brute force."""
    return np.array([[np.sum((D[:, 0] == a) & (D[:, 1] == b)) for b in (0, 1)] for a in (0, 1)], dtype=float)


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_registered_pairs_are_worst_case(name: str) -> None:
    """The measured quantity moves by exactly the sensitivity the release states (its adjacency's maximum)."""
    case = MECHANISMS[name]
    D, D2 = case.pair()
    rel = case.release(*CLAIM)(D, 0)
    if name.startswith(("perturb_and_project", "cosine")):
        # the caller's adjacency ||A - A'||_F <= sensitivity; the measured quantity is the input itself
        A = D if name.startswith("perturb") else D @ D.T / np.outer(*(2 * [np.linalg.norm(D, axis=1)]))
        A2 = D2 if name.startswith("perturb") else D2 @ D2.T / np.outer(*(2 * [np.linalg.norm(D2, axis=1)]))
        diff = np.linalg.norm(A2 - A)
    elif name in ("marginals[default]", "marginals[default-add-remove]", "marginals[default-categorical]"):
        # the brute force over all record pairs of the categorical domain: tests/test_audit_default_categorical.py
        from sosproj.audit.registry import whitened_residuals
        from sosproj.testing import noise_disabled

        release = case.release(*CLAIM)
        with noise_disabled():
            w1, w2 = (whitened_residuals(release(X, 0)) for X in (D, D2))
            if name == "marginals[default-add-remove]":
                # add/remove: D2 is D less one record; removing any other pattern moves the output no further
                assert len(D2) == len(D) - 1
                worst = max(np.linalg.norm(whitened_residuals(release(np.delete(D, i, axis=0), 0)) - w1)
                            for i in np.unique(D, axis=0, return_index=True)[1])
                assert worst == pytest.approx(np.linalg.norm(w2 - w1), rel=1e-12)
        diff = np.linalg.norm(w2 - w1)
    elif name == "marginals[select-one-way]":
        from sosproj.data.domain import Dataset, Domain
        from sosproj.mechanisms.marginals_pipeline import select_one_way_statistic

        sizes = list(D.max(axis=0) * 0 + 3)
        s1, s2 = (select_one_way_statistic(Dataset(X, Domain.from_sizes(sizes)), range(len(sizes))) for X in (D, D2))
        diff = np.linalg.norm(s2 - s1)      # the brute force of its sensitivity: tests/test_marginals_select.py
    elif name == "marginals[select-pairs]":
        from sosproj.audit.registry import SELECT_PAIRS_AUDIT_SIZES
        from sosproj.data.domain import Dataset, Domain
        from sosproj.mechanisms.marginals_pipeline import select_pairs_statistic

        pairs = list(itertools.combinations(range(len(SELECT_PAIRS_AUDIT_SIZES)), 2))
        s1, s2 = (select_pairs_statistic(Dataset(X, Domain.from_sizes(list(SELECT_PAIRS_AUDIT_SIZES))), pairs)
                  for X in (D, D2))
        diff = np.linalg.norm(s2 - s1)  # the brute force of its sensitivity: tests/test_marginals_select_pairs.py
    elif name.startswith("tables") or name == "marginals[tables]":
        diff = np.linalg.norm(_table_counts(D2) - _table_counts(D))
    else:
        s = D.shape[1] if rel.info.get("sparsity") is None else rel.info["sparsity"]
        if rel.k == 1:
            diff = np.linalg.norm((D2 - D).sum(axis=0)) / np.sqrt(s) / D.shape[0]
        else:
            diff = np.linalg.norm(_normalized_tensor(D2, s) - _normalized_tensor(D, s))
        # replace-one in the dense (or t-sparse) domain: no pair of rows moves the tensor further
        n = D.shape[1]
        rows = [np.array(r) for r in itertools.product([0, 1], repeat=n)
                if rel.info.get("sparsity") is None or sum(r) <= rel.info["sparsity"]]
        worst = max(np.linalg.norm(np.multiply.outer(*(rel.k * [a / np.sqrt(s)])) -
                                   np.multiply.outer(*(rel.k * [b / np.sqrt(s)]))) if rel.k > 1
                    else np.linalg.norm((a - b) / np.sqrt(s)) for a in rows for b in rows) / D.shape[0]
        assert worst == pytest.approx(diff, rel=1e-12)
    assert diff == pytest.approx(rel.sensitivity, rel=1e-9)
    # and the released outputs differ (the audit has a direction)
    u = noise_free_output(case.release(*CLAIM), D2, case.output) - noise_free_output(case.release(*CLAIM), D,
                                                                                       case.output)
    assert np.linalg.norm(u) > 0


# ---------------------------------------------------------------- statistics


def _gauss(x: np.ndarray, rng: np.random.Generator, s: float) -> np.ndarray:
    return x + noise.gaussian_noise(x.shape, s, rng)


def test_false_failure_rate_at_a_true_claim_is_at_most_alpha() -> None:
    """Validity by simulation: a Gaussian mechanism exactly at the claim (its mu is the claimed mu, so
    every failure is a false one) fails at most alpha = 5% of 200 independent audits with the shipped
    selection rule (the event is chosen on the calibration runs only, so the hold-out test keeps its
    level whatever the rule)."""
    from functools import partial

    s = gaussian_sigma(*CLAIM)
    f = partial(_gauss, s=s)
    bounds = np.array([audit_release(f, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=600, rng=seed,
                                     direction=[1.0]).bound for seed in range(200)])
    assert np.mean(bounds > 1 / s) <= 0.05
    assert claimed_mu(*CLAIM) == pytest.approx(1 / s, rel=1e-12)


@pytest.mark.parametrize("selection", SELECTIONS)
def test_halved_sigma_is_caught(selection: str) -> None:
    """sigma x 0.5 (mu doubled) fails the audit at 4,000 runs per input in each of 5 seeds."""
    from functools import partial

    f = partial(_gauss, s=0.5 * gaussian_sigma(*CLAIM))
    for seed in range(5):
        r = audit_release(f, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=4000, rng=seed,
                          selection=selection)
        assert not r.passed and r.epsilon_lower_bound > 1.0, (seed, r)
        assert r.info["selection"] == selection


def _lattice(x: np.ndarray, rng: np.random.Generator, s: float, step: float) -> np.ndarray:
    """The Gaussian mechanism rounded to a grid of ``step``: post-processing, so exactly at its claim
    when ``s`` is the claimed sigma; a fine grid gives many values each seen a few times."""
    return np.round((x + s * rng.standard_normal(x.shape)) / step) * step


def test_lattice_at_its_claim_gives_no_separated_atom_event() -> None:
    """The atom over-fit (docs/privacy.md, audit): on a fine lattice at its claim, the previous rule
    (atoms defined and scored on the same calibration runs) picks a chance atom set that looks
    separated (score above the claimed mu); the shipped rule scores the atoms on the other half of the
    calibration runs, where they are hit under both inputs, so no atom event looks separated."""
    from functools import partial

    s = gaussian_sigma(*CLAIM)
    f = partial(_lattice, s=s, step=1 / 16)
    kw = {"epsilon": 1.0, "delta": 1e-6, "trials": 4000, "direction": "means", "rng": 0}
    old = audit_release(f, np.zeros(1), np.ones(1), selection="calibration", **kw)
    assert "atoms" in old.event and old.info["calibration_score"] > 2 * old.claimed_bound, old
    for seed in range(3):
        new = audit_release(f, np.zeros(1), np.ones(1), **{**kw, "rng": seed})
        assert new.info["selection"] == "split" and new.passed, new
        assert "atoms" not in new.event and new.info["calibration_score"] < new.claimed_bound, new


@pytest.mark.parametrize(("factor", "step"), [(0.5, 1 / 16), (0.5, 1 / 4)])
def test_lattice_with_halved_sigma_is_caught(factor: float, step: float) -> None:
    """The same lattice with sigma x 0.5 still fails the audit with the shipped rule."""
    from functools import partial

    f = partial(_lattice, s=factor * gaussian_sigma(*CLAIM), step=step)
    for seed in range(3):
        r = audit_release(f, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=4000, direction="means",
                          rng=seed)
        assert not r.passed and r.bound > r.claimed_bound, (seed, r)


def test_disjoint_lattices_are_caught_through_split_atoms() -> None:
    """Disjoint supports (a grid of step 2 shifted by 1) are still caught through an atom event: the
    atoms of one half of the calibration runs have no hit under the other input in the other half."""

    def f(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return x + _lattice(np.zeros_like(x), rng, gaussian_sigma(*CLAIM), 2.0)

    r = audit_release(f, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=4000, direction="means", rng=0)
    assert not r.passed and "atoms" in r.event and r.counts[0] == 0 and r.bound > 3, r


def test_point_profile_is_weaker_than_the_gaussian_profile() -> None:
    """sigma x 0.5 at 20 000 runs: the GDP-profile test catches it, the (eps, delta)-point test cannot."""
    from functools import partial

    f = partial(_gauss, s=0.5 * gaussian_sigma(*CLAIM))
    g = audit_release(f, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=20_000, rng=3)
    p = audit_release(f, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=20_000, rng=3, profile="point")
    assert not g.passed and g.epsilon_lower_bound > 1.0
    assert p.passed and p.epsilon_lower_bound < 1.0


# ---------------------------------------------------------- negative controls


@pytest.mark.parametrize("kind", [pytest.param(k, marks=pytest.mark.slow) if k in ("scale", "sensitivity") else k
                                  for k in KINDS])
def test_every_negative_control_fails_on_perturb_and_project(kind: str) -> None:
    """Zero, uniform, sigma x 0.7, sensitivity x 0.7 and grid-snapped noise, inside the real mechanism.

    sigma x 0.7 (and the equivalent understated sensitivity) is the detectable factor stated for
    perturb_and_project at its registered 20 000 runs; the other controls fail with a tenth of that.
    """
    case = MECHANISMS["perturb_and_project[box]"]
    D, D2 = case.pair()
    trials = case.trials if kind in ("scale", "sensitivity") else 2_000
    f = NegativeControl(case.release(*CLAIM), kind, 0.7)
    res = audit_release(f, D, D2, epsilon=1.0, delta=1e-6, trials=trials, rng=11)
    assert not res.passed, res
    assert res.epsilon_lower_bound > 1.0
    if kind == "sensitivity":  # the release reports the understated calibration: sigma x 0.7
        rel = f(D, 0)
        assert rel.sigma == pytest.approx(0.7 * gaussian_sigma(*CLAIM), rel=1e-12)


def test_controls_restore_the_library() -> None:
    import importlib

    pap_mod = importlib.import_module("sosproj.mechanisms.perturb_and_project")

    from sosproj.privacy import calibration, discrete_gaussian

    def library() -> tuple:
        return (noise.gaussian_noise, pap_mod.gaussian_noise, calibration.gaussian_sigma, calibration.spec_sigma,
                discrete_gaussian.sample_discrete_gaussian, discrete_gaussian.discrete_gaussian_sigma)

    before = library()
    for kind in KINDS:
        with broken_noise(kind):
            assert library() != before
    assert library() == before
    with pytest.raises(InvalidParameterError):
        NegativeControl(lambda d, r: d, "laplace")


def test_controls_reach_the_discrete_gaussian_sampler() -> None:
    """release_tables(noise="discrete") under each control: its noise is broken the same way as the
    continuous mechanisms' (the power of tables[discrete] is measured through these)."""
    from sosproj.privacy import discrete_gaussian as dg
    from sosproj.testing import noise_disabled

    case = MECHANISMS["tables[discrete]"]
    D, _ = case.pair()
    f = case.release(*CLAIM)
    rel = f(D, 0)
    with noise_disabled():
        exact = f(D, 0).info["measured_cells"]
    assert rel.info["noise"] == "discrete_gaussian"
    sigma = dg.discrete_gaussian_sigma(*CLAIM, rel.sensitivity)
    assert rel.sigma == pytest.approx(sigma, rel=1e-12)

    def measured_noise(kind: str, seed: int, factor: float = 0.7) -> np.ndarray:
        return NegativeControl(f, kind, factor)(D, seed).info["measured_cells"] - exact

    np.testing.assert_array_equal(measured_noise("zero", 1), 0.0)
    z = np.concatenate([measured_noise("grid", s) for s in range(20)])
    g = max(2, round(sigma / 8))
    assert np.all(z % g == 0) and np.any(z != 0)
    sens = NegativeControl(f, "sensitivity", 0.7)(D, 1)
    assert sens.sigma == pytest.approx(dg.discrete_gaussian_sigma(*CLAIM, 0.7 * rel.sensitivity), rel=1e-12)
    # the sampler itself: sigma x 0.5 and uniform noise of the same variance, integer-valued
    s2 = 36.0
    with broken_noise("scale", 0.5):
        x = dg.sample_discrete_gaussian(200_000, s2, rng=0)
    assert x.dtype.kind == "i" and x.var() == pytest.approx(0.25 * s2, rel=0.02)
    with broken_noise("uniform"):
        y = dg.sample_discrete_gaussian(200_000, s2, rng=0)
    a = round((np.sqrt(1 + 12 * s2) - 1) / 2)
    assert y.dtype.kind == "i" and np.abs(y).max() == a and y.var() == pytest.approx(s2, rel=0.05)


# ------------------------------------------------------------------- sampling


def test_sampling_is_the_same_in_one_process_and_in_several() -> None:
    case = MECHANISMS["cosine[exact]"]
    D, _ = case.pair()
    f = case.release(*CLAIM)
    a = sample_release(f, D, 60, rng=5, chunk=20, n_jobs=1)
    b = sample_release(f, D, 60, rng=5, chunk=20, n_jobs=2)
    np.testing.assert_array_equal(a, b)
    assert len(np.unique(a[:, 1])) == 60  # independent draws per run


def test_argument_errors() -> None:
    from functools import partial

    f = partial(_gauss, s=1.0)
    z, o = np.zeros(1), np.ones(1)
    with pytest.raises(InvalidParameterError):
        audit_release(f, z, o, epsilon=1.0, delta=1e-6, profile="renyi")
    with pytest.raises(InvalidParameterError):
        audit_release(f, z, o, epsilon=1.0, delta=1e-6, trials=50)
    with pytest.raises(InputTypeError):
        audit_release(42, z, o, epsilon=1.0, delta=1e-6)
    with pytest.raises(InvalidInputError, match="same noise-free output"):
        audit_release(f, o, o, epsilon=1.0, delta=1e-6)
    with pytest.raises(InvalidParameterError, match="direction has"):
        audit_release(f, z, o, epsilon=1.0, delta=1e-6, trials=300, direction=[1.0, 0.0])
