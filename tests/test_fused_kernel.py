"""The compiled LNN normal map and dual step (sosproj.data.fused_kernel) against the numpy references.

References: ``ResidualLayout.forward(inv_w * adjoint(y))`` (the composition, itself tested against the per-pattern
reference in ``tests/residuals_reference.py``), the numpy fused map (``normal_apply(compiled=False)``) and the numpy
FISTA steps of ``MarginalProjector.solve_dual(compiled=False)``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import sosproj as sp
import sosproj.data.residuals as residuals
from sosproj.data import fused_kernel as fk
from sosproj.data.residuals import ResidualLayout
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.sdp.marginal_admm import DUAL_MOMENTUM_A, MarginalProjector
from tests.marginal_admm_reference import negative_residuals

needs_numba = pytest.mark.skipif(not fk.HAVE_NUMBA, reason="numba is not installed")


def _random_layout(rng: np.random.Generator) -> ResidualLayout:
    """A fused layout of tables of 1-3 attributes (sizes 1-5, some attributes of size 1), all k-way or a random
    family's maximal sets."""
    while True:
        n = int(rng.integers(3, 7))
        sizes = [int(s) for s in rng.integers(1, 6, size=n)]
        k = int(rng.integers(1, 4))
        wl = list(itertools.combinations(range(n), k))
        if rng.random() < 0.5:
            wl = [w for w in wl if rng.random() < 0.6] or wl[:1]
        if rng.random() < 0.3 and k == 3:               # mixed orders: a 2-way table outside every 3-way one
            covered = {p for w in wl for p in itertools.combinations(w, 2)}
            extra = [p for p in itertools.combinations(range(n), 2) if p not in covered]
            wl += extra[:2]
        lay = ResidualLayout(sizes, wl)
        if lay.fused_normal:
            return lay


def _composition(lay, y, inv_w, alpha, beta, shift):
    t = beta * lay.forward(inv_w * lay.adjoint(y)) + alpha * y
    return t if shift is None else t + shift


@needs_numba
@pytest.mark.parametrize("seed", range(12))
def test_compiled_normal_map_equals_the_composition_and_the_numpy_map(seed):
    rng = np.random.default_rng(seed)
    lay = _random_layout(rng)
    assert lay.compiled_normal
    y = rng.standard_normal(lay.tab_size) * 10.0
    inv_w = lay.expand(rng.random(len(lay.residual_sets)) + 0.1)
    shift = rng.standard_normal(lay.tab_size)
    for alpha, beta, sh in [(0.0, 1.0, None), (1.0, -0.7, shift), (0.3, 2.0, shift), (1.0, -1.0, None)]:
        ref = _composition(lay, y, inv_w, alpha, beta, sh)
        fused_np = lay.normal_apply(y, inv_w, alpha=alpha, beta=beta, shift=sh, compiled=False)
        comp = lay.normal_apply(y, inv_w, alpha=alpha, beta=beta, shift=sh, compiled=True)
        scale = max(1.0, float(np.abs(ref).max()))
        assert np.abs(comp - ref).max() <= 1e-12 * scale
        assert np.abs(comp - fused_np).max() <= 1e-12 * scale
        out = np.full(lay.tab_size, np.nan)             # the out= buffer is written, every cell
        assert lay.normal_apply(y, inv_w, alpha=alpha, beta=beta, shift=sh, out=out, compiled=True) is out
        assert np.array_equal(out, comp)


@needs_numba
def test_compiled_map_sees_every_cell():
    """A unit vector at every cell of a small layout: the compiled map's columns are the composition's (the
    whole operator, not just a random direction)."""
    lay = ResidualLayout((2, 3, 1, 4), list(itertools.combinations(range(4), 3)))
    rng = np.random.default_rng(3)
    inv_w = lay.expand(rng.random(len(lay.residual_sets)) + 0.2)
    for i in range(lay.tab_size):
        e = np.zeros(lay.tab_size)
        e[i] = 1.0
        ref = _composition(lay, e, inv_w, 0.5, -1.5, None)
        assert np.abs(lay.normal_apply(e, inv_w, alpha=0.5, beta=-1.5, compiled=True) - ref).max() <= 1e-13


def _numpy_step(y, lam, lam_new, a_coef):
    """The numpy loop's steps after the map (MarginalProjector.solve_dual, compiled=False)."""
    lam_new = np.maximum(lam_new, 0.0)
    diff = lam_new - lam
    restart = float((y - lam_new) @ diff) > 0.0
    return lam_new, (lam_new.copy() if restart else diff * a_coef + lam_new), restart


