"""Issue 14 (branch cube2): the semismooth Newton ALM experiment against the cube ADMM, same run, one BLAS thread.

Captures the full cube step's problem (weights ``a`` and measurement ``g`` in Fourier form) of the default nltcs
release (``release_marginals(ds, 3, epsilon, delta=1e-9, rng=seed)``) and solves it with

* ``admm``: the pipeline's cube step (:class:`sosproj.sdp.cube_tables_admm.CubeTablesProjector` with the
  pipeline's options: ``CUBE_GAP_TOL``, ``CUBE_INIT``, ``cube_tolerance``);
* ``newton_*``: the experiment of ``benchmarks/results_peers/runtime_v11/cube_newton_experiment.py`` with the
  settings listed in ``VARIANTS``, all asked for the SAME certificate as the ADMM (``gap_tol`` = the pipeline's),

reporting CPU (``time.process_time``), iterations, Newton / CG counts, the certified distance to the exact
projection (a-norm; :mod:`sosproj.sdp.cube_gap`) and the a-norm distance of the measured moments to the ADMM's.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 python benchmarks/cube_newton_study.py \
        --eps 1 3 --seeds 0 1
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: Newton variants (options of CubeNewtonProjector; ``warm``: ADMM iterations run first, their (f, -rho L, rho)
#: the Newton start)
VARIANTS: dict[str, dict] = {
    "newton_reg": {"mu": 1e-5, "sigma_growth": 3.0, "max_iter": 80, "cg_max": 100, "inner_rtol": 0.01},
    "newton_prox": {"mu": 1.0, "prox": True, "sigma_growth": 2.0, "max_iter": 60, "cg_max": 50},
    "newton_warm200": {"mu": 1e-3, "sigma_growth": 2.0, "max_iter": 40, "cg_max": 60, "inner_rtol": 0.05,
                       "warm": 200},
    # proximal weight tied to the penalty (well-conditioned CG, slow proximal outer loop)
    "newton_prox_murel1": {"prox": True, "mu_rel": 1.0, "sigma_growth": 2.0, "sigma_max": 64, "max_iter": 80,
                           "cg_max": 100, "inner_rtol": 0.05, "cg_tol": 1e-2, "prec_full": True},
    # small proximal weight, moderate penalty, accurate CG (the CG cap binds)
    "newton_prox_mu0.1": {"prox": True, "mu": 0.1, "sigma_growth": 2.0, "sigma_max": 8, "max_iter": 60,
                          "cg_max": 200, "inner_rtol": 0.01, "cg_tol": 1e-3, "prec_full": True},
    # continuation: the proximal weight from sigma0 down by 0.3 per outer iteration, diagonal-of-J preconditioner
    "newton_prox_cont": {"prox": True, "mu_rel0": 1.0, "mu_decay": 0.3, "sigma_growth": 2.0, "sigma_max": 8,
                         "max_iter": 60, "cg_max": 100, "inner_rtol": 0.05, "cg_tol": 1e-2, "prec_diag": True},
    # the same with the settings that certify 1e-5 on the small problems (check_small.py): accurate subproblems
    "newton_prox_cont_accurate": {"prox": True, "mu_rel0": 1.0, "mu_decay": 0.3, "sigma_growth": 2.0,
                                  "sigma_max": 1e4, "max_iter": 150, "cg_max": 200, "inner_rtol": 1e-3,
                                  "cg_tol": 1e-4, "prec_diag": True},
    # the same with the Woodbury preconditioner (the positive eigenspace's block of J exact)
    "newton_prox_cont_lowrank": {"prox": True, "mu_rel0": 1.0, "mu_decay": 0.3, "sigma_growth": 2.0,
                                 "sigma_max": 1e4, "max_iter": 80, "cg_max": 100, "inner_rtol": 1e-3,
                                 "cg_tol": 1e-4, "prec_lowrank": True},
}

#: proximal weights (times the default penalty sigma0) of the Hessian spectrum diagnostic (``--spectrum``)
SPECTRUM_MU = (1e-4, 1e-2, 1.0)


def _spectrum(mod, n: int, deg: int, w: np.ndarray, opt: dict, g: np.ndarray) -> dict:
    """Eigenvalues of the diagonally preconditioned Newton matrix ``D + sigma0 M^* J M`` at the ADMM's answer
    (``Z = -rho L``, ``sigma = sigma0``): formed column by column (one Jacobian product each), then ``eigvalsh``.
    Reports the condition number and how many eigenvalues lie below 1e-2 / 1e-4 of the largest (what CG
    must resolve), for each proximal weight of :data:`SPECTRUM_MU`, scaled by ``D + sigma0 count`` (the
    preconditioner of ``prec_full``) and by the Newton matrix's exact diagonal (``cond_jacobi``)."""
    from sosproj.sdp.cube_tables_admm import CubeTablesProjector

    ad = CubeTablesProjector(n, deg, w, **opt)
    f, _ = ad.solve(g, warm_start=False, on_fail="return")
    L, rho = ad._warm
    p = mod.CubeNewtonProjector(n, deg, w)
    sigma = p.sigma0
    lam, P = np.linalg.eigh(-rho * L - sigma * p.moment_matrix(f))
    om = mod._omega(lam)
    nm = p.n_moments
    J = np.empty((nm - 1, nm - 1))
    e = np.zeros(nm)
    for j in range(1, nm):
        e[j] = 1.0
        J[:, j - 1] = p._jac(P, om, e)[1:]
        e[j] = 0.0
    meas = p.a[1:] > 0
    out = {"order": int(p.basis_size), "moments": nm - 1, "negative_eigenvalues_of_Y": int(np.sum(lam <= 0))}
    for mu_rel in SPECTRUM_MU:
        D = np.where(meas, p.a[1:], mu_rel * sigma)
        H = sigma * J + np.diag(D)
        d = 1.0 / np.sqrt(D + sigma * p.count[1:])
        ev = np.linalg.eigvalsh(d[:, None] * H * d[None, :])
        dj = 1.0 / np.sqrt(np.diag(H))                       # the exact diagonal (Jacobi): the best of its kind
        ej = np.linalg.eigvalsh(dj[:, None] * H * dj[None, :])
        out[f"mu={mu_rel:g}*sigma0"] = {"cond": float(ev[-1] / ev[0]),
                                         "below_1e-2": int(np.sum(ev < 1e-2 * ev[-1])),
                                         "below_1e-4": int(np.sum(ev < 1e-4 * ev[-1])),
                                         "cond_jacobi": float(ej[-1] / ej[0]),
                                         "jacobi_below_1e-2": int(np.sum(ej < 1e-2 * ej[-1]))}
    return out


