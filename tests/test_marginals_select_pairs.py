"""The private pair selection of the categorical ``"auto"`` release (:func:`select_pairs`): the statistic's
sensitivity by brute force, the budget's composition, the public parts, the choice and the release it leads to."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.accountant import PrivacyAccountant
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.privacy.spec import Adjacency

R1, AR = Adjacency.REPLACE_ONE, Adjacency.ADD_REMOVE


def _ds(X, sizes):
    return Dataset(np.asarray(X, dtype=np.int64).reshape(-1, len(sizes)), Domain.from_sizes(sizes))


def _pairs(n):
    return list(itertools.combinations(range(n), 2))


def _stat(X, sizes):
    return mp.select_pairs_statistic(_ds(X, sizes), _pairs(len(sizes)))


def _dmat(X, sizes):
    """The pair table's distance from independence, ``T - T_a T_b^T / m`` (first pair), as a matrix."""
    T = np.asarray(_ds(X, sizes).marginal((0, 1)), dtype=float)
    return T - np.outer(T.sum(1), T.sum(0)) / T.sum()


def _worst(X, sizes):
    """Largest l2 change of the statistic over every replaced record and every replacement of the domain, and over
    every removed record and every added one."""
    domain = np.array(list(itertools.product(*[range(s) for s in sizes])))
    base = _stat(X, sizes)
    rep = add = 0.0
    for i in range(len(X)):
        for row in domain:
            Y = X.copy()
            Y[i] = row
            rep = max(rep, float(np.linalg.norm(_stat(Y, sizes) - base)))
        add = max(add, float(np.linalg.norm(_stat(np.delete(X, i, 0), sizes) - base)))
    for row in domain:
        add = max(add, float(np.linalg.norm(_stat(np.vstack([X, row]), sizes) - base)))
    return rep, add


@pytest.mark.parametrize("sizes", [(2, 2), (2, 3), (3, 3), (3, 4), (2, 2, 2), (2, 3, 3)])
def test_statistic_sensitivity_brute_force(sizes):
    """Over random small datasets and the worst configurations of the proof, EVERY replaced record / every added or
    removed record moves the statistic vector by at most its computed sensitivity, under both adjacencies; the
    bound is reached where the proof says it is (2-value attributes, replace-one)."""
    pairs = _pairs(len(sizes))
    domain = np.array(list(itertools.product(*[range(s) for s in sizes])))
    rng = np.random.default_rng(0)
    for trial in range(8):
        m = int(rng.integers(2, 8))
        if trial == 0:                 # m - 1 records on y, one on x differing on every attribute
            X = np.vstack([np.ones((m - 1, len(sizes)), dtype=int), np.zeros((1, len(sizes)), dtype=int)])
        else:
            X = domain[rng.integers(0, len(domain), size=m)]
        rep, add = _worst(X, sizes)
        bound = mp.select_pairs_sensitivity(sizes, pairs, R1, m)
        assert rep <= bound + 1e-12
        assert add <= mp.select_pairs_sensitivity(sizes, pairs, AR) + 1e-12
        if trial == 0 and max(sizes) == 2:
            assert rep == pytest.approx(bound)        # exact for 2-value attributes
    # add/remove: m records on one cell plus a record differing on every attribute: every S from 0 to 2m/(m+1)
    m = 6
    X = np.zeros((m, len(sizes)), dtype=int)
    grown = _stat(np.vstack([X, np.ones((1, len(sizes)), dtype=int)]), sizes)
    assert np.linalg.norm(grown - _stat(X, sizes)) == pytest.approx(2.0 * m / (m + 1) * math.sqrt(len(pairs)))
    assert mp.select_pairs_sensitivity(sizes, pairs, R1) == pytest.approx(
        math.sqrt(sum(6.0 if min(sizes[a], sizes[b]) >= 3 else 4.0 for a, b in pairs)))


