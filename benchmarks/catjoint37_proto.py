"""Prototype (issue 14, session 37): the EXACT marginal polytope for categorical domains, by column generation.

Takes the DEFAULT release's noisy measurement (``sp.release_marginals(ds, 3, epsilon, delta=1e-9, rng=seed)``, the
measurement exactly as its reconstruction receives it: after the skip rule and the shrinkage of
``marginals_pipeline.release``) and solves the least squares the LNN projection solves, over distributions ``p`` on
the FULL product domain instead of locally non-negative tables:

    min_{p >= 0, sum p = m}  sum_{A measured, A != ()} w_A || P_A mu_A(p) - y_A ||^2

(``w_A = 1 / sigma_A^2``, ``P_A`` the centring along every axis of ``A``, ``y_A`` the noisy residual; skipped sets
have no term). Column generation: ``p`` is a sparse list of points with weights; the restricted master is a
non-negative least squares on the Cholesky factor of the support's Gram matrix
``K[j, k] = sum_A w_A prod_{i in A} ([x_ji = x_ki] - 1 / n_i)`` (a lookup table over the 2^n equality masks);
the oracle enumerates ALL points of the product domain (numba, mixed-radix odometer, largest attribute last) for the
linear functional ``sum_A G_A[x_A]``, ``G_A = 2 w_A r_A``, returning the ``CG_ADD`` smallest points; its minimum
gives the certified Frank-Wolfe gap ``<grad, p> - m min grad``.

Two ways to return the workload's tables:
- ``joint+maxent``: the joint's marginals on the measured family, then the default's extrapolation of the skipped
  sets (``_reconstruct_skipped`` steps 2-3: maximum entropy from the measured margins + LNN in the table metric);
- ``joint-raw``: every workload table as the marginal of the sparse ``p`` (skipped sets: whatever that optimum
  happens to give; the optimum is not unique there).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/catjoint37_proto.py --data titanic --eps 1 --seeds 0
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
from scipy.optimize import nnls

sys.path.insert(0, str(Path(__file__).resolve().parent))
from allocation_study import shape_data  # noqa: E402

import sosproj as sp  # noqa: E402
from sosproj.data.residuals import ResidualLayout  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

CG_ADD = 300
MAX_ROUNDS = 400
SUM_WEIGHT = 1e10


# ---------------------------------------------------------------------------------------------- the oracle


@numba.njit(cache=True)
def _level_sum(d, x, lvl_ptr, lvl_fac, fac_nattr, fac_attr, fac_stride, fac_off, vals):
    s = 0.0
    for t in range(lvl_ptr[d], lvl_ptr[d + 1]):
        f = lvl_fac[t]
        idx = fac_off[f]
        for u in range(fac_nattr[f]):
            idx += x[fac_attr[f, u]] * fac_stride[f, u]
        s += vals[idx]
    return s


@numba.njit(cache=True)
def _oracle(nsz, lvl_ptr, lvl_fac, fac_nattr, fac_attr, fac_stride, fac_off, vals, K):
    """The ``K`` smallest values of ``sum_f vals_f[x_f]`` over the product domain (kernel attribute order, C-order
    codes). Factors grouped by their last attribute (``lvl_ptr``/``lvl_fac``); the last attribute is vectorized."""
    n = nsz.size
    x = np.zeros(n, dtype=np.int64)
    rad = np.ones(n, dtype=np.int64)
    for i in range(n - 2, -1, -1):
        rad[i] = rad[i + 1] * nsz[i + 1]
    partial = np.zeros(n)
    for d in range(n - 1):
        partial[d] = (partial[d - 1] if d > 0 else 0.0) + _level_sum(d, x, lvl_ptr, lvl_fac, fac_nattr, fac_attr,
                                                                   fac_stride, fac_off, vals)
    B = 4 * K
    bufv = np.empty(B)
    bufc = np.empty(B, dtype=np.int64)
    nb = 0
    thr = np.inf
    last = n - 1
    nl = nsz[last]
    acc = np.empty(nl)
    while True:
        base = partial[n - 2] if n >= 2 else 0.0
        for v in range(nl):
            acc[v] = base
        for t in range(lvl_ptr[last], lvl_ptr[last + 1]):
            f = lvl_fac[t]
            idx0 = fac_off[f]
            for u in range(fac_nattr[f] - 1):
                idx0 += x[fac_attr[f, u]] * fac_stride[f, u]
            for v in range(nl):
                acc[v] += vals[idx0 + v]
        code0 = 0
        for i in range(n - 1):
            code0 += x[i] * rad[i]
        for v in range(nl):
            if acc[v] < thr:
                bufv[nb] = acc[v]
                bufc[nb] = code0 + v
                nb += 1
                if nb == B:
                    o = np.argsort(bufv)
                    bufv[:K] = bufv[o[:K]].copy()
                    bufc[:K] = bufc[o[:K]].copy()
                    nb = K
                    thr = bufv[K - 1]
        d = n - 2
        while d >= 0:
            x[d] += 1
            if x[d] < nsz[d]:
                break
            x[d] = 0
            d -= 1
        if d < 0:
            break
        for e in range(d, n - 1):
            partial[e] = (partial[e - 1] if e > 0 else 0.0) + _level_sum(e, x, lvl_ptr, lvl_fac, fac_nattr,
                                                                       fac_attr, fac_stride, fac_off, vals)
    o = np.argsort(bufv[:nb])[:K]
    return bufv[:nb][o].copy(), bufc[:nb][o].copy()


class Oracle:
    """Plan of the enumeration for a fixed list of attribute sets over ``sizes`` (largest attribute last)."""

    def __init__(self, sizes: tuple[int, ...], sets: list[tuple[int, ...]]) -> None:
        self.sizes = sizes
        n = len(sizes)
        self.perm = np.argsort(np.asarray(sizes), kind="stable")       # kernel position -> original attribute
        self.inv = np.empty(n, dtype=np.int64)
        self.inv[self.perm] = np.arange(n)
        self.ksizes = np.asarray(sizes, dtype=np.int64)[self.perm]
        self.sets = sets
        self.kattrs = [tuple(sorted(int(self.inv[a]) for a in A)) for A in sets]
        F = len(sets)
        self.fac_nattr = np.array([len(k) for k in self.kattrs], dtype=np.int64)
        self.fac_attr = np.zeros((F, 3), dtype=np.int64)
        self.fac_stride = np.zeros((F, 3), dtype=np.int64)
        self.fac_off = np.zeros(F, dtype=np.int64)
        off = 0
        for f, ka in enumerate(self.kattrs):
            shp = [int(self.ksizes[a]) for a in ka]
            st = [math.prod(shp[u + 1:]) for u in range(len(shp))]
            self.fac_attr[f, :len(ka)] = ka
            self.fac_stride[f, :len(ka)] = st
            self.fac_off[f] = off
            off += math.prod(shp)
        self.nvals = off
        lastattr = np.array([ka[-1] for ka in self.kattrs])
        order = np.argsort(lastattr, kind="stable")
        self.lvl_fac = order.astype(np.int64)
        self.lvl_ptr = np.searchsorted(lastattr[order], np.arange(n + 1)).astype(np.int64)
        # the transposition of each original-order table into kernel order
        self.axes = [np.argsort([int(self.inv[a]) for a in A]) for A in sets]

    def __call__(self, tables: list[np.ndarray], K: int) -> tuple[np.ndarray, np.ndarray]:
        vals = np.concatenate([np.ascontiguousarray(np.transpose(T, ax)).ravel()
                               for T, ax in zip(tables, self.axes, strict=True)])
        topv, topc = _oracle(self.ksizes, self.lvl_ptr, self.lvl_fac, self.fac_nattr, self.fac_attr,
                             self.fac_stride, self.fac_off, vals, K)
        ok = topc >= 0
        topv, topc = topv[ok], topc[ok]
        kc = np.stack(np.unravel_index(topc, tuple(self.ksizes)), axis=1)
        X = np.empty_like(kc)
        X[:, self.perm] = kc
        o = np.argsort(topv)
        return topv[o], X[o]


# ---------------------------------------------------------------------------------------------- the problem


def centre(T: np.ndarray) -> np.ndarray:
    T = np.array(T, dtype=float)
    for ax in range(T.ndim):
        T -= T.mean(axis=ax, keepdims=True)
    return T


class Problem:
    """``min_{q >= 0, sum q = m} sum_A w_A ||P_A mu_A(q) - y_A||^2`` over the measured non-empty sets."""

    def __init__(self, sizes, sets, w, y, m, ridge=None):
        self.sizes = tuple(int(s) for s in sizes)
        self.sets = sets
        self.w = np.asarray(w, dtype=float)
        self.y = [np.asarray(t, dtype=float) for t in y]
        self.m = float(m)
        self.c0 = float(sum(wa * np.sum(t * t) for wa, t in zip(self.w, self.y, strict=True)))
        n = len(self.sizes)
        masks = np.arange(2 ** n)
        T = np.zeros(2 ** n)
        for A, wa in zip(sets, self.w, strict=True):
            term = np.full(2 ** n, wa)
            for i in A:
                term *= ((masks >> i) & 1) - 1.0 / self.sizes[i]
            T += term
        self.Tmask = T
        self.oracle = Oracle(self.sizes, sets)

    def tables(self, X: np.ndarray, q: np.ndarray, A: tuple[int, ...]) -> np.ndarray:
        shp = tuple(self.sizes[a] for a in A)
        if not A:
            return np.array(q.sum())
        idx = np.ravel_multi_index(tuple(X[:, a] for a in A), shp)
        return np.bincount(idx, weights=q, minlength=math.prod(shp)).reshape(shp)

    def residual(self, X, q):
        return [centre(self.tables(X, q, A)) - yA for A, yA in zip(self.sets, self.y, strict=True)]

    def objective(self, X, q) -> float:
        r = self.residual(X, q)
        return float(sum(wa * np.sum(t * t) for wa, t in zip(self.w, r, strict=True)))

    def gram(self, X):
        M = np.zeros((X.shape[0], X.shape[0]), dtype=np.int64)
        for i in range(X.shape[1]):
            M |= (X[:, i, None] == X[None, :, i]).astype(np.int64) << i
        K = self.Tmask[M]
        b = np.zeros(X.shape[0])
        for A, wa, yA in zip(self.sets, self.w, self.y, strict=True):
            b += wa * yA[tuple(X[:, a] for a in A)]
        return K, b

    def master(self, X):
        """argmin over q >= 0, sum q = m of q^T K q - 2 b^T q (NNLS on the Cholesky factor, the sum as a penalty
        row; q rescaled to sum m)."""
        K, b = self.gram(X)
        S = K.shape[0]
        m = self.m
        Kp, bp = m * m * K, m * b                # p = q / m sums to 1
        dmax = float(np.max(np.diag(Kp)))
        L = np.linalg.cholesky(Kp + 1e-11 * dmax * np.eye(S))
        t = np.linalg.solve(L, bp)              # L t = bp  ->  R = L^T, R^T t = bp
        mu = math.sqrt(SUM_WEIGHT * dmax)
        A = np.vstack([np.full((1, S), mu), L.T])
        p, _ = nnls(A, np.concatenate([[mu], t]), maxiter=50 * S)
        p = np.maximum(p, 0)
        return m * p / p.sum()

    def _basis(self):
        """Per attribute an orthonormal basis Q_i (n_i x (n_i - 1)) of the centred vectors; per set the target
        t_A = sqrt(w_A) Q_A^T y_A (the residual's coordinates)."""
        if not hasattr(self, "_Q"):
            self._Q = []
            for n in self.sizes:
                H = np.eye(n) - 1.0 / n
                U, sv, _ = np.linalg.svd(H)
                self._Q.append(U[:, :n - 1])
            self._t = []
            for A, wa, yA in zip(self.sets, self.w, self.y, strict=True):
                T = yA
                for ax, a in enumerate(A):
                    T = np.moveaxis(np.tensordot(T, self._Q[a], axes=([ax], [0])), -1, ax)
                self._t.append(math.sqrt(wa) * T.ravel())
        return self._Q, self._t

    def features(self, X):
        """(D, S): sqrt(w_A) (Q_A^T e_{x_A}) stacked over the measured sets (D = sum prod (n_i - 1))."""
        Q, _ = self._basis()
        rows = []
        for A, wa in zip(self.sets, self.w, strict=True):
            F = np.ones((X.shape[0], 1))
            for a in A:
                F = (F[:, :, None] * Q[a][X[:, a]][:, None, :]).reshape(X.shape[0], -1)
            rows.append(math.sqrt(wa) * F.T)
        return np.vstack(rows)

    def master_features(self, X):
        """Lawson-Hanson NNLS on the explicit (D + 1) x S weighted features (the binary code's master)."""
        _, t = self._basis()
        Phi = self.features(X)
        m = self.m
        A = m * Phi                                   # p = q / m sums to 1
        mu = math.sqrt(SUM_WEIGHT * float(np.max(np.sum(A * A, axis=0))))
        A = np.vstack([np.full((1, X.shape[0]), mu), A])
        p, _ = nnls(A, np.concatenate([[mu], np.concatenate(t)]), maxiter=50 * X.shape[0])
        p = np.maximum(p, 0)
        return m * p / p.sum()

    def master_fista(self, X, q0, iters=400, rtol=1e-4):
        """The same restricted problem by FISTA with gradient restart on {q >= 0, sum q = m}, warm-started at q0
        (stops at a restricted Frank-Wolfe gap <= rtol * objective or after ``iters`` steps)."""
        from sosproj.sdp.simplex import project_simplex

        K, b = self.gram(X)
        m = self.m
        v = np.random.default_rng(0).standard_normal(K.shape[0])
        for _ in range(30):
            v = K @ v
            v /= np.linalg.norm(v)
        L = 2.0 * float(v @ K @ v) * 1.05 + 1e-300
        q = q0.copy()
        z, t = q.copy(), 1.0
        for it in range(iters):
            gz = 2.0 * (K @ z - b)
            qn = project_simplex(z - gz / L, m)
            tn = 0.5 * (1 + math.sqrt(1 + 4 * t * t))
            if float(gz @ (qn - q)) > 0:
                tn, z = 1.0, qn.copy()
            else:
                z = qn + ((t - 1) / tn) * (qn - q)
            q, t = qn, tn
            if it % 20 == 19:
                g = 2.0 * (K @ q - b)
                obj = float(q @ K @ q - 2 * b @ q + self.c0)
                if float(g @ q) - m * float(g.min()) <= rtol * max(obj, 1.0):
                    break
        return q

    def gradient_tables(self, X, q):
        r = self.residual(X, q)
        return [2.0 * wa * t for wa, t in zip(self.w, r, strict=True)], float(
            sum(wa * np.sum(t * t) for wa, t in zip(self.w, r, strict=True)))

    def solve(self, tol=1e-3, max_rounds=100, verbose=False, master="nnls", time_limit=np.inf):
        t0 = time.process_time()
        # start: q = 0 (objective c0); the oracle's best points for the gradient at 0 form the first support
        X = np.zeros((0, len(self.sizes)), dtype=np.int64)
        q = np.zeros(0)
        G = [-2.0 * wa * yA for wa, yA in zip(self.w, self.y, strict=True)]
        obj = self.c0
        hist = []
        t_oracle = t_master = 0.0
        gap = np.inf
        converged = False
        rounds = 0
        for rounds in range(1, max_rounds + 1):  # noqa: B007
            ta = time.process_time()
            topv, Xn = self.oracle(G, CG_ADD)
            t_oracle += time.process_time() - ta
            if q.size:
                lin = float(sum(float(np.sum(gA[tuple(X[:, a] for a in A)] * q))
                                for A, gA in zip(self.sets, G, strict=True)))
                gap = lin - self.m * float(topv[0])
                hist.append((rounds - 1, obj, gap, int(X.shape[0])))
                if verbose:
                    print(f"  round {rounds - 1}: obj {obj:.6g} gap {gap:.3g} support {X.shape[0]} "
                          f"oracle {t_oracle:.0f}s master {t_master:.0f}s", flush=True)
                if gap <= tol * max(1.0, obj):
                    converged = True
                    break
            Xs = np.unique(np.vstack([X, Xn]), axis=0)
            tb = time.process_time()
            if master == "features":
                qs = self.master_features(Xs)
            elif master == "nnls" or not q.size:
                qs = self.master(Xs)
            else:
                q0 = np.zeros(Xs.shape[0])
                pos = {tuple(x): j for j, x in enumerate(Xs)}
                for x, qq in zip(X, q, strict=True):
                    q0[pos[tuple(x)]] = qq
                qs = self.master_fista(Xs, q0, rtol=0.1 * tol)
            t_master += time.process_time() - tb
            keep = qs > 0
            Xs, qs = Xs[keep], qs[keep]
            G_new, obj_new = self.gradient_tables(Xs, qs)
            if q.size and obj_new >= obj:
                hist.append((rounds, obj_new, None, int(Xs.shape[0])))
                break
            X, q, G, obj = Xs, qs, G_new, obj_new
            if time.process_time() - t0 > time_limit:
                topv, _ = self.oracle(G, 1)
                lin = float(sum(float(np.sum(gA[tuple(X[:, a] for a in A)] * q))
                                for A, gA in zip(self.sets, G, strict=True)))
                gap = lin - self.m * float(topv[0])
                hist.append((rounds, obj, gap, int(X.shape[0])))
                break
        return {"X": X, "q": q, "objective": obj, "gap": gap, "rel_gap": gap / max(1.0, obj), "converged": converged,
                "rounds": rounds, "support": int(X.shape[0]), "cpu_s": time.process_time() - t0,
                "oracle_s": t_oracle, "master_s": t_master, "history": hist}


# -------------------------------------------------------------------------------- the default's measurement


def default_release(ds, eps: float, seed: int):
    """The default release and the measurement its reconstruction received (after skipping and shrinkage)."""
    cap: dict[str, Any] = {}
    orig_skip = mp._reconstruct_skipped
    orig_auto = mp.RECONSTRUCTIONS["auto"]

    def skip(meas, reconstruction, options):
        cap.setdefault("meas", meas)
        cap.setdefault("opts", dict(options))
        return orig_skip(meas, reconstruction, options)

    def auto(meas, options):
        cap.setdefault("meas", meas)
        cap.setdefault("opts", dict(options))
        return orig_auto(meas, options)

    mp._reconstruct_skipped = skip
    mp.RECONSTRUCTIONS["auto"] = auto
    try:
        t = time.process_time()
        rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
        cpu = time.process_time() - t
    finally:
        mp._reconstruct_skipped = orig_skip
        mp.RECONSTRUCTIONS["auto"] = orig_auto
    return rel, cap["meas"], cap["opts"], cpu


def joint_problem(meas) -> tuple[Problem, list[tuple[int, ...]]]:
    lay = meas.layout
    w = meas.weights
    sets, ws, ys = [], [], []
    for i, A in enumerate(lay.residual_sets):
        if A and np.isfinite(meas.sigmas[i]) and w[i] > 0:
            sets.append(A)
            ws.append(w[i])
            ys.append(np.array(lay.residual(meas.residuals, A)))
    m = float(meas.residuals[lay.empty_pos])
    return Problem(lay.sizes, sets, ws, ys, m), sets


def residuals_of_p(layout: ResidualLayout, prob: Problem, X, q) -> np.ndarray:
    tabs = [prob.tables(X, q, W) for W in layout.workload]
    return layout.residuals_of_tables(tabs)


def l1(layout: ResidualLayout, r: np.ndarray, truth: dict, m: int, sets=None) -> float:
    sets = list(truth) if sets is None else sets
    return float(np.mean([np.abs(layout.marginal(r, W) - truth[W]).sum() for W in sets]) / m)


def run(name: str, ds, eps: float, seed: int, tol: float, verbose: bool, master: str = "nnls",
        time_limit: float = np.inf) -> dict:
    rel, meas, opts, cpu_def = default_release(ds, eps, seed)
    lay = meas.layout
    truth = {W: ds.marginal(W) for W in lay.workload}
    m = ds.m
    prob, sets = joint_problem(meas)
    measured = [W for W in lay.workload if all(np.isfinite(meas.sigmas[lay.res_pos[B]])
                                               for j in range(len(W) + 1) for B in itertools.combinations(W, j))]
    skipped = [W for W in lay.workload if W not in measured]
    dims = sum(math.prod(s - 1 for s in (lay.sizes[a] for a in A)) for A in sets)
    fit = prob.solve(tol=tol, verbose=verbose, master=master, time_limit=time_limit, max_rounds=MAX_ROUNDS)
    X, q = fit["X"], fit["q"]
    # joint-raw: every workload table from p
    r_raw = residuals_of_p(lay, prob, X, q)
    # joint+maxent: p's marginals on the measured family, the default's extrapolation of the rest
    t = time.process_time()
    if np.isfinite(meas.sigmas).all():
        r_me = r_raw
    else:
        def jcat(sub_meas, options):
            return residuals_of_p(sub_meas.layout, prob, X, q), {"converged": True}
        mp.RECONSTRUCTIONS["jcat"] = jcat
        try:
            r_me, _ = mp._reconstruct_skipped(meas, "jcat", opts)
        finally:
            del mp.RECONSTRUCTIONS["jcat"]
    cpu_ext = time.process_time() - t
    r_def = rel.residuals
    # the default's objective on the measured sets (same objective as the joint's; LNN is a relaxation)
    out = {"data": name, "eps": eps, "seed": seed, "m": m,
           "n_measured_sets": len(sets), "measured_dims": dims, "n_tables_measured": len(measured),
           "n_tables_skipped": len(skipped),
           "l1_default": l1(lay, r_def, truth, m), "l1_joint_maxent": l1(lay, r_me, truth, m),
           "l1_joint_raw": l1(lay, r_raw, truth, m),
           "l1_default_measured": l1(lay, r_def, truth, m, measured) if measured else None,
           "l1_joint_measured": l1(lay, r_me, truth, m, measured) if measured else None,
           "l1_default_skipped": l1(lay, r_def, truth, m, skipped) if skipped else None,
           "l1_joint_maxent_skipped": l1(lay, r_me, truth, m, skipped) if skipped else None,
           "l1_joint_raw_skipped": l1(lay, r_raw, truth, m, skipped) if skipped else None,
           "cpu_default_s": cpu_def, "cpu_joint_s": fit["cpu_s"], "cpu_extrap_s": cpu_ext,
           "oracle_s": fit["oracle_s"], "master_s": fit["master_s"],
           "objective": fit["objective"], "gap": fit["gap"], "rel_gap": fit["rel_gap"],
           "converged": fit["converged"], "rounds": fit["rounds"], "support": fit["support"],
           "product_domain": math.prod(lay.sizes)}
    out["ratio_maxent"] = out["l1_joint_maxent"] / out["l1_default"]
    out["ratio_raw"] = out["l1_joint_raw"] / out["l1_default"]
    return out


def dataset(name: str):
    if name in ("titanic", "adult", "nltcs"):
        return sp.load_dataset(name)
    return shape_data(name)


def main() -> None:
    global CG_ADD
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", nargs="+", required=True)
    ap.add_argument("--eps", nargs="+", type=float, required=True)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--master", default="nnls", choices=("nnls", "fista", "features"))
    ap.add_argument("--time-limit", type=float, default=np.inf)
    ap.add_argument("--add", type=int, default=CG_ADD)
    args = ap.parse_args()
    CG_ADD = args.add
    for name in args.data:
        ds = dataset(name)
        for eps in args.eps:
            for seed in args.seeds:
                print(json.dumps(run(name, ds, eps, seed, args.tol, args.verbose, args.master,
                                     args.time_limit)), flush=True)


if __name__ == "__main__":
    main()
