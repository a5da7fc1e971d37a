"""Which releases change their ``converged`` flag when the ADMM's report also requires the duality gap
(``ADMM_GAP_RTOL``, branch lnnc): releases whose reconstruction runs ``MarginalProjector.solve`` (``"lnn"``,
``"lnn-psd"``, categorical ``"auto"`` with the PSD step), old flag (``residuals_converged``) against the new one.
From the worktree root:

  PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/results_marginals/lnnc/flag_survey.py
"""
import os
import warnings

import sosproj as sp

warnings.simplefilter("ignore")
print("load", os.getloadavg()[0], flush=True)
for name, recon, eps_list in (("nltcs", "lnn", (0.3, 1, 3, 10)), ("titanic", "lnn", (0.3, 1, 3, 10)),
                              ("titanic", "lnn-psd", (1, 3, 10)), ("titanic", "auto", (1, 3, 10))):
    ds = sp.load_dataset(name)
    for eps in eps_list:
        for seed in (0, 1, 2):
            rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, reconstruction=recon, rng=seed)
            ri = rel.info["reconstruction_info"]
            parts = [("release", ri)] + [(k, ri[k]) for k in ("lnn_step", "psd_step", "extrapolation_projection")
                                        if isinstance(ri.get(k), dict)]
            desc = " | ".join(f"{k}: {p.get('solver', '')} it={p.get('iterations')} conv={p.get('converged')} "
                              f"res_conv={p.get('residuals_converged')} relgap={p.get('relative_gap')}"
                              for k, p in parts)
            print(f"{name} {recon} eps={eps:g} seed={seed} {desc}", flush=True)
print("load", os.getloadavg()[0])
