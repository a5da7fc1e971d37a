"""The release's overhead cuts (session 33) are pure plumbing: the same numbers bit for bit.

* ``MarginalProjector.make_nonnegative(tables=)`` / ``solve_dual(tables=)``: the input's tables passed in instead of
  rebuilt (the extrapolation step builds them once for both);
* ``solve_dual``'s certificate from the KKT test's own ``g(lambda)`` (``certificate(dual_value=)``) against the
  certificate recomputed from the multiplier;
* the ADMM's diagonal ``d`` built on first use;
* a default categorical release against one with every cut undone (the references: the rebuilt tables and the
  recomputed certificate).
"""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.data.residuals import ResidualLayout
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.sdp.marginal_admm import MarginalProjector, OneHotMoment
from tests.marginal_admm_reference import negative_residuals


@pytest.mark.parametrize("compiled", [False, None])
def test_tables_passed_in_give_the_same_projection_bit_for_bit(compiled):
    lay, r = negative_residuals(3)
    w = mp.table_metric(lay)
    proj = MarginalProjector(lay, w, tol=1e-6, max_iter=20000, compiled=compiled)
    tabs = lay.forward(r)
    keep = tabs.copy()
    a, th_a = proj.make_nonnegative(r)
    b, th_b = proj.make_nonnegative(r, tables=tabs)
    assert th_a == th_b > 0 and np.array_equal(a, b)
    x, ix = proj.solve_dual(r, on_fail="raise")
    y, iy = proj.solve_dual(r, on_fail="raise", tables=tabs)
    assert np.array_equal(x, y) and np.array_equal(tabs, keep)          # read, never written
    for key in ("iterations", "converged", "theta", "objective", "dual_objective", "duality_gap", "complementarity"):
        assert ix[key] == iy[key], key
    with pytest.raises(InvalidParameterError):
        proj.solve_dual(r, tables=tabs[:-1])
    with pytest.raises(InvalidParameterError):
        proj.make_nonnegative(r, tables=tabs[:-1])


@pytest.mark.parametrize("metric", ["table", "weighted"])
def test_solve_dual_certificate_from_the_kkt_test_equals_the_recomputed_one(monkeypatch, metric):
    """Every certificate ``solve_dual`` asks for with the KKT test's ``g(lambda)`` is recomputed here from the
    multiplier (``dual_value=None``, the multiplier clipped as before): the same objective, dual value and gap."""
    lay, r = negative_residuals(11)
    w = mp.table_metric(lay)
    if metric == "weighted":
        w = w * np.array([1.0 + 2.0 * len(A) for A in lay.residual_sets])
    orig = MarginalProjector.certificate
    seen = []

    def checking(self, r_noisy, r_out, lam, *, lagrangian=None, dual_value=None):
        got = orig(self, r_noisy, r_out, lam, lagrangian=lagrangian, dual_value=dual_value)
        if dual_value is not None:
            seen.append(dual_value)
            ref = orig(self, r_noisy, r_out, np.maximum(lam, 0.0), lagrangian=lagrangian)
            assert got == ref
        return got

    monkeypatch.setattr(MarginalProjector, "certificate", checking)
    _x, info = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise")
    assert info["converged"] and seen                                   # the shortcut was taken, and checked


def test_certificate_recomputes_without_the_dual_value_and_clips_negative_multipliers():
    lay, r = negative_residuals(5)
    proj = MarginalProjector(lay, mp.table_metric(lay))
    r_ok, _ = proj.make_nonnegative(r)
    lam = np.random.default_rng(0).standard_normal(lay.tab_size)
    assert proj.certificate(r, r_ok, lam) == proj.certificate(r, r_ok, np.maximum(lam, 0.0))
    assert proj.certificate(r, r_ok, np.abs(lam)) == proj.certificate(r, r_ok, np.abs(lam).copy())


def test_the_admm_diagonal_is_built_on_first_use():
    lay, r = negative_residuals(2)
    w = mp.table_metric(lay)
    proj = MarginalProjector(lay, w)
    assert proj._d is None
    assert np.array_equal(proj.d, lay.normal_diag + np.zeros_like(lay.normal_diag))
    lay2 = ResidualLayout((2, 3, 2), [(0, 1), (0, 2), (1, 2)])
    psd = MarginalProjector(lay2, np.ones(len(lay2.residual_sets)), psd=True)
    assert np.array_equal(psd.d, lay2.normal_diag + OneHotMoment(lay2).normal_diag)
    a, ia = proj.solve(r, on_fail="return")
    assert ia["iterations"] >= 1 and proj._d is not None


def test_a_default_release_is_unchanged_with_every_shortcut_undone(monkeypatch):
    """A default categorical release with skipped sets (Titanic, all 3-way: both dual projections and the
    extrapolation's shared tables run) against the same release with the shortcuts undone (tables rebuilt, the
    certificate recomputed from the multiplier): the same residuals and certificates, bit for bit."""
    import sosproj as sp

    ds = sp.load_dataset("titanic")

    def run():
        rel = sp.release_marginals(ds, 3, epsilon=1.0, delta=1e-9, rng=4)
        return rel.residuals.copy(), rel.info["reconstruction_info"]

    a, ia = run()
    orig_cert, orig_dual, orig_nn = (MarginalProjector.certificate, MarginalProjector.solve_dual,
                                     MarginalProjector.make_nonnegative)
    used = []

    def cert(self, *args, lagrangian=None, dual_value=None):
        used.append(dual_value is not None)
        return orig_cert(self, *args, lagrangian=lagrangian)

    def dual(self, *args, tables=None, **kw):
        used.append(tables is not None)
        return orig_dual(self, *args, **kw)

    def nonneg(self, r, *, tables=None):
        return orig_nn(self, r)

    monkeypatch.setattr(MarginalProjector, "certificate", cert)
    monkeypatch.setattr(MarginalProjector, "solve_dual", dual)
    monkeypatch.setattr(MarginalProjector, "make_nonnegative", nonneg)
    b, ib = run()
    assert any(used)                                   # the shortcuts were on the path of the first release
    assert np.array_equal(a, b)
    ea, eb = ({k: v for k, v in i.get("extrapolation_projection", {}).items() if k != "time"} for i in (ia, ib))
    assert ea and ea == eb and ia["converged"] == ib["converged"]
    assert {k: v for k, v in ia.items() if not isinstance(v, dict) and k != "time"} == \
        {k: v for k, v in ib.items() if not isinstance(v, dict) and k != "time"}