@pytest.mark.parametrize("sizes, w", [((3, 3), math.sqrt(6.0)), ((2, 3), 2.0), ((2, 2), 2.0)])
def test_table_change_bound_is_attained(sizes, w):
    """The proof's bound on the change of ``D = T - T_a T_b^T / m``, ``w (1 - 1/m)``, holds for every replacement
    of every small dataset and is attained (``m - 1`` records on a third value of each 3-value attribute)."""
    domain = np.array(list(itertools.product(*[range(s) for s in sizes])))
    m = 4
    worst = 0.0
    for X in itertools.combinations_with_replacement(range(len(domain)), m):
        X = domain[list(X)]
        D = _dmat(X, sizes)
        for i in range(m):
            for row in domain:
                Y = X.copy()
                Y[i] = row
                worst = max(worst, float(np.linalg.norm(_dmat(Y, sizes) - D)))
    assert worst == pytest.approx(w * (1.0 - 1.0 / m))


def _dependent(m=20000, seed=0):
    """Six attributes; attribute 1 a noisy copy of attribute 0 (strongly dependent), the others independent."""
    rng = np.random.default_rng(seed)
    sizes = [4, 4, 5, 3, 6, 12]
    cols = [rng.integers(0, s, size=m) for s in sizes]
    cols[1] = np.where(rng.random(m) < 0.8, cols[0], cols[1])
    return Dataset(np.stack(cols, 1), Domain.from_sizes(sizes))


@pytest.mark.parametrize("share, calibration", [(0.1, "analytic"), (0.3, "analytic"), (0.1, "classical")])
def test_composition_spends_exactly_the_budget(share, calibration):
    """The statistic's Gaussian and the measurement's compose to the release's Gaussian mechanism:
    (Delta_S / sigma_S)^2 + (Delta / sigma0)^2 = 1 / sigma_1^2; the accountant's charge is the one without it."""
    ds = _dependent()
    rel = mp.release(ds, 3, epsilon=0.5, delta=1e-9, rng=1, _select_pairs=(share, 1.0, 1.0), calibration=calibration)
    sel = rel.info["pair_selection"]
    assert sel is not None and sel["share"] == share
    sens = mp.select_pairs_sensitivity(ds.domain.sizes, sel["candidates"], R1, ds.m)
    mu2 = (sens / sel["sigma"]) ** 2 + (rel.spec.sensitivity / rel.info["sigma0"]) ** 2
    sig1 = gaussian_sigma(0.5, 1e-9, 1.0, calibration)
    assert mu2 == pytest.approx(1.0 / sig1 ** 2, rel=1e-10)
    a, b = PrivacyAccountant(2.0, 1e-6), PrivacyAccountant(2.0, 1e-6)
    mp.release(ds, 3, epsilon=0.5, delta=1e-9, rng=1, _select_pairs=(share, 1.0, 1.0), accountant=a,
               calibration=calibration)
    mp.release(ds, 3, epsilon=0.5, delta=1e-9, rng=1, accountant=b, calibration=calibration)
    assert a.rho == pytest.approx(b.rho, rel=1e-12)


def test_choice_public_parts_and_release():
    """The candidates are the closure's pairs over the rule's measured 1-way sets; the dependent pair is chosen, not
    every pair is, and the others are dropped with their supersets; the noise scales are those of the
    public rule at the share 1 - f with that choice; ``info`` holds no statistic; the tables are non-negative, sum to
    m, and beat the release without the step here."""
    ds = _dependent()
    rel = mp.release(ds, 3, epsilon=1.0, delta=1e-9, rng=3, selection="pairs")
    base = mp.release(ds, 3, epsilon=1.0, delta=1e-9, rng=3)
    sel = rel.info["pair_selection"]
    assert base.info["pair_selection"] is None
    assert sel["candidates"] == _pairs(6)
    assert (0, 1) in sel["selected"] and len(sel["selected"]) < len(sel["candidates"])
    assert set(sel) == {"candidates", "share", "kappa", "margin", "sigma", "selected"}
    dropped = [A for A in sel["candidates"] if A not in sel["selected"]]
    assert all(A in rel.info["unmeasured_sets"] for A in dropped)
    lay = ResidualLayout(ds.domain.sizes, all_k_way(ds.n, 3))
    args = {"epsilon": 1.0, "delta": 1e-9, "adjacency": R1, "calibration": "analytic", "share": 1 - mp.SELECT_PAIRS[0]}
    sig, _, _ = mp.noise_scales(lay, "auto", args, ds.m, mix=rel.info["auto_mix"], drop_sets=dropped,
                                skip=mp.SELECT_PAIRS_SKIP_SNR)
    got = rel.info["noise_scales"]
    assert all(got[A] == pytest.approx(float(sig[i]), rel=1e-12) for i, A in enumerate(lay.residual_sets) if A)
    for w in rel.workload:
        t = rel.table(w)
        assert t.min() >= -1e-9 and abs(t.sum() - ds.m) < 1e-6
    truth = {w: ds.marginal(w) for w in rel.workload}
    err = [np.mean([np.abs(r.table(w) - t).sum() for w, t in truth.items()]) for r in (rel, base)]
    assert err[0] < err[1]


