"""The Chow-Liu tree prior for the extrapolation of skipped sets (issue 14, session 38;
:class:`~sosproj.mechanisms.extrapolation.TreePrior`, ``options["extrapolation"]``)."""

from __future__ import annotations

import inspect
import itertools
import math

import numpy as np
import pytest

from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import extrapolation as ex
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.testing import noise_disabled


def _margin(P, axes):
    return P.sum(axis=tuple(a for a in range(P.ndim) if a not in axes))


def _brute_tree(P1, pair_tables, edges, sizes):
    """The tree model's joint over every attribute, by enumeration."""
    Q = np.ones(sizes)
    n = len(sizes)
    for v in range(n):
        Q = Q * P1[v].reshape([sizes[v] if a == v else 1 for a in range(n)])
    for u, v in edges:
        T = pair_tables[(u, v)] / pair_tables[(u, v)].sum()
        ratio = T / np.outer(T.sum(1), T.sum(0))
        Q = Q * ratio.reshape([sizes[a] if a in (u, v) else 1 for a in range(n)])
    return Q


@pytest.mark.parametrize("seed,sizes", [(0, (2, 3, 4, 2)), (1, (3, 2, 4, 3, 2)), (2, (4, 4, 2, 3, 3))])
def test_tree_marginal_equals_brute_force(seed, sizes):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(math.prod(sizes), 0.3)).reshape(sizes) * 1000
    n = len(sizes)
    tables = {p: _margin(P, p) for p in itertools.combinations(range(n), 2)}
    prior = ex.TreePrior(sizes, tables)
    assert len(prior.edges) == n - 1                                   # a spanning tree of the complete graph
    P1 = [_margin(P, (v,)) / P.sum() for v in range(n)]
    Q = _brute_tree(P1, tables, prior.edges, sizes)
    assert np.isclose(Q.sum(), 1.0)
    for k in (1, 2, 3, 4):
        for W in itertools.combinations(range(n), k):
            assert np.allclose(prior.marginal(W), _margin(Q, W), atol=1e-12)
    W = (2, 0, 3)                                                      # any order of W
    assert np.allclose(prior.marginal(W), np.transpose(_margin(Q, (0, 2, 3)), (1, 0, 2)), atol=1e-12)
    for u, v in prior.edges:                                           # the edges' pair tables are kept exactly
        assert np.allclose(prior.marginal((u, v)), tables[(u, v)] / P.sum())


def test_chow_liu_is_the_maximum_mutual_information_tree():
    rng = np.random.default_rng(3)
    sizes = (2, 3, 2, 3)
    P = rng.dirichlet(np.full(math.prod(sizes), 0.4)).reshape(sizes)
    mi = {p: ex.mutual_information(_margin(P, p)) for p in itertools.combinations(range(4), 2)}
    best = max((t for t in itertools.combinations(mi, 3) if len(ex.chow_liu_forest(dict.fromkeys(t, 1.0), 4)) == 3),
               key=lambda t: sum(mi[e] for e in t))
    tables = {p: _margin(P, p) for p in mi}
    assert sorted(ex.TreePrior(sizes, tables).edges) == sorted(best)
    assert ex.mutual_information(np.outer([1.0, 3.0], [2.0, 5.0])) == pytest.approx(0.0, abs=1e-12)


def test_forest_components_multiply():
    rng = np.random.default_rng(4)
    sizes = (3, 2, 4, 3, 2)
    A = rng.random((3, 2)) * 10
    A *= 60 / A.sum()
    B = rng.random((4, 3)) * 10
    B *= 60 / B.sum()
    c = rng.random(2) * 10
    c *= 60 / c.sum()
    prior = ex.TreePrior(sizes, {(0, 1): A, (2, 3): B, (4,): c})
    assert sorted(prior.edges) == [(0, 1), (2, 3)]
    pa, pb, pc = A / 60, B / 60, c / 60
    assert np.allclose(prior.marginal((0, 2, 4)), np.einsum("i,j,k->ijk", pa.sum(1), pb.sum(1), pc))
    assert np.allclose(prior.marginal((0, 1, 3)), np.einsum("ij,k->ijk", pa, pb.sum(0)))
    assert np.allclose(prior.marginal((1, 2, 3, 4)), np.einsum("j,kl,m->jklm", pa.sum(0), pb, pc))
    # an attribute in no table: uniform
    prior = ex.TreePrior((3, 2, 4), {(0, 1): A})
    assert np.allclose(prior.marginal((0, 2)), np.outer(pa.sum(1), np.full(4, 0.25)))


