"""The exact marginal-polytope reconstruction (``reconstruction="joint"``, issue 14, session 36).

Checked against a generic QP (cvxpy, tight tolerance) on small cubes, by its optimality conditions (the
Frank-Wolfe gap), and as a release: noise off returns the truth, tables are non-negative, consistent and sum to m;
bad input is refused before any work.
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest

import sosproj as sp
from sosproj.data.contingency import SubsetIndex, walsh_hadamard
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.sdp.polytope_fista import polytope_fourier_least_squares
from sosproj.testing import noise_disabled


def _bits(index: SubsetIndex) -> np.ndarray:
    masks = index.members >= 0
    return np.where(masks, np.left_shift(1, np.maximum(index.members, 0)), 0).sum(1)


def _cvxpy_reference(a: np.ndarray, g: np.ndarray, index: SubsetIndex) -> tuple[np.ndarray, float]:
    cp = pytest.importorskip("cvxpy")
    n = index.n
    H = np.array([walsh_hadamard(np.eye(1 << n)[j]) for j in range(1 << n)]).T    # H[U, x]
    B = H[_bits(index)]
    p = cp.Variable(1 << n, nonneg=True)
    obj = cp.sum(cp.multiply(a, cp.square(B @ p - g)))
    prob = cp.Problem(cp.Minimize(obj), [cp.sum(p) == 1])
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return B @ p.value, float(prob.value)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("method", ["fista", "column-generation"])
def test_polytope_fourier_least_squares_matches_a_generic_qp(seed, method):
    rng = np.random.default_rng(seed)
    n, k = 5, 3
    index = SubsetIndex(n, k)
    # moments of a random distribution plus noise: outside the polytope in general
    p0 = rng.dirichlet(np.full(1 << n, 0.3))
    g = walsh_hadamard(p0)[_bits(index)] + rng.normal(0, 0.3, len(index))
    g[0] = 1.0
    a = rng.uniform(0.5, 3.0, len(index))
    a[0] = 0.0
    fit = polytope_fourier_least_squares(a, g, index, tol=1e-10, method=method, max_iter=50000)
    f_ref, val_ref = _cvxpy_reference(a, g, index)
    assert fit.converged
    assert fit.objective == pytest.approx(val_ref, rel=1e-6, abs=1e-9)
    np.testing.assert_allclose(fit.fourier, f_ref, atol=2e-4)
    # optimality conditions at the returned point: feasible, and the Frank-Wolfe gap (<grad, p> - min grad) small
    p = fit.distribution
    assert p.min() >= 0 and p.sum() == pytest.approx(1.0, abs=1e-12)
    a_full = np.zeros(1 << n)
    g_full = np.zeros(1 << n)
    a_full[_bits(index)], g_full[_bits(index)] = a, g
    grad = 2 * walsh_hadamard(a_full * (walsh_hadamard(p) - g_full))
    assert float(grad @ p - grad.min()) <= 1e-9 * max(1.0, fit.objective) + 1e-12


def test_polytope_fourier_least_squares_refuses_bad_input():
    index = SubsetIndex(3, 2)
    a, g = np.ones(len(index)), np.zeros(len(index))
    with pytest.raises(InvalidParameterError, match="method"):
        polytope_fourier_least_squares(a, g, index, method="simplex")
    with pytest.raises(InvalidParameterError, match="non-negative"):
        polytope_fourier_least_squares(-a, g, index)
    with pytest.raises(InvalidParameterError, match="finite"):
        polytope_fourier_least_squares(a, g + np.nan, index)
    with pytest.raises(InvalidParameterError, match="one entry per index position"):
        polytope_fourier_least_squares(a[:-1], g, index)


def _tables(X: np.ndarray, W: tuple[int, ...]) -> np.ndarray:
    idx = np.ravel_multi_index(tuple(X[:, i] for i in W), (2,) * len(W))
    return np.bincount(idx, minlength=2 ** len(W)).reshape((2,) * len(W)).astype(float)


def test_joint_release_with_noise_off_returns_the_true_marginals():
    X = sp.data.synthetic.planted_binary(300, 6, rng=3)
    with noise_disabled():
        rel = sp.release_marginals(X, 3, epsilon=1.0, delta=1e-6, reconstruction="joint", rng=0)
    for W in itertools.combinations(range(6), 3):
        np.testing.assert_allclose(rel.table(W), _tables(X, W), atol=1e-3)   # counts, m = 300: the solver tol


@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_joint_release_is_the_exact_projection_and_valid_tables(eps):
    X = sp.data.synthetic.planted_binary(400, 5, rng=7)
    rel = sp.release_marginals(X, 3, epsilon=eps, delta=1e-6, reconstruction="joint", rng=11)
    info = rel.info["reconstruction_info"]
    assert info["converged"] and info["solver"] == "polytope-column-generation"
    assert info["frank_wolfe_gap"] <= info["tol"] * max(1.0, info["objective"])
    # the same measurement, projected by a generic QP in the same (measurement) metric
    layout = ResidualLayout.checked([2] * 5, all_k_way(5, 3))
    spec_args = {"epsilon": eps, "delta": 1e-6, "adjacency": mp.Adjacency.REPLACE_ONE, "calibration": "analytic"}
    snr = mp.public_snr(400, eps, layout)
    mix = mp.auto_mix(snr, rule=mp.mix_rule(layout, "joint", snr))
    sig, spec, _ = mp.noise_scales(layout, "auto", spec_args, 400, mix=mix, reconstruction="joint")
    meas = mp.measure(sp.data.domain.as_dataset(X, None), layout, sig, spec, "auto", np.random.default_rng(11))
    index, pos, g, a, m = mp.binary_fourier_form(meas)
    f_ref, _ = _cvxpy_reference(a, g, index)
    r_ref = mp.residuals_from_fourier(layout, pos, f_ref, m)
    np.testing.assert_allclose(rel.residuals, r_ref, atol=1e-3 * m * 1e-2)
    tabs = {W: rel.table(W) for W in itertools.combinations(range(5), 3)}
    for T in tabs.values():
        assert T.min() >= 0 and T.sum() == pytest.approx(400, rel=1e-9)     # exactly: round-off mixed away
    # consistent on shared 2-way margins
    np.testing.assert_allclose(tabs[(0, 1, 2)].sum(axis=2), tabs[(0, 1, 3)].sum(axis=2), atol=1e-8)


def test_auto_takes_the_exact_polytope_up_to_its_public_size():
    X = sp.data.synthetic.planted_binary(500, 8, rng=1)
    rel = sp.release_marginals(X, 3, epsilon=1.0, delta=1e-6, rng=0)
    assert rel.info["reconstruction_info"]["binary_step"] == "joint"
    assert mp.JOINT_AUTO_MAX_N <= mp.JOINT_MAX_N
    # the measurement is the one fitted for the exact polytope (session 37): its rule, a function of the public SNR
    assert rel.info["auto_mix_rule"] == "joint"
    assert rel.info["auto_mix"] == mp.auto_mix(rel.info["public_snr"], rule="joint")
    rj = sp.release_marginals(X, 3, epsilon=1.0, delta=1e-6, reconstruction="joint", rng=0)
    assert rj.info["noise_scales"] == rel.info["noise_scales"]


def test_joint_mix_rule_is_the_committed_fit_and_the_documented_formula():
    """AUTO_MIX_JOINT is the best rule of benchmarks/mix37_fit.py on the synthetic study (committed output), and
    docs/bench_allocation.md states the same formula; the rule depends on the public SNR alone."""
    root = Path(__file__).resolve().parents[1]
    fit = (root / "benchmarks/results_marginals/mix37/fit_seed0.txt").read_text()
    line = re.search(r"best rules: .*\n(\(.*?\)) ", fit)
    assert line is not None
    assert tuple(float(v) for v in line.group(1).strip("()").split(",")) == mp.AUTO_MIX_JOINT
    tmax, c, p = mp.AUTO_MIX_JOINT
    doc = (root / "docs/bench_allocation.md").read_text()
    assert rf"t=\frac{{{tmax:g}}}{{1+(\mathrm{{snr}}/{c:g})^{{{p:g}}}}}" in doc
    for x in (0.0, 0.3, 7.0, 114.0, 1e4):
        assert math.isclose(mp.auto_mix(x, rule="joint"), tmax / (1 + (x / c) ** p), rel_tol=1e-12)
    # same public parameters, different records: identical noise scales
    a = sp.data.synthetic.planted_binary(300, 6, rng=2)
    b = sp.data.synthetic.sparse_binary(300, 6, 2, rng=3).toarray()
    ra = sp.release_marginals(a, 3, epsilon=0.5, delta=1e-6, rng=0)
    rb = sp.release_marginals(b, 3, epsilon=0.5, delta=1e-6, rng=1)
    assert ra.info["auto_mix_rule"] == rb.info["auto_mix_rule"] == "joint"
    assert ra.info["noise_scales"] == rb.info["noise_scales"]


def test_joint_refuses_what_it_cannot_do_before_any_work():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameterError, match="binary"):
        sp.release_marginals(rng.integers(0, 3, (50, 4)), 2, epsilon=1.0, delta=1e-6, domain=[3] * 4,
                             reconstruction="joint", rng=0)
    n = mp.JOINT_MAX_N + 1
    with pytest.raises(InvalidParameterError, match=f"2\\^{n}.*GiB"):
        sp.release_marginals(rng.integers(0, 2, (50, n)), 1, epsilon=1.0, delta=1e-6, reconstruction="joint",
                             rng=0)