def test_choose_is_a_prefix_and_monotone():
    """The choice keeps the candidates with the largest ``g`` (a prefix of the sorted order) and never fewer when
    every statistic grows; none when every statistic is below its margin."""
    ds = _dependent()
    lay = ResidualLayout(ds.domain.sizes, all_k_way(ds.n, 3))
    args = {"epsilon": 1.0, "delta": 1e-9, "adjacency": R1, "calibration": "analytic"}
    s = mp.allocation_shape(lay, "auto", m=ds.m, epsilon=1.0, mix=0.5)
    keep0 = mp.measured_sets(lay, s, args, ds.m, mp.AUTO_SKIP_SNR)
    plan = mp.select_pairs_plan(lay, s, args, keep0, ds.m, 0.1, 1.0, 1.0)
    c = len(plan["candidates"])
    noisy = np.linspace(2.0, 400.0, c)
    one = mp.select_pairs_choose(lay, s, args, plan, noisy)
    two = mp.select_pairs_choose(lay, s, args, plan, 3.0 * noisy)
    g = (noisy - plan["sigma"]) / np.array(plan["unit"])
    top = [plan["candidates"][i] for i in np.argsort(-g)[:len(one)]]
    assert sorted(top) == one and set(one) <= set(two) and len(two) > len(one) > 0
    assert mp.select_pairs_choose(lay, s, args, plan, np.zeros(c)) == []


def test_opt_in_binary_and_bad_input():
    """The default has no pair selection; binary data (no skip rule) get the release without it, table for table;
    a share outside [0, 1) and both selections at once are refused."""
    assert mp.SELECTIONS == ("none", "one-way", "pairs")
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(2000, 5))
    a = mp.release(X, 3, epsilon=1.0, delta=1e-9, rng=5, selection="pairs")
    b = mp.release(X, 3, epsilon=1.0, delta=1e-9, rng=5)
    assert a.info["pair_selection"] is None
    assert all(np.array_equal(a.table(w), b.table(w)) for w in a.workload)
    ds = _dependent(3000)
    with pytest.raises(InvalidParameterError, match="share"):
        mp.release(ds, 2, epsilon=0.3, delta=1e-9, rng=0, _select_pairs=(1.0, 1.0, 1.0))
    with pytest.raises(InvalidParameterError, match="exclusive"):
        mp.release(ds, 2, epsilon=0.3, delta=1e-9, rng=0, selection="pairs", _select=(0.05, 1.0, 0.0))


