"""Experiment (not adopted): the cube ADMM on the congruence-scaled moment matrix ``D M(f) D``, ``D = diag(s^|A|)``.

Synthetic latent-class binary data only (the shapes of ``benchmarks/cube_tol_study.py``). Each release is run
twice on the same noisy measurement (same seed): with the default cube step and with the scaled ADMM patched in
(same tolerance, same iteration cap, same residual balancing, the stopping test on the scaled matrix). Prints the
error (L1 per 3-way marginal / m), CPU seconds and cube iterations of both.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/results_peers/runtime_v8/experiments/scaled_cube_study.py \\
           > benchmarks/results_peers/runtime_v8/experiments/scaled_cube_study.txt
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from allocation_study import latent_class  # noqa: E402
from cube_tol_study import SHAPES  # noqa: E402
from marginals_peers import errors  # noqa: E402
from peers.residual import MarginalWorkload  # noqa: E402

import sosproj.mechanisms.marginals_pipeline as mp  # noqa: E402
import sosproj.sdp.cube_tables_admm as cta  # noqa: E402

SCALE = {"s": 0.5}
PLAIN = cta.CubeTablesProjector.solve


def scaled_solve(self: cta.CubeTablesProjector, g: np.ndarray, *, warm_start: bool = True,
                 on_fail: str = "warn") -> tuple[np.ndarray, dict[str, Any]]:
    gg = np.zeros(self.n_moments)
    gg[:np.asarray(g).size] = np.asarray(g, dtype=float).ravel()
    a = self.a
    sizes = (self.index.members[:self.basis_size] >= 0).sum(axis=1)
    d = SCALE["s"] ** sizes.astype(float)
    D2 = np.outer(d, d)
    cntw = np.bincount(self._pos_flat, weights=(D2 ** 2).ravel(), minlength=self.n_moments)
    cntw[cntw == 0] = 1.0
    meas = a > 0
    rho = float(np.median(a[meas] / cntw[meas]))

    def Ms(f: np.ndarray) -> np.ndarray:
        return f[self.pos] * D2

    def adjs(X: np.ndarray) -> np.ndarray:
        return np.bincount(self._pos_flat, weights=(X * D2).ravel(), minlength=self.n_moments)

    f0 = np.where(meas, gg, 0.0)
    f0[0] = 1.0
    X = self._psd(Ms(f0))
    L = np.zeros_like(X)
    f = f0
    converged = False
    it = 0
    for it in range(1, self.max_iter + 1):
        f = (a * gg + rho * adjs(X - L)) / (a + rho * cntw)
        f[0] = 1.0
        Mf = Ms(f)
        X_old = X
        Mh = self.alpha * Mf + (1.0 - self.alpha) * X_old
        X = self._psd(Mh + L)
        L += Mh - X
        r_p = np.linalg.norm(Mf - X)
        eps_p = self.tol * (1.0 + max(np.linalg.norm(Mf), np.linalg.norm(X)))
        r_d = rho * np.linalg.norm(adjs(X - X_old))
        eps_d = self.tol * (1.0 + rho * np.linalg.norm(adjs(L)))
        if r_p <= eps_p and r_d <= eps_d:
            converged = True
            break
        if it % 5 == 0:
            if r_p / eps_p > 10 * r_d / eps_d:
                rho, L = rho * 2.0, L / 2.0
            elif r_d / eps_d > 10 * r_p / eps_p:
                rho, L = rho / 2.0, L * 2.0
    lam = float(np.linalg.eigvalsh(self.moment_matrix(f))[0])
    theta = -lam / (1.0 - lam) if lam < 0 else 0.0
    f = (1.0 - theta) * f
    f[0] = 1.0
    return f, {"iterations": it, "converged": converged, "theta": theta, "degree": self.degree,
               "moment_matrix_order": self.basis_size}


def main() -> None:
    print("shape eps seed variant l1 cpu_s cube_iter cube_theta", flush=True)
    for name in ("bin16-m20k-skew", "bin20-m10k-skew"):
        n, m, alpha, dseed = SHAPES[name]
        ds = latent_class([2] * n, m, 4, np.random.default_rng(dseed), alpha=alpha)
        wl = MarginalWorkload.all_k_way([2] * n, 3)
        true = wl.workload_answers(np.asarray(ds.records, dtype=np.int64))
        for eps in (1.0, 3.0, 10.0):
            for seed in (0, 1):
                for variant in ("plain", "scaled0.5"):
                    cta.CubeTablesProjector.solve = PLAIN if variant == "plain" else scaled_solve
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
                    cpu = time.process_time() - t0
                    est = np.concatenate([np.asarray(rel.table(w), float).ravel() for w in wl.sets])
                    cube = rel.info["reconstruction_info"]["cube"]
                    print(f"{name} {eps:g} {seed} {variant} {errors(wl, est, true, m)[0]:.7f} {cpu:.3f} "
                          f"{cube['iterations']} {cube['theta']:.2g}", flush=True)
    cta.CubeTablesProjector.solve = PLAIN


if __name__ == "__main__":
    main()
