"""Correctness of the Newton ALM experiment on the small problems of tests/test_cube_gap.py (n = 5, degree 4,
noisy 3-way tables): run to a tight certificate, its measured moments against an ADMM run to tol 1e-11 (a-norm)
and the certificate against that distance
(continuation of the proximal weight from sigma0 by 0.3 per outer iteration).
Command (repository root, one BLAS thread):

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/results_peers/runtime_v11/check_small.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "tests"))


def main() -> None:
    from test_cube_gap import _problem

    from sosproj.sdp.cube_tables_admm import CubeTablesProjector

    spec = importlib.util.spec_from_file_location("cne", HERE / "cube_newton_experiment.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    for seed in (0, 1, 2):
        n, ff = _problem(seed)
        ref, ri = CubeTablesProjector(n, 4, ff.a, tol=1e-11, max_iter=200000).solve(ff.g, on_fail="return")
        mu0 = CubeTablesProjector(n, 4, ff.a).rho0                 # the default penalty sigma0
        p = mod.CubeNewtonProjector(n, 4, ff.a, gap_tol=1e-5, prox=True, mu=mu0, mu_decay=0.3, sigma_growth=2.0,
                                    sigma_max=1e4, max_iter=400, cg_max=200, cg_tol=1e-6, inner_rtol=1e-4,
                                    prec_diag=True)
        f, info = p.solve(ff.g, on_fail="return")
        k = ff.g.size
        dist = float(np.sqrt(np.sum(p.a[:k] * (f[:k] - ref[:k]) ** 2)))
        lam = float(np.linalg.eigvalsh(p.moment_matrix(f)).min())
        print(f"seed {seed}: reference converged {ri['converged']} ({ri['iterations']} it); newton stop "
              f"{info['stop']} after {info['iterations']} Newton / {info['cg_iterations']} CG steps, certified "
              f"{info['certified_distance']:.3g} (target {1e-5 * np.sqrt(np.sum(p.a[1:] > 0)):.3g}), a-distance "
              f"to the reference {dist:.3g}, min eig M(f) {lam:.2e}")


if __name__ == "__main__":
    main()