def _tree_distribution(sizes, seed):
    """Expected counts (m = 1000) of a random chain 0 - 1 - 2 - 3 (a tree model, exactly)."""
    rng = np.random.default_rng(seed)
    n = len(sizes)
    P = rng.dirichlet(np.ones(sizes[0])).reshape([sizes[0]] + [1] * (n - 1))
    for v in range(1, n):
        C = rng.dirichlet(np.full(sizes[v], 0.3), size=sizes[v - 1])
        P = P * C.reshape([sizes[a] if a in (v - 1, v) else 1 for a in range(n)])
    return 1000 * P


@pytest.mark.parametrize("prior", ["tree", "tree-pairs"])
def test_noise_free_tree_data_extrapolates_exactly(prior):
    """The measured family = the 1-way tables + the chain's pairs, true (noise-free) tables of a tree-model
    distribution: the tree prior's extrapolation returns the TRUE 3-way marginals; the uniform start does not."""
    sizes = (3, 2, 4, 3)
    P = _tree_distribution(sizes, 5)
    lay = ResidualLayout(sizes, all_k_way(4, 3))
    r = lay.residuals_of_tables([_margin(P, w) for w in lay.workload])
    measured = [(), (0,), (1,), (2,), (3,), (0, 1), (1, 2), (2, 3)]
    tables = {A: _margin(P, A) for A in [(0, 1), (1, 2), (2, 3)]}
    out, info = ex.extrapolate_unmeasured(lay, r, measured, tables, prior=prior)
    assert info["tree_prior"]["edges"] == 3 and info["ipf_unmet"] < 1e-9
    for w in lay.workload:
        assert np.allclose(lay.marginal(out, w), _margin(P, w), atol=1e-6)
    for A in measured[1:]:
        assert np.allclose(lay.residual(out, A), lay.residual(r, A))   # measured sets untouched
    uni, _ = ex.extrapolate_unmeasured(lay, r, measured, tables, prior="uniform")
    assert max(np.abs(lay.marginal(uni, w) - _margin(P, w)).max() for w in lay.workload) > 1.0


def test_ipf_from_the_prior_meets_the_margins_and_is_the_i_projection():
    rng = np.random.default_rng(6)
    shape = (3, 4, 2)
    truth = rng.dirichlet(np.ones(24)).reshape(shape) * 500
    margins = {(0, 1): _margin(truth, (0, 1)), (1, 2): _margin(truth, (1, 2))}
    init = rng.dirichlet(np.ones(24)).reshape(shape) * 500
    T, gap = ex.ipf_fit(shape, margins, 500.0, init=init)
    assert gap < 1e-6
    for ax, t in margins.items():
        assert np.allclose(_margin(T, ax), t)
    # the I-projection: log(T / init) lies in the span of the margins' indicator functions, i.e.
    # T = init * f01(x0, x1) * f12(x1, x2); check by fitting the log-ratio in that span
    lr = np.log(T / init)
    X = []
    for ax in margins:
        for idx in itertools.product(*[range(shape[a]) for a in ax]):
            e = np.zeros(shape, dtype=bool)
            sl = [slice(None)] * 3
            for a, i in zip(ax, idx, strict=True):
                sl[a] = i
            e[tuple(sl)] = True
            X.append(e.ravel().astype(float))
    X = np.stack(X, 1)
    coef, *_ = np.linalg.lstsq(X, lr.ravel(), rcond=None)
    assert np.allclose(X @ coef, lr.ravel(), atol=1e-6)
    # a start with the margins already: unchanged
    T2, _ = ex.ipf_fit(shape, margins, 500.0, init=truth)
    assert np.allclose(T2, truth)
    with pytest.raises(ValueError):
        ex.ipf_fit(shape, margins, 500.0, init=-init)


