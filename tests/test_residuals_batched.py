"""The batched (mode-by-mode) residual transforms equal the per-pattern reference to ~1e-12 relative.

``tests/residuals_reference.py`` keeps the per-pattern loops of :class:`ResidualLayout` as of commit
9602d59; every operator of the batched layout is compared with it on random small domains (binary and
categorical attributes, all k-way workloads for k = 1..3 and mixed workloads), and the transforms are
exact with the noise off.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from residuals_reference import ReferenceLayout

import sosproj as sp
from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector, OneHotMoment
from sosproj.testing import noise_disabled

RTOL = 1e-12


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    return a.shape == b.shape and float(np.max(np.abs(a - b), initial=0.0)) <= RTOL * scale


def _cases() -> list[tuple[tuple[int, ...], list[tuple[int, ...]]]]:
    rng = np.random.default_rng(14)
    cases = []
    for binary in (True, False):
        for n in (1, 2, 3, 4, 5):
            sizes = (2,) * n if binary else tuple(int(s) for s in rng.integers(2, 6, size=n))
            for k in range(1, min(3, n) + 1):
                cases.append((sizes, all_k_way(n, k)))
            # a mixed workload: sets of several sizes, one repeated attribute pattern, any order
            sets = [s for j in range(1, min(3, n) + 1) for s in itertools.combinations(range(n), j)]
            pick = rng.choice(len(sets), size=min(4, len(sets)), replace=False)
            cases.append((sizes, [sets[i] for i in pick]))
    cases.append(((3, 2, 4, 2, 3), [(4, 0, 2), (1, 3), (0, 2), (2,), (1, 2, 3)]))   # unsorted, nested sets
    return cases


CASES = _cases()


@pytest.mark.parametrize(("sizes", "workload"), CASES)
def test_batched_operators_equal_reference(sizes, workload):
    new, ref = ResidualLayout(sizes, workload), ReferenceLayout(sizes, workload)
    assert new.residual_sets == ref.residual_sets and new.workload == ref.workload
    assert (new.res_size, new.tab_size, new.empty_pos) == (ref.res_size, ref.tab_size, ref.empty_pos)
    rng = np.random.default_rng(len(sizes) * 31 + len(workload))
    r = rng.standard_normal(new.res_size) * 10.0 ** rng.uniform(-3, 3, size=new.res_size)
    t = rng.standard_normal(new.tab_size) * 10.0 ** rng.uniform(-3, 3, size=new.tab_size)
    assert _close(new.forward(r), ref.forward(r))
    assert _close(new.adjoint(t), ref.adjoint(t))
    assert _close(new.adjoint(t, project=False), ref.adjoint(t, project=False))
    assert _close(new.center(r.copy()), ref.center(r.copy()))
    assert _close(new.normal_diag, ref.normal_diag)
    assert _close(new.normal_diag_sets, ref.normal_diag_sets)
    for A in new.residual_sets:
        assert _close(new.marginal(r, A), ref.marginal(r, A))
    # max_order: a vector that is zero on the larger sets is centred like the full centring does
    low = r.copy()
    for A in new.residual_sets:
        if len(A) > 1:
            new.residual(low, A)[...] = 0.0
    assert _close(new.center(low.copy(), max_order=1), ref.center(low.copy()))
    # and the larger sets are left untouched
    part = new.center(r.copy(), max_order=1)
    for A in new.residual_sets:
        if len(A) > 1:
            assert np.array_equal(new.residual(part, A), new.residual(r, A))


@pytest.mark.parametrize(("sizes", "workload"), CASES[::3])
def test_noise_off_transforms_are_exact(sizes, workload):
    """True tables -> residuals -> tables gives the tables back; the adjoint of the tables of consistent
    residuals gives ``d * c`` (``B^T B`` diagonal)."""
    rng = np.random.default_rng(3)
    ds = Dataset(np.stack([rng.integers(0, s, size=60) for s in sizes], 1), Domain.from_sizes(sizes))
    lay = ResidualLayout(sizes, workload)
    tabs = [ds.marginal(w) for w in lay.workload]
    r = lay.residuals_of_tables(tabs)
    assert _close(r, ReferenceLayout(sizes, workload).residuals_of_tables(tabs))
    for got, want in zip(lay.tables(lay.forward(r)), tabs, strict=True):
        assert _close(got, want)
    c = r.copy()
    c[lay.empty_pos] = 0.0
    assert _close(lay.adjoint(lay.forward(c)), lay.normal_diag * c)


def test_projection_equals_projection_on_reference_layout():
    """The LNN projection (the ADMM loop of the default reconstruction) on the batched layout and on the
    reference layout agree to ~1e-9 relative after the same iterations."""
    sizes, wl = (3, 2, 4, 2), all_k_way(4, 3)
    rng = np.random.default_rng(5)
    new, ref = ResidualLayout(sizes, wl), ReferenceLayout(sizes, wl)
    ds = Dataset(np.stack([rng.integers(0, s, size=80) for s in sizes], 1), Domain.from_sizes(sizes))
    r = new.residuals_of_tables([ds.marginal(w) for w in new.workload])
    noisy = r + new.center(rng.standard_normal(new.res_size) * 3.0)
    noisy[new.empty_pos] = ds.m
    w = np.full(len(new.residual_sets), 1.0 / 9.0)
    a, ia = MarginalProjector(new, w, tol=1e-6, max_iter=400).solve(noisy, on_fail="return")
    b, ib = MarginalProjector(ref, w, tol=1e-6, max_iter=400).solve(noisy, on_fail="return")
    assert ia["iterations"] == ib["iterations"]
    assert float(np.max(np.abs(a - b))) <= 1e-9 * float(np.max(np.abs(b)))
    assert new.forward(a).min() >= 0.0


def test_one_hot_moment_adjoint_with_partial_centring():
    """``OneHotMoment.adjoint`` centres only the 1- and 2-way residuals; it is still ``M^T`` on the
    residual subspace (<M r, Y> = <r, M^T Y>) and equals the fully centred adjoint."""
    lay = ResidualLayout((3, 2, 4), all_k_way(3, 3))
    mo = OneHotMoment(lay)
    rng = np.random.default_rng(7)
    r = lay.center(rng.standard_normal(lay.res_size))
    r[lay.empty_pos] = 0.0
    Y = rng.standard_normal((mo.order, mo.order))
    got = mo.adjoint(Y)
    assert np.isclose(np.sum(mo.forward(r) * Y), r @ got)
    assert _close(got, lay.center(got.copy()))


@pytest.mark.parametrize("sizes", [(2, 2, 2, 2), (3, 2, 4, 2)])
def test_noise_off_blue_release_is_exact(sizes, measure_every_set):
    rng = np.random.default_rng(11)
    ds = Dataset(np.stack([rng.integers(0, s, size=120) for s in sizes], 1), Domain.from_sizes(sizes))
    with noise_disabled():
        rel = sp.release_marginals(ds, 3, epsilon=1.0, delta=1e-6, reconstruction="blue", rng=0)
    for w in itertools.combinations(range(len(sizes)), 3):
        assert _close(rel.table(w), ds.marginal(w))


@pytest.mark.parametrize(("sizes", "workload"), CASES)
def test_fused_normal_map_equals_the_composition(sizes, workload):
    """``normal_apply`` (the LNN dual's fused ``alpha y + beta B W^-1 P B^T y + shift``) equals the composition
    of ``adjoint`` and ``forward`` on every case, fused (full blocks in no other table) or not (nested sets)."""
    lay = ResidualLayout(sizes, workload)
    rng = np.random.default_rng(len(workload) + sum(sizes))
    w = rng.uniform(0.5, 3.0, len(lay.residual_sets))
    w[lay.res_pos[()]] = 0.0
    inv_w = lay.expand(np.where(w > 0, 1.0 / np.where(w > 0, w, 1.0), 0.0))
    y, shift = rng.normal(size=lay.tab_size), rng.normal(size=lay.tab_size)
    for alpha, beta, sh in [(0.0, 1.0, None), (1.0, -0.7, shift), (0.3, 2.0, shift)]:
        ref = alpha * y + beta * lay.forward(inv_w * lay.adjoint(y)) + (0.0 if sh is None else sh)
        out = np.empty(lay.tab_size)
        got = lay.normal_apply(y, inv_w, alpha=alpha, beta=beta, shift=sh, out=out)
        assert got is out and _close(got, ref)
    # the table metric's step: coefficient alpha + beta / d_W = 0 on every full block (no pass over y there)
    d = lay.normal_diag_sets.copy()
    d[lay.res_pos[()]] = 0.0
    inv_d = lay.expand(np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 0.0))
    assert _close(lay.normal_apply(y, inv_d, alpha=1.0, beta=-1.0), y - lay.forward(inv_d * lay.adjoint(y)))


def test_fused_normal_flag():
    assert ResidualLayout((3, 4, 2), all_k_way(3, 2)).fused_normal
    assert not ResidualLayout((3, 4, 2), [(0, 1), (0,)]).fused_normal        # (0,)'s block lies in (0, 1) too
