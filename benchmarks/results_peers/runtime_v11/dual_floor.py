"""How much a better dual alone could shorten the cube ADMM (issue 14, branch cube2): for the pipeline's nltcs cube
problem, the ADMM stopped after k iterations (feasible answer f_k, multiplier Z_k = -rho L), and

* ``admm``: the certificate with ADMM's own multiplier (what the pipeline's gap stop reads, unpolished);
* ``floor``: ``sqrt(2 (q(f_k) - q(f_ref)))`` with ``f_ref`` the pipeline's own answer (gap stop, certified 1.3):
  since ``q(f_ref) >= q*``, NO dual certificate of ``f_k`` can be below this (module docs of sosproj.sdp.cube_gap);
* ``bm``: the certificate with a Burer-Monteiro dual ``Z = V V^T`` (rank of Z_k + 5, started at its factor),
  maximizing the smooth part of the dual bound with a quadratic penalty on ``s_U`` of the unmeasured moments
  (weights 1, 10, 100; L-BFGS-B, 300 iterations each), the smallest certificate seen (ADMM's included), and its CPU.

Command (repository root, one BLAS thread):

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/results_peers/runtime_v11/dual_floor.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import scipy.optimize as so
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

KS = (100, 200, 300, 400, 600, 800, 1000)


def _bm(ad, f: np.ndarray, gg: np.ndarray, Z: np.ndarray, extra: int = 5) -> tuple[float, float, int]:
    from sosproj.sdp.cube_gap import certified_distance

    a = ad.a
    meas = a > 0
    meas[0] = False
    unm = ~meas
    unm[0] = False
    c0 = time.process_time()
    lam, P = np.linalg.eigh(Z)
    r = int(np.sum(lam > 1e-9 * max(lam.max(), 1e-300))) + extra
    N = ad.basis_size
    const = 0.5 * a[0] * (1 - gg[0]) ** 2

    def fg(x: np.ndarray, pen: float) -> tuple[float, np.ndarray]:
        V = x.reshape(N, r)
        sv = ad.adjoint(V @ V.T)
        val = (const - sv[0] - np.sum(sv[meas] * gg[meas] + sv[meas] ** 2 / (2 * a[meas]))
               - 0.5 * pen * np.sum(sv[unm] ** 2))
        wv = np.zeros_like(sv)
        wv[0] = -1.0
        wv[meas] = -(gg[meas] + sv[meas] / a[meas])
        wv[unm] = -pen * sv[unm]
        return -val, -(2.0 * ad.moment_matrix(wv) @ V).ravel()

    x = (P[:, -r:] * np.sqrt(np.maximum(lam[-r:], 0.0))).ravel()
    best = certified_distance(ad, f, gg, Z)
    for pen in (1.0, 10.0, 100.0):
        x = so.minimize(fg, x, args=(pen,), jac=True, method="L-BFGS-B", options={"maxiter": 300}).x
        V = x.reshape(N, r)
        best = min(best, certified_distance(ad, f, gg, V @ V.T))
    return best, time.process_time() - c0, r


def main() -> None:
    from cube_newton_study import _capture

    from sosproj.sdp.cube_gap import certified_distance
    from sosproj.sdp.cube_tables_admm import CubeTablesProjector

    with threadpool_limits(1):
        for eps in (1.0, 3.0):
            (n, deg, w, opt), g = _capture(eps, 0)
            ref = CubeTablesProjector(n, deg, w, **opt)
            f_ref, i_ref = ref.solve(g, warm_start=False, on_fail="return")
            gg = np.zeros(ref.n_moments)
            gg[:g.size] = g
            q_ref = 0.5 * float(np.sum(ref.a * (f_ref - gg) ** 2))
            print(f"nltcs eps {eps} seed 0: pipeline ADMM {i_ref['iterations']} iterations, certified "
                  f"{i_ref['certified_distance']:.3f} (threshold 1.32)", flush=True)
            for k in KS:
                ad = CubeTablesProjector(n, deg, w, **{**opt, "max_iter": k, "gap_tol": None})
                f, _ = ad.solve(g, warm_start=False, on_fail="return")
                L, rho = ad._warm
                Z = -rho * L
                q = 0.5 * float(np.sum(ad.a * (f - gg) ** 2))
                floor = float(np.sqrt(2.0 * max(q - q_ref, 0.0)))
                bm, cpu, r = _bm(ad, f, gg, Z)
                print(f"  k {k:5d}: admm {certified_distance(ad, f, gg, Z):8.3f}  floor {floor:7.3f}  "
                      f"bm {bm:7.3f} (rank {r}, {cpu:.2f} s CPU)", flush=True)


if __name__ == "__main__":
    main()