@needs_numba
@pytest.mark.parametrize("seed", range(6))
def test_dual_step_equals_the_numpy_steps(seed):
    rng = np.random.default_rng(seed)
    lay = _random_layout(rng)
    inv_w = lay.expand(rng.random(len(lay.residual_sets)) + 0.1)
    inv_w[lay.empty_pos] = 0.0
    step = 0.37
    shift = rng.standard_normal(lay.tab_size)
    lam = np.maximum(rng.standard_normal(lay.tab_size), 0.0)
    restarts = set()
    for trial in range(8):
        y = rng.standard_normal(lay.tab_size) * (1.0 + trial)
        if trial % 2:
            y = lam + 1e-3 * y                      # near lam: both outcomes of the restart test occur
        a_coef = (trial + 1.0) / (trial + 2.0 + DUAL_MOMENTUM_A)
        mapped = lay.normal_apply(y, inv_w, alpha=1.0, beta=-step, shift=shift, compiled=False)
        ref_lam, ref_y, ref_restart = _numpy_step(y, lam, mapped, a_coef)
        yy, lam_new = y.copy(), np.empty(lay.tab_size)
        restart = lay.dual_step(yy, lam, lam_new, inv_w, step, shift, a_coef)
        restarts.add(restart)
        scale = max(1.0, float(np.abs(mapped).max()))
        assert restart == ref_restart
        assert np.abs(lam_new - ref_lam).max() <= 1e-12 * scale
        assert np.abs(yy - ref_y).max() <= 1e-12 * scale
        assert lam_new.min() >= 0.0


@needs_numba
@pytest.mark.parametrize("metric", ["table", "weighted"])
def test_solve_dual_compiled_equals_the_numpy_path(metric):
    """Same iterations, same answer (up to round-off) on the compiled and the numpy loop; the answer is
    non-negative, consistent and sums to m."""
    lay, r = negative_residuals(seed=7)
    w = mp.table_metric(lay)
    if metric == "weighted":
        w = w * np.array([1.0 + 2.0 * len(A) for A in lay.residual_sets])
    a, ia = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise", compiled=True)
    b, ib = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise", compiled=False)
    assert ia["compiled"] and not ib["compiled"]
    assert ia["converged"] and ib["converged"] and ia["iterations"] == ib["iterations"] > 10
    ta, tb = lay.forward(a), lay.forward(b)
    assert np.abs(ta - tb).max() <= 1e-8 * max(1.0, float(np.abs(tb).max()))
    assert ta.min() >= 0.0
    m = r[lay.empty_pos]
    for t in lay.tables(ta):
        assert abs(t.sum() - m) <= 1e-9 * max(1.0, abs(m))
    # consistency: every table's 1-way margins agree with the residuals' 1-way tables
    for i, w_ in enumerate(lay.workload):
        t = lay.tables(ta)[i]
        for p, attr in enumerate(w_):
            marg = t.sum(axis=tuple(q for q in range(t.ndim) if q != p))
            assert np.allclose(marg, lay.marginal(a, (attr,)), atol=1e-9 * max(1.0, abs(m)))