def test_opt_in_with_its_chosen_parameters_and_gate():
    """``selection="pairs"`` runs with ``SELECT_PAIRS`` (chosen on synthetic shapes: benchmarks/results_marginals/
    adult36/), the skip rule's thresholds ``SELECT_PAIRS_SKIP_SNR`` and the tree prior (session 39,
    benchmarks/results_marginals/lead39/); where the public rule at the whole budget measures no pair (low public
    SNR) nothing is spent and the release is the one without the step (same prior), table for table (a public fact
    decides, before any record is read)."""
    assert mp.SELECT_PAIRS == (0.05, 1.0, 0.0)
    assert mp.SELECT_PAIRS_FORCE is False and mp.SELECT_PAIRS_NEED_RULE_PAIR is True
    assert mp.SELECT_PAIRS_SKIP_SNR == (*mp.AUTO_SKIP_SNR[:2], 4 * mp.AUTO_SKIP_SNR[2])
    assert mp.SELECT_PAIRS_EXTRAPOLATION == "tree" and mp.DEFAULT_EXTRAPOLATION == "uniform"
    rel = mp.release(_dependent(), 3, epsilon=1.0, delta=1e-9, rng=3, selection="pairs")
    sel = rel.info["pair_selection"]
    assert (sel["share"], sel["kappa"], sel["margin"]) == mp.SELECT_PAIRS
    assert rel.info["extrapolation"] == "tree"
    assert rel.info["skip_threshold"] == mp.SELECT_PAIRS_SKIP_SNR
    assert mp.release(_dependent(), 3, epsilon=1.0, delta=1e-9, rng=3).info["extrapolation"] == "uniform"
    small = _dependent(1000)
    a = mp.release(small, 3, epsilon=0.3, delta=1e-9, rng=5, selection="pairs")
    b = mp.release(small, 3, epsilon=0.3, delta=1e-9, rng=5, options={"extrapolation": "tree"})
    assert not any(len(A) == 2 for A in b.layout.residual_sets if A not in b.info["unmeasured_sets"])
    assert a.info["pair_selection"] is None
    assert all(np.array_equal(a.table(w), b.table(w)) for w in a.workload)


def test_forced_choice_is_measured(monkeypatch):
    """Study knob ``SELECT_PAIRS_FORCE = True``: every chosen pair is measured (kept whatever its public set SNR);
    with the default ``False`` the public rule may still drop a chosen pair, never keep an unchosen one."""
    ds = _dependent()
    free = mp.release(ds, 3, epsilon=0.3, delta=1e-9, rng=2, _select_pairs=(0.05, 0.2, 0.0))
    sel = free.info["pair_selection"]
    measured = [A for A in free.layout.residual_sets if len(A) == 2 and A not in free.info["unmeasured_sets"]]
    assert set(measured) <= set(sel["selected"])
    monkeypatch.setattr(mp, "SELECT_PAIRS_FORCE", True)
    forced = mp.release(ds, 3, epsilon=0.3, delta=1e-9, rng=2, _select_pairs=(0.05, 0.2, 0.0))
    assert forced.info["pair_selection"]["selected"] == sel["selected"]      # same stream, same choice
    assert all(A not in forced.info["unmeasured_sets"] for A in sel["selected"])


def test_selection_mode_defaults_tree_prior_and_public_bar():
    """Session 39 (written by branch sel39): ``selection="pairs"`` with no extrapolation option is the release with
    ``extrapolation="tree"`` and the bar ``SELECT_PAIRS_SKIP_SNR``, table for table; an explicit ``"uniform"`` is
    honoured."""
    ds = _dependent(m=5000)
    kw = dict(epsilon=1.0, delta=1e-9, rng=3, selection="pairs", adjacency="add-remove", public_m=ds.m)
    a = mp.release(ds, 3, **kw)
    b = mp.release(ds, 3, options={"extrapolation": "tree"}, **kw)
    c = mp.release(ds, 3, options={"extrapolation": "tree"}, _skip=mp.SELECT_PAIRS_SKIP_SNR, **kw)
    for w in itertools.combinations(range(ds.n), 3):
        assert np.array_equal(a.table(w), b.table(w)) and np.array_equal(a.table(w), c.table(w))
    assert a.info["skip_threshold"] == b.info["skip_threshold"] == mp.SELECT_PAIRS_SKIP_SNR
    u = mp.release(ds, 3, options={"extrapolation": "uniform"}, **kw)
    assert u.info["extrapolation"] == "uniform" and a.info["extrapolation"] == "tree"


def test_selection_mode_bar_is_public():
    """Two datasets with the same public parameters (domain, m, epsilon, delta, adjacency) get the same skip
    threshold and the same public candidates before the selection (written by branch sel39)."""
    d1, d2 = _dependent(m=5000, seed=0), _dependent(m=5000, seed=7)
    kw = dict(epsilon=0.3, delta=1e-9, rng=0, selection="pairs", adjacency="add-remove", public_m=5000)
    r1, r2 = mp.release(d1, 3, **kw), mp.release(d2, 3, **kw)
    assert r1.info["skip_threshold"] == r2.info["skip_threshold"]
    assert r1.info["pair_selection"]["candidates"] == r2.info["pair_selection"]["candidates"]
