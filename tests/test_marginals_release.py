"""release_marginals baselines and MarginalRelease: exactness without noise, noise scale, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sosproj.data.moment_tensor import normalized_tensor_sensitivity, subset_counts
from sosproj.data.synthetic import planted_binary, sparse_binary
from sosproj.errors import (
    DataPolicyError,
    InputTypeError,
    InvalidInputError,
    InvalidParameterError,
)
from sosproj.mechanisms.marginals import MarginalRelease, release_marginals
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.testing import noise_disabled


def brute_table(D, attrs):
    D = np.asarray(D)
    out = np.zeros((2,) * len(attrs))
    for b in itertools.product([0, 1], repeat=len(attrs)):
        out[b] = np.sum(np.all(D[:, list(attrs)] == np.array(b), axis=1))
    return out


BASELINES = [("gaussian", {}), ("symmetrize", {}), ("flatten", {}), ("topk", {"sparsity": 3})]


# only the applicable combinations: flatten needs an even k, topk k <= sparsity = 3
@pytest.mark.parametrize("method,kw,k", [(m, kw, k) for m, kw in BASELINES for k in (1, 2, 3, 4)
                                         if not (m == "flatten" and k % 2) and not (m == "topk" and k > 3)])
def test_noise_off_answers_are_exact(method, kw, k):
    D = sparse_binary(60, 6, 3, rng=k).toarray() if "sparsity" in kw else planted_binary(60, 6, rng=k)
    with noise_disabled():
        rel = release_marginals(D, k, epsilon=1.0, delta=1e-6, method=method, rng=0, **kw)
    subs, counts = subset_counts(D, k)
    np.testing.assert_allclose(rel.m * rel.moments, counts, atol=1e-9)
    for S in [(0,), (1, 3), (0, 2, 5), (0, 1, 2, 3)]:
        if len(S) <= k:
            assert abs(rel.query(S) - np.all(D[:, list(S)] == 1, axis=1).sum()) < 1e-9
            np.testing.assert_allclose(rel.table(S), brute_table(D, S), atol=1e-9)
    if k <= 3:
        T = rel.tensor()
        ref = np.zeros((6,) * k)
        for row in D.astype(float):
            t = row
            for _ in range(k - 1):
                t = np.multiply.outer(t, row)
            ref += t
        np.testing.assert_allclose(T, ref, atol=1e-9)


def test_tables_are_consistent_for_any_release():
    D = planted_binary(300, 5, rng=2)
    rel = release_marginals(D, 3, epsilon=1.0, delta=1e-6, method="symmetrize", rng=3)
    t3 = rel.table([0, 2, 4])
    assert np.isclose(t3.sum(), rel.m)
    np.testing.assert_allclose(t3.sum(axis=2), rel.table([0, 2]), atol=1e-9)
    np.testing.assert_allclose(t3.sum(axis=0), rel.table([2, 4]), atol=1e-9)
    # attribute order of the table follows attrs
    np.testing.assert_allclose(rel.table([2, 0]), rel.table([0, 2]).T, atol=1e-12)


def test_same_noise_across_methods_and_seed_reproducibility():
    D = planted_binary(400, 5, rng=0)
    g = release_marginals(D, 1, epsilon=1.0, delta=1e-6, method="gaussian", rng=11)
    s = release_marginals(D, 1, epsilon=1.0, delta=1e-6, method="symmetrize", rng=11)
    np.testing.assert_allclose(np.clip(g.moments, 0, 1), s.moments)   # k = 1: pooling is the identity
    g2 = release_marginals(D, 1, epsilon=1.0, delta=1e-6, method="gaussian", rng=11)
    np.testing.assert_array_equal(g.moments, g2.moments)
    g3 = release_marginals(D, 1, epsilon=1.0, delta=1e-6, method="gaussian", rng=12)
    assert not np.array_equal(g.moments, g3.moments)


def test_noise_scale_matches_calibration():
    n, k, m = 20, 2, 1000
    D = planted_binary(m, n, rng=1)
    rel = release_marginals(D, k, epsilon=1.0, delta=1e-6, method="gaussian", rng=4)
    assert np.isclose(rel.sensitivity, 1 / m)
    assert np.isclose(rel.sigma, gaussian_sigma(1.0, 1e-6, 1 / m))
    _, c = subset_counts(D, k)
    err = (rel.moments - c / m) * n ** (-k / 2)          # normalized-tensor units
    assert abs(err[1:].std() / rel.sigma - 1) < 0.1
    relt = release_marginals(D, k, epsilon=1.0, delta=1e-6, method="gaussian", sparsity=n, rng=4)
    assert np.isclose(relt.sensitivity, normalized_tensor_sensitivity(n, k, m, n))


def test_symmetrize_reduces_error_and_is_clipped():
    D = planted_binary(200, 8, rng=5)
    _, c = subset_counts(D, 3)
    errs = {}
    for method in ("gaussian", "symmetrize"):
        e = []
        for seed in range(3):
            rel = release_marginals(D, 3, epsilon=0.5, delta=1e-6, method=method, rng=seed)
            e.append(np.mean((rel.m * rel.moments - c) ** 2))
        errs[method] = np.mean(e)
        if method == "symmetrize":
            assert rel.moments.min() >= 0 and rel.moments.max() <= 1
    assert errs["symmetrize"] < errs["gaussian"]


def test_topk_keeps_m_t_k_entries():
    D = sparse_binary(5, 30, 2, rng=0)
    rel = release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="topk", sparsity=2, rng=0)
    assert rel.info["kept_entries"] == 5 * 2**2


def test_accountant_is_charged_before_release():
    from sosproj.errors import PrivacyBudgetError
    from sosproj.privacy.accountant import PrivacyAccountant

    acc = PrivacyAccountant(1.0, 1e-6)
    D = planted_binary(50, 4, rng=0)
    release_marginals(D, 2, epsilon=0.9, delta=1e-7, method="gaussian", rng=0, accountant=acc)
    with pytest.raises(PrivacyBudgetError):
        release_marginals(D, 2, epsilon=0.9, delta=1e-7, method="gaussian", rng=0, accountant=acc)


SECRET = 0.123456789


@pytest.mark.parametrize("D,kw,err", [
    (np.array([[0, 2], [1, 0]]), {}, InvalidInputError),
    (np.array([[0.0, np.nan], [1.0, 0.0]]), {}, InvalidInputError),
    (np.array([[0.0, SECRET], [1.0, 0.0]]), {}, InvalidInputError),
    (np.zeros((0, 3)), {}, InvalidInputError),
    (np.ones((3, 3)), {"k": 0}, InvalidParameterError),
    (np.ones((3, 3)), {"k": 4}, InvalidParameterError),
    (np.ones((3, 3)), {"k": 2.0}, InputTypeError),
    (np.ones((3, 3)), {"sparsity": 2, "on_violation": "raise"}, DataPolicyError),
    (np.ones((3, 3)), {"method": "nope"}, InvalidParameterError),
    (np.ones((3, 3)), {"method": "flatten", "k": 1}, InvalidParameterError),
    (np.ones((3, 3)), {"method": "topk"}, InvalidParameterError),
    (np.ones((3, 3)), {"epsilon": 0.0}, InvalidParameterError),
    (np.ones((3, 3)), {"delta": 1.0}, InvalidParameterError),
    (np.ones((3, 3)), {"calibration": "bogus"}, InvalidParameterError),
    (np.ones((3, 3)), {"on_violation": "ignore", "sparsity": 2}, InvalidParameterError),
])
def test_bad_input_errors_reveal_no_data(D, kw, err):
    args = {"k": 1, "epsilon": 1.0, "delta": 1e-6, "method": "symmetrize", "rng": 0}
    args.update(kw)
    k = args.pop("k")
    with pytest.raises(err) as e:
        release_marginals(D, k, **args)
    msg = str(e.value)
    assert str(SECRET)[:6] not in msg and "[[" not in msg


def test_release_object_validation_and_queries():
    r = MarginalRelease.from_subset_moments([(0,), (1,), (1, 0)], [0.5, 0.25, 0.25], m=8, n=3, k=2,
                                            method="x", epsilon=1, delta=1e-6, sigma=1, sensitivity=1,
                                            calibration="analytic")
    assert r.subsets == ((), (0,), (1,), (0, 1)) and r.query([1, 0, 1]) == 2.0
    assert r.moments.flags.writeable is False
    with pytest.raises(InvalidParameterError):
        r.query([2])                       # not released
    with pytest.raises(InvalidParameterError):
        r.query([0, 1, 2])                 # more than k
    with pytest.raises(InvalidParameterError):
        r.query([5])                       # out of range
    with pytest.raises(InvalidParameterError):
        r.table([0, 0])
    with pytest.raises(InvalidParameterError):
        r.tensor()                         # partial workload
    with pytest.raises(InvalidInputError):
        MarginalRelease.from_subset_moments([(0,), (0,)], [1, 1], m=1, n=1, k=1, method="x", epsilon=1,
                                            delta=1e-6, sigma=1, sensitivity=1, calibration="analytic")
    with pytest.raises(InvalidInputError):
        MarginalRelease.from_subset_moments([(0,)], [np.nan], m=1, n=1, k=1, method="x", epsilon=1,
                                            delta=1e-6, sigma=1, sensitivity=1, calibration="analytic")
    assert r.privacy["adjacency"] == "replace-one"


def test_sparse_input_matches_dense_input():
    import scipy.sparse as sps

    D = sparse_binary(80, 12, 3, rng=4)
    a = release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="symmetrize", sparsity=3, rng=9)
    b = release_marginals(D.toarray(), 2, epsilon=1.0, delta=1e-6, method="symmetrize", sparsity=3, rng=9)
    np.testing.assert_array_equal(a.moments, b.moments)
    assert sps.issparse(D)


def test_truncation_policy_applies_before_measurement():
    D = np.array([[1, 1, 1, 0], [0, 1, 0, 1], [1, 0, 0, 0]] * 5)
    with noise_disabled():
        rel = release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="symmetrize", sparsity=2, rng=0)
    # independent reference: the public rule (keep the first t ones of each row) applied by hand
    Dt = D.copy()
    for row in Dt:
        ones = np.flatnonzero(row)
        row[ones[2:]] = 0
    assert Dt[0].tolist() == [1, 1, 0, 0]
    for S in [(0,), (1,), (2,), (3,), (0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]:
        assert rel.query(S) == pytest.approx(np.all(Dt[:, list(S)] == 1, axis=1).sum(), abs=1e-9)
        np.testing.assert_allclose(rel.table(S), brute_table(Dt, S), atol=1e-9)
    assert rel.info["on_violation"] == "truncate"
    assert np.isclose(rel.sensitivity, np.sqrt(2) / 15)
    with pytest.raises(DataPolicyError):
        release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="symmetrize", sparsity=2, rng=0,
                          on_violation="raise")


def test_tables_method_is_dispatched():
    D = planted_binary(60, 4, rng=0)
    with noise_disabled():
        rel = release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="tables", rng=0)
    _, c = subset_counts(D, 2)
    np.testing.assert_allclose(rel.m * rel.moments, c, atol=1e-2)
    assert rel.method == "tables"
    with pytest.raises(InvalidParameterError):
        release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="tables", sparsity=2, rng=0)


def test_auto_method_resolves_from_public_parameters_only():
    from sosproj.mechanisms.marginals import DEFAULT_METHOD, resolve_method

    assert DEFAULT_METHOD == "auto"
    assert resolve_method(None) == "tables" and resolve_method(3) == "cube"
    D = sparse_binary(40, 5, 2, rng=0)
    with noise_disabled():
        rel = release_marginals(D, 2, epsilon=1.0, delta=1e-6, sparsity=2, rng=0)
    assert rel.method == "cube"


def test_tables_dispatch_charges_accountant_and_checks_options():
    from sosproj.errors import PrivacyBudgetError
    from sosproj.privacy.accountant import PrivacyAccountant

    D = planted_binary(60, 4, rng=0)
    acc = PrivacyAccountant(1.0, 1e-6)
    release_marginals(D, 2, epsilon=0.9, delta=1e-7, method="tables", rng=0, accountant=acc)
    with pytest.raises(PrivacyBudgetError):
        release_marginals(D, 2, epsilon=0.9, delta=1e-7, method="tables", rng=0, accountant=acc)
    with pytest.raises(InvalidParameterError):
        release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="tables", rng=0,
                          project_options={"warm_start": True})