def _experiment():
    path = HERE / "results_peers" / "runtime_v11" / "cube_newton_experiment.py"
    spec = importlib.util.spec_from_file_location("cube_newton_experiment", path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def _capture(eps: float, seed: int):
    """The pipeline's cube problem (constructor arguments and ``g``) of one default nltcs release."""
    from marginals_peers import _dataset
    from peers.data import load

    import sosproj as sp
    import sosproj.sdp.cube_tables_admm as cta

    X, names, sizes = load("nltcs")
    ds, _ = _dataset("nltcs", X, names, sizes)
    got: list = []
    orig_init, orig_solve = cta.CubeTablesProjector.__init__, cta.CubeTablesProjector.solve

    def init(self, n, degree, weights, **opt):
        self._args = (n, degree, np.array(weights), dict(opt))
        orig_init(self, n, degree, weights, **opt)

    def solve(self, g, **kw):
        got.append((self._args, np.array(g)))
        return orig_solve(self, g, **kw)

    cta.CubeTablesProjector.__init__, cta.CubeTablesProjector.solve = init, solve
    try:
        sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
    finally:
        cta.CubeTablesProjector.__init__, cta.CubeTablesProjector.solve = orig_init, orig_solve
    return got[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eps", type=float, nargs="+", default=[1.0, 3.0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--out", default=None, help="jsonl rows")
    ap.add_argument("--spectrum", action="store_true", help="the Newton matrix's spectrum, no solves")
    ap.add_argument("--variants", nargs="+", default=None, help="names in VARIANTS (default all)")
    args = ap.parse_args()
    from sosproj.sdp.cube_tables_admm import CubeTablesProjector

    mod = _experiment()
    print("load:", os.getloadavg(), flush=True)
    rows = []
    with threadpool_limits(1):
        for eps in args.eps:
            for seed in args.seeds:
                (n, deg, w, opt), g = _capture(eps, seed)
                if args.spectrum:
                    row = {"eps": eps, "seed": seed, "spectrum": _spectrum(mod, n, deg, w, opt, g)}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
                    continue
                k = g.size
                c = time.process_time()
                ad = CubeTablesProjector(n, deg, w, **opt)
                f_ad, i_ad = ad.solve(g, warm_start=False, on_fail="return")
                c_ad = time.process_time() - c
                a = ad.a[:k]
                row = {"eps": eps, "seed": seed, "admm": {"cpu": c_ad, "iterations": i_ad["iterations"],
                                                          "stop": i_ad["stop"],
                                                          "certified_distance": i_ad["certified_distance"]}}
                for name, v in VARIANTS.items():
                    if args.variants is not None and name not in args.variants:
                        continue
                    v = dict(v)
                    warm = v.pop("warm", 0)
                    if "mu_rel0" in v:                       # a start relative to the default penalty sigma0
                        v["mu"] = v.pop("mu_rel0") * mod.CubeNewtonProjector(n, deg, w).sigma0
                    c = time.process_time()
                    p = mod.CubeNewtonProjector(n, deg, w, init="cumulant", gap_tol=opt["gap_tol"], **v)
                    p._trace = True
                    if warm:
                        pre = CubeTablesProjector(n, deg, w, **{**opt, "max_iter": warm, "gap_tol": None})
                        f0, _ = pre.solve(g, warm_start=False, on_fail="return")
                        L, rho = pre._warm
                        p._start = (f0, -rho * L, rho)
                    f, info = p.solve(g, on_fail="return")
                    cpu = time.process_time() - c
                    row[name] = {"cpu": cpu, "cpu_ratio_vs_admm": cpu / c_ad, "newton": info["iterations"],
                                 "cg": info["cg_iterations"], "outer": info["outer_iterations"],
                                 "stop": info["stop"], "converged": info["converged"],
                                 "certified_distance": info["certified_distance"],
                                 "a_dist_to_admm": float(np.sqrt(np.sum(a * (f[:k] - f_ad[:k]) ** 2))),
                                 "best_certificate_seen": min(t["certified_distance"] for t in p.trace)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    print("load:", os.getloadavg(), flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