def _data(sizes, m, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, size=m)
    cols = [np.where(z == 0, rng.integers(0, s, size=m), (z + rng.integers(0, 2, size=m)) % s) for s in sizes]
    return Dataset(np.stack(cols, 1), Domain.from_sizes(sizes))


@pytest.mark.parametrize("prior", ["tree", "tree-pairs"])
def test_release_with_the_tree_prior_consistent_nonnegative(prior):
    sizes = (3, 4, 2, 9, 5)
    ds = _data(sizes, 300, seed=1)
    rel = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=0, _skip=2.0, options={"extrapolation": prior})
    assert rel.info["unmeasured_sets"]
    assert rel.info["reconstruction_info"]["extrapolation_prior"] == prior
    tabs = {w: rel.table(w) for w in itertools.combinations(range(5), 3)}
    assert all(np.isclose(t.sum(), 300) for t in tabs.values())
    assert min(t.min() for t in tabs.values()) >= -1e-9
    for w, t in tabs.items():                                          # consistent: every pair margin agrees
        for drop in range(3):
            pair = tuple(x for i, x in enumerate(w) if i != drop)
            assert np.allclose(t.sum(axis=drop), rel.table(pair), atol=1e-6)
    base = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=0, _skip=2.0)
    assert base.info["reconstruction_info"]["extrapolation_prior"] == "uniform"   # the default is unchanged
    kept = [A for A in rel.layout.residual_sets if A and A not in rel.info["unmeasured_sets"]]
    for A in kept:                                                     # same measurement; the measured tables
        if len(A) == 1:                                                # agree up to the final projection
            assert np.allclose(rel.table(A), base.table(A), atol=0.5)
    with noise_disabled():
        rel = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=0, _skip=2.0, options={"extrapolation": prior})
    top = max(kept, key=len)
    assert np.allclose(rel.table(top), ds.marginal(top), atol=0.05)     # measured sets: exact without noise


def test_every_subset_measured_leaves_the_release_unchanged():
    sizes = (3, 4, 2, 3)
    ds = _data(sizes, 400, seed=2)
    a = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=3, _skip=0.0)
    b = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=3, _skip=0.0, options={"extrapolation": "tree"})
    assert not a.info["unmeasured_sets"]
    assert np.array_equal(a.residuals, b.residuals)
    lay = ResidualLayout(sizes, all_k_way(4, 2))
    r = lay.residuals_of_tables([ds.marginal(w) for w in lay.workload])
    out, info = ex.extrapolate_unmeasured(lay, r, [A for A in lay.residual_sets], {}, prior="tree")
    assert np.array_equal(out, r) and "tree_prior" not in info


def test_the_prior_reads_the_tables_only_and_bad_options_are_refused():
    assert list(inspect.signature(ex.TreePrior).parameters) == ["sizes", "tables"]
    rng = np.random.default_rng(7)
    tables = {(0, 1): rng.random((3, 2)), (1, 2): rng.random((2, 4)), (0, 2): rng.random((3, 4))}
    p1 = ex.TreePrior((3, 2, 4), tables)
    p2 = ex.TreePrior((3, 2, 4), {k: v.copy() for k, v in tables.items()})
    assert p1.edges == p2.edges and np.array_equal(p1.marginal((0, 1, 2)), p2.marginal((0, 1, 2)))
    ds = _data((3, 4, 2), 100)
    with pytest.raises(InvalidParameterError):
        mp.release(ds, 2, epsilon=1.0, delta=1e-6, rng=0, options={"extrapolation": "pgm"})
    lay = ResidualLayout((3, 4, 2), all_k_way(3, 2))
    with pytest.raises(ValueError):
        ex.extrapolate_unmeasured(lay, np.zeros(lay.res_size), [()], {}, prior="pgm")
