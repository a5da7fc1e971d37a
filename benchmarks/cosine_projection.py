"""Benchmark: exact projection onto {X PSD, X_ii <= 1}.

For each n, builds a noisy Gram matrix of rank-20 vectors and times, in one run:
one ``numpy.linalg.eigh`` of the same matrix (the unit), the Newton projection,
Dykstra to the same certified accuracy (both stop at relative KKT residual ``--tol``,
1e-9; Dykstra is stopped at a time budget, then the ratio is a lower bound), and
cvxpy+SCS (eps 1e-8, n <= 500; "scs dist" = relative Frobenius distance to Newton's point).

Two input families:

* ``half``: row norms^2 uniform in [0.25, 1], noise sigma = 1.5 / sqrt(2n) (symmetric
  part of an i.i.d. draw): about half of the diagonal bounds are active;
* ``mech``: unit vectors with the mechanism's own noise (epsilon=1, delta=1e-6,
  sensitivity=1, analytic calibration): every bound is active.

Usage::

    python benchmarks/cosine_projection.py --sizes 250 500 1000 2000
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

from sosproj.privacy.calibration import gaussian_sigma
from sosproj.sets.newton_bounded_diagonal import bounded_diagonal_dykstra, bounded_diagonal_newton


def make_input(n: int, family: str, rng: np.random.Generator) -> np.ndarray:
    V = rng.standard_normal((n, 20))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    if family == "half":
        V *= np.sqrt(rng.uniform(0.25, 1.0, n))[:, None]
        sigma = 1.5 / np.sqrt(2 * n)
    else:
        sigma = gaussian_sigma(1.0, 1e-6, 1.0)
    W = rng.standard_normal((n, n)) * sigma
    return V @ V.T + (W + W.T) / 2


def timed(fn, repeats: int) -> tuple[float, object]:
    ts, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def scs_time(Y: np.ndarray, eps: float, limit: float) -> tuple[float, str, np.ndarray | None]:
    import cvxpy as cp

    n = Y.shape[0]
    X = cp.Variable((n, n), symmetric=True)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(X - Y)), [X >> 0, cp.diag(X) <= 1.0])
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prob.solve(solver="SCS", eps_abs=eps, eps_rel=eps, max_iters=1_000_000, time_limit_secs=limit)
    return time.perf_counter() - t0, prob.status, None if X.value is None else np.asarray(X.value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    ap.add_argument("--families", nargs="+", default=["half", "mech"])
    ap.add_argument("--repeats", type=int, default=3, help="timing repeats (median) for eigh and Newton")
    ap.add_argument("--dykstra-budget", type=float, default=40.0, help="seconds per Dykstra run")
    ap.add_argument("--dykstra-max-n", type=int, default=1000)
    ap.add_argument("--tol", type=float, default=1e-9,
                    help="relative KKT residual both Newton and Dykstra stop at (same certificate)")
    ap.add_argument("--cvxpy-max-n", type=int, default=500)
    ap.add_argument("--scs-limit", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    hdr = (f"{'family':6s} {'n':>5s} {'active':>7s} {'eigh s':>8s} {'newton s':>9s} {'xeigh':>6s} {'#eigh':>5s} "
           f"{'#cg':>4s} {'relKKT':>8s} {'dykstra s':>10s} {'#it':>6s} {'dyk KKT':>8s} {'dyk/newton':>10s} "
           f"{'scs s':>8s} {'scs/newton':>10s} {'scs dist':>8s}")
    print(hdr)
    for n in args.sizes:
        for fam in args.families:
            Y = make_input(n, fam, rng)
            t_eigh, _ = timed(lambda Y=Y: np.linalg.eigh(Y), args.repeats)
            t_newt, (X, info) = timed(lambda Y=Y: bounded_diagonal_newton(Y, tol=args.tol), args.repeats)
            e = info.extra
            row = (f"{fam:6s} {n:5d} {e['active_bounds'] / n:7.2f} {t_eigh:8.3f} {t_newt:9.3f} "
                   f"{t_newt / t_eigh:6.1f} {e['eigendecompositions']:5d} {e['cg_iterations']:4d} "
                   f"{info.residual:8.1e}")
            if n <= args.dykstra_max_n:
                t0 = time.perf_counter()
                _, dinfo = bounded_diagonal_dykstra(Y, tol=args.tol, max_iter=10**7, on_fail="return",
                                                    max_time=args.dykstra_budget)
                t_dyk = time.perf_counter() - t0
                mark = "" if dinfo.converged else ">="
                row += (f" {t_dyk:10.2f} {dinfo.iterations:6d} {dinfo.residual:8.1e}"
                        f" {mark + format(t_dyk / t_newt, '.1f'):>10s}")
            else:
                row += f" {'skipped':>10s} {'':>6s} {'':>8s} {'':>10s}"
            if n <= args.cvxpy_max_n and fam == "half":
                t_scs, status, Xs = scs_time(Y, 1e-8, args.scs_limit)
                dist = float("nan") if Xs is None else float(np.linalg.norm(Xs - X) / np.linalg.norm(X))
                mark = "" if status == "optimal" else ">="
                row += f" {t_scs:8.2f} {mark + format(t_scs / t_newt, '.1f'):>10s} {dist:8.1e}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