def test_fallbacks_and_refusals(monkeypatch):
    """Layouts the kernel does not cover (tables of 4 attributes, a non-fused layout) and a switched-off kernel
    use numpy; asking for the kernel there is refused; numba missing means the numpy path."""
    big = ResidualLayout((2, 2, 3, 2, 2), list(itertools.combinations(range(5), 4)))
    assert big.fused_normal and not big.compiled_normal
    y = np.random.default_rng(0).standard_normal(big.tab_size)
    inv_w = big.expand(np.ones(len(big.residual_sets)))
    with pytest.raises(InvalidParameterError):
        big.normal_apply(y, inv_w, compiled=True)
    assert np.allclose(big.normal_apply(y, inv_w), _composition(big, y, inv_w, 0.0, 1.0, None))
    nested = ResidualLayout((2, 3, 2), [(0, 1), (0, 1, 2)])      # (0, 1) is a table and a face of (0, 1, 2)
    assert not nested.fused_normal and not nested.compiled_normal
    lay, r = negative_residuals(seed=2)
    w = mp.table_metric(lay)
    monkeypatch.setattr(residuals, "COMPILED_NORMAL", False)
    assert not lay.compiled_normal
    _a, info = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise")
    assert not info["compiled"]
    monkeypatch.setattr(residuals, "COMPILED_NORMAL", True)
    monkeypatch.setattr(fk, "HAVE_NUMBA", False)
    fresh = ResidualLayout(lay.sizes, lay.workload)
    assert not fresh.compiled_normal
    _b, info = MarginalProjector(fresh, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise")
    assert not info["compiled"] and info["converged"]


@needs_numba
def test_switch_to_the_compiled_step_mid_run(monkeypatch):
    """compiled=None starts on numpy and switches at ``compiled_switch_iteration`` (sizes only): the same iterations
    and answer as either loop alone; a large layout runs compiled from the start, a small one switches late."""
    import sosproj.sdp.marginal_admm as ma

    lay, r = negative_residuals(seed=7)
    w = mp.table_metric(lay)
    sizes = sp.load_dataset("adult").domain.sizes                 # Adult's 455 3-way tables, 182 shapes
    big = ResidualLayout(sizes, list(itertools.combinations(range(len(sizes)), 3)))
    assert ma.compiled_switch_iteration(lay) > 100 and ma.compiled_switch_iteration(big) == 0
    monkeypatch.setattr(ma, "COMPILED_MIN_RUN", 1)
    monkeypatch.setattr(ma, "COMPILED_FIXED_COST_S", 0.4 * 6.5 / ma.compiled_switch_iteration(lay))
    assert ma.compiled_switch_iteration(lay) == 7
    a, ia = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise")
    b, ib = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise", compiled=False)
    assert ia["compiled"] and ia["compiled_from"] == 7 and not ib["compiled"]
    assert ia["iterations"] == ib["iterations"] > 7
    assert np.abs(lay.forward(a) - lay.forward(b)).max() <= 1e-8 * max(1.0, float(np.abs(lay.forward(b)).max()))


@needs_numba
@pytest.mark.parametrize("seed", range(4))
def test_normal_min_equals_the_min_of_the_scaled_map(seed):
    """The stopping trigger's compiled minimum (nothing written) against the numpy map, scaled."""
    rng = np.random.default_rng(seed)
    lay = _random_layout(rng)
    y = rng.standard_normal(lay.tab_size)
    inv_w = lay.expand(rng.random(len(lay.residual_sets)) + 0.1)
    shift = rng.standard_normal(lay.tab_size)
    scale = rng.random(lay.tab_size) + 0.5
    ref = float(np.min(scale * lay.normal_apply(y, inv_w, shift=shift, compiled=False)))
    got = lay.normal_min(y, inv_w, shift, scale)
    assert abs(got - ref) <= 1e-12 * max(1.0, abs(ref))


@needs_numba
@pytest.mark.parametrize("seed", range(6))
def test_normal_min_below_answers_the_same_question(seed):
    """``normal_min(below=b)``: when the minimum is below ``b`` the value returned is some cell's value, below ``b``
    and not below the minimum (the scan may stop early); otherwise it is the exact minimum. So ``value < b`` has
    the same truth value as ``min < b``, which is all the dual's trigger asks."""
    rng = np.random.default_rng(100 + seed)
    lay = _random_layout(rng)
    y = rng.standard_normal(lay.tab_size)
    inv_w = lay.expand(rng.random(len(lay.residual_sets)) + 0.1)
    shift = rng.standard_normal(lay.tab_size) + (2.0 if seed % 2 else 0.0)
    scale = rng.random(lay.tab_size) + 0.5
    cells = scale * lay.normal_apply(y, inv_w, shift=shift, compiled=False)
    ref = float(cells.min())
    for b in (ref - 1.0, ref - 1e-9, ref + 1e-9, float(np.quantile(cells, 0.5)), float(cells.max()) + 1.0):
        got = lay.normal_min(y, inv_w, shift, scale, below=b)
        if ref < b:
            assert got < b and got >= ref - 1e-12 * max(1.0, abs(ref))
            assert np.min(np.abs(cells - got)) <= 1e-12 * max(1.0, abs(got))     # a cell's value
        else:
            assert abs(got - ref) <= 1e-12 * max(1.0, abs(ref))
    # early stop observed: with every cell below b the first row of the first table answers (its minimum)
    tinfo = lay._kernel_plan()[0]
    j, n0, n1, n2, off = (int(v) for v in tinfo[0, :5])
    row = cells[off:off + (n2 if j == 3 else n1 if j == 2 else n0)]
    first = lay.normal_min(y, inv_w, shift, scale, below=float(cells.max()) + 1.0)
    assert abs(first - float(row.min())) <= 1e-12 * max(1.0, abs(first))
    assert lay.normal_min(y, inv_w, shift, scale, below=-np.inf) == lay.normal_min(y, inv_w, shift, scale)


@needs_numba
def test_release_on_the_compiled_path_equals_the_numpy_path(monkeypatch):
    """A default categorical release (Titanic, all 3-way, with skipped sets: both dual projections run) with the
    compiled step forced on and off: the same tables up to round-off, every table non-negative, summing to m and
    consistent with the 1-way tables."""
    calls = []
    orig = ResidualLayout.dual_step

    def counting(self, *a, **k):
        calls.append(1)
        return orig(self, *a, **k)

    monkeypatch.setattr(ResidualLayout, "dual_step", counting)
    ds = sp.load_dataset("titanic")
    kw = dict(epsilon=3.0, delta=1e-9, rng=0)
    on = sp.release_marginals(ds, 3, project_options={"compiled": True}, **kw)
    n_on = len(calls)
    off = sp.release_marginals(ds, 3, project_options={"compiled": False}, **kw)
    assert n_on > 0 and len(calls) == n_on                # the options reach both dual projections
    ri_on, ri_off = on.info["reconstruction_info"], off.info["reconstruction_info"]
    assert ri_on["converged"] and ri_off["converged"]
    assert ri_on["extrapolation_projection"]["iterations"] == ri_off["extrapolation_projection"]["iterations"] > 0
    m = ds.codes.shape[0] if hasattr(ds, "codes") else len(ds)
    n = len(ds.domain.sizes)
    for w in itertools.combinations(range(n), 3):
        a, b = on.table(w), off.table(w)
        assert np.abs(a - b).max() <= 1e-8 * m
        assert a.min() >= 0.0 and abs(a.sum() - m) <= 1e-8 * m
        for p, attr in enumerate(w):
            marg = a.sum(axis=tuple(q for q in range(3) if q != p))
            assert np.allclose(marg, on.table((attr,)), atol=1e-8 * m)


def test_a_broken_numba_falls_back_to_numpy(monkeypatch):
    """numba found but failing to import or compile: the dual runs on numpy (reported), the release does not fail."""
    def broken():
        raise ImportError("numba is broken here")

    monkeypatch.setattr(fk, "HAVE_NUMBA", True)
    monkeypatch.setattr(fk, "kernels", broken)
    lay, r = negative_residuals(seed=4)
    w = mp.table_metric(lay)
    _a, info = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise", compiled=True)
    assert info["converged"] and not info["compiled"] and not fk.HAVE_NUMBA


# ---------------------------------------------------------------- the threaded kernel (table ranges at once)


@needs_numba
@pytest.mark.parametrize("seed", range(8))
def test_threaded_dual_step_and_trigger_equal_the_serial_kernel_bit_for_bit(seed, monkeypatch):
    """``dual_step`` / ``normal_min`` with 2-4 threads (the tables split in ranges, run at once) against one thread:
    the same multiplier, momentum point, restart decision and trigger value, bit for bit (the phases compute every
    number by the serial kernel's expressions in its order), on random layouts of 1-3-way tables; both restart
    outcomes and both trigger outcomes (an early stop below ``below`` and a full scan) occur."""
    monkeypatch.setattr(residuals, "THREAD_MIN_CELLS", 0)         # small layouts: threaded all the same
    rng = np.random.default_rng(300 + seed)
    lay = _random_layout(rng)
    inv_w = lay.expand(rng.random(len(lay.residual_sets)) + 0.1)
    inv_w[lay.empty_pos] = 0.0
    shift = rng.standard_normal(lay.tab_size)
    lam = np.maximum(rng.standard_normal(lay.tab_size), 0.0)
    scale = rng.random(lay.tab_size) + 0.5
    restarts = set()
    for trial in range(6):
        y = rng.standard_normal(lay.tab_size) * (1.0 + trial)
        if trial % 2:
            y = lam + 1e-3 * y
        a_coef = (trial + 1.0) / (trial + 2.0 + DUAL_MOMENTUM_A)
        y1, l1 = y.copy(), np.empty(lay.tab_size)
        r1 = lay.dual_step(y1, lam, l1, inv_w, 0.37, shift, a_coef)
        restarts.add(r1)
        for threads in (2, 3, 4):
            yt, lt = y.copy(), np.empty(lay.tab_size)
            rt = lay.dual_step(yt, lam, lt, inv_w, 0.37, shift, a_coef, threads=threads)
            assert rt == r1
            assert np.array_equal(lt, l1) and np.array_equal(yt, y1)
        cells = scale * lay.normal_apply(y, inv_w, shift=shift, compiled=False)
        for below in (None, float(np.quantile(cells, 0.3)), float(cells.max()) + 1.0, float(cells.min()) - 1.0):
            q1 = lay.normal_min(y, inv_w, shift, scale, below=below)
            for threads in (2, 3):
                assert lay.normal_min(y, inv_w, shift, scale, below=below, threads=threads) == q1
    assert len(lay._kernel_plan()[0]) < 3 or restarts == {True, False}


@needs_numba
def test_thread_plan_splits_the_tables_in_ranges(monkeypatch):
    """The ranges cover every table once, in order, none empty; one thread (or more threads than tables, or a layout
    below THREAD_MIN_CELLS): no plan."""
    lay = ResidualLayout((3, 4, 2, 5, 3, 2), list(itertools.combinations(range(6), 3)))
    assert lay._thread_plan(2) is None                               # 1,400 cells: below the threshold
    monkeypatch.setattr(residuals, "THREAD_MIN_CELLS", 0)
    ntab = len(lay.workload)
    assert lay._thread_plan(1) is None and lay._thread_plan(ntab + 1) is None
    for threads in (2, 3, 5):
        _pool, bounds, part, poff = lay._thread_plan(threads)
        assert bounds[0] == 0 and bounds[-1] == ntab and np.all(np.diff(bounds) > 0)
        assert threads <= len(bounds) - 1 <= min(residuals.THREAD_RANGES * threads, ntab)
        tinfo = lay._kernel_plan()[0]
        assert part.size == int((tinfo[:, 1] * tinfo[:, 2]).sum()) and poff[0] == 0


@needs_numba
def test_solve_dual_with_two_threads_returns_the_one_thread_answer_bit_for_bit(monkeypatch):
    """``solve_dual`` under ``SOSPROJ_NUM_THREADS=2`` (the thread policy; ``info["threads"]``) against one thread:
    the same iterations, ``converged``, certificate and residuals, bit for bit."""
    from sosproj.threads import blas_threads

    monkeypatch.setattr(residuals, "THREAD_MIN_CELLS", 0)
    lay, r = negative_residuals(seed=7)
    w = mp.table_metric(lay)
    a, ia = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise", compiled=True)
    with blas_threads(2):
        b, ib = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise", compiled=True)
    assert ia["threads"] == 1 and ib["threads"] == min(2, __import__("os").cpu_count() or 1)
    assert ia["converged"] and ib["converged"] and ia["iterations"] == ib["iterations"]
    assert ia["duality_gap"] == ib["duality_gap"] and ia["theta"] == ib["theta"]
    assert np.array_equal(a, b)


@needs_numba
def test_info_threads_reports_the_threads_that_ran(monkeypatch):
    """``info["threads"]`` is what the kernel used: 1 on a layout below THREAD_MIN_CELLS even when more are asked
    for (``kernel_threads_used``), the asked number above it; and the extrapolation's diagnostics keep it."""
    from sosproj.threads import blas_threads

    lay, r = negative_residuals(seed=7)
    w = mp.table_metric(lay)
    assert lay.kernel_threads_used(2) == 1 and lay.kernel_threads_used(1) == 1   # 1,400 cells: below the threshold
    with blas_threads(2):
        _, info = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise", compiled=True)
    assert info["threads"] == 1
    monkeypatch.setattr(residuals, "THREAD_MIN_CELLS", 0)
    assert lay.kernel_threads_used(2) == 2                                       # (the cores cap: kernel_threads)
    assert lay.kernel_threads_used(len(lay.workload) + 1) == 1                  # more threads than tables
    assert "threads" in mp._STEP_KEYS                                  # kept in info["extrapolation_projection"]


def test_kernel_threads_follow_their_variable_else_the_blas_policy(monkeypatch):
    """``SOSPROJ_KERNEL_THREADS`` sets the compiled kernels' threads apart from the BLAS threads (capped at the
    cores; bad values refused); unset, the BLAS limit in force decides (the policy's 1 by default)."""
    import os

    from sosproj.threads import KERNEL_ENV_VAR, blas_threads, kernel_threads

    cores = os.cpu_count() or 1
    monkeypatch.delenv(KERNEL_ENV_VAR, raising=False)
    monkeypatch.delenv("SOSPROJ_NUM_THREADS", raising=False)
    assert kernel_threads() == 1
    with blas_threads(2):
        assert kernel_threads() == min(2, cores)
    monkeypatch.setenv(KERNEL_ENV_VAR, "2")
    with blas_threads(1):
        assert kernel_threads() == min(2, cores)
    monkeypatch.setenv(KERNEL_ENV_VAR, "all")
    assert kernel_threads() == cores
    monkeypatch.setenv(KERNEL_ENV_VAR, "0")
    with pytest.raises(InvalidParameterError):
        kernel_threads()
