"""Same-run component timings of the Newton phase's full path at order 5,151 (issue 15, session 30, branch n100_30).

A synthetic face block shaped like the n = 100 hand-over's (one eigenvalue near -2,519, ``--neg - 1`` between -0.7 and
0, the rest positive, log-spaced in [1e-3, 50]; a random orthogonal basis), then, interleaved A / B:

* decomposition of a Newton step after one with > MAX_NEGATIVE negatives: main's path (the warm filter, the exact
  partial ``syevr`` on a doubling block, then the full ``eigh``) against ``FULL_STICKY`` (one full ``eigh``);
* ``jacobian_diag`` (the CG preconditioner's diagonal, once per Newton step): main's ``S Om S'`` (two N^3 products)
  against the O(N^2 k) form;
* one Jacobian product (``_PsdBlock.jacobian``, float64 as the face block runs it) against the ``syr2k`` variant
  (``--variant``) and float32 factors.

Every pair is checked for equal results (max abs difference printed). Prints CPU and wall per item and the load.

Usage: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD \
    python benchmarks/results_support/n100_30/components.py --d 5151 --neg 100 --reps 2
"""
import argparse
import os
import time

import numpy as np
import scipy.linalg as sla

from sosproj.sdp import partial_newton as pn
from sosproj.sdp.backends.ssnal import _PsdBlock
from sosproj.sdp.cones import svec

ap = argparse.ArgumentParser()
ap.add_argument("--d", type=int, default=5151)
ap.add_argument("--neg", type=int, default=100)
ap.add_argument("--reps", type=int, default=2)
ap.add_argument("--products", type=int, default=5)
ap.add_argument("--skip-decompose", action="store_true")
a = ap.parse_args()
rng = np.random.default_rng(30)
d, k = a.d, a.neg
c0 = time.process_time()
Q, _ = sla.qr(rng.standard_normal((d, d)), overwrite_a=True, check_finite=False)
lam = np.concatenate([[-2519.0], -0.7 * rng.random(k - 1), np.geomspace(1e-3, 50.0, d - k)])
W = (Q * lam) @ Q.T
W = 0.5 * (W + W.T)
E = rng.standard_normal((d, d)) * 1e-4
W2 = W + 0.5 * (E + E.T)                                   # the next Newton step's point: close to W
del E
w1, w2 = svec(W), svec(W2)
del W2
print(f"d={d} neg={k}: built in {time.process_time() - c0:.1f}s cpu | threads "
      f"{os.environ.get('OPENBLAS_NUM_THREADS')} | load {os.getloadavg()[0]:.2f}", flush=True)


def timed(label, fn):
    c, t = time.process_time(), time.perf_counter()
    out = fn()
    print(f"  {label:44s} cpu {time.process_time() - c:8.2f}s wall {time.perf_counter() - t:8.2f}s "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    return out


def old_diag(b):
    n_ = b.d - b.npos
    lp, ln = b.lam[n_:], b.lam[:n_]
    Om = np.zeros((b.d, b.d))
    Om[n_:, n_:] = 1.0
    nu = lp[:, None] / (lp[:, None] - ln[None, :])
    Om[n_:, :n_] = nu
    Om[:n_, n_:] = nu.T
    S = b.Q * b.Q
    return ((S @ Om) @ S.T).flat[b.proj.lower]


def syr2k_product(b, h):
    Qa, Qb, wt = b._jac_factors()
    H = b.to_matrix(h).astype(Qa.dtype, copy=False)
    U = H @ Qa
    G = Qa.T @ U
    T = wt * (U.T @ Qb)
    Y = Qa @ (0.5 * G) + Qb @ T.T
    f = sla.get_blas_funcs("syr2k", (Y, Qa))
    C = f(1.0, Y, Qa, lower=1)            # Fortran order, lower triangle = Y Qa' + Qa Y'
    out = b.to_svec_upper(C.T) if hasattr(b, "to_svec_upper") else np.take(C.T, b.proj.upper) * b.proj.scale
    out = out.astype(float)
    return out if b.npos <= b.d - b.npos else h - out


ref = None
for rep in range(a.reps):
    print(f"rep {rep}", flush=True)
    if not a.skip_decompose:
        for sticky in (False, True):
            pn.FULL_STICKY = sticky
            blk = pn.PartialPsdBlock(d)
            blk.decompose(w1)                     # cold: the same for both
            out = timed(f"decompose step 2 ({'sticky eigh' if sticky else 'main: filter+evr+eigh'})",
                        lambda blk=blk: blk.decompose(w2))
            print(f"    neg {blk.d - blk.npos} partial {blk.partial} exact_calls {blk.neg.exact_calls}", flush=True)
            if sticky and ref is not None:
                print(f"    max |diff| of Pi_+: {np.max(np.abs(out[0] - ref[0])):.2e}", flush=True)
            ref = out
        pn.FULL_STICKY = True
    b = _PsdBlock(d, single=False)
    timed("eigh (decompose, full)", lambda b=b: b.decompose(w1))
    d_old = timed("jacobian_diag main (S Om S')", lambda b=b: old_diag(b))
    d_new = timed("jacobian_diag O(N^2 k)", lambda b=b: b.jacobian_diag())
    print(f"    max |diff| {np.max(np.abs(d_old - d_new)):.2e}", flush=True)
    b32 = _PsdBlock(d, single=True)
    b32.lam, b32.Q, b32.npos, b32._factors = b.lam, b.Q, b.npos, None
    hs = [svec(0.5 * (M + M.T)) for M in (rng.standard_normal((d, d)) for _ in range(1))]
    h = hs[0]
    b._jac_factors()
    b32._jac_factors()
    for name, fn in (("product float64 (main)", lambda b=b, h=h: b.jacobian(h)),
                     ("product float64 syr2k", lambda b=b, h=h: syr2k_product(b, h)),
                     ("product float32 (main code, single)", lambda b32=b32, h=h: b32.jacobian(h)),
                     ("product float32 syr2k", lambda b32=b32, h=h: syr2k_product(b32, h))):
        outs = []
        c, t = time.process_time(), time.perf_counter()
        for _ in range(a.products):
            outs.append(fn())
        print(f"  {name:44s} cpu {(time.process_time() - c) / a.products:8.3f}s/product wall "
              f"{(time.perf_counter() - t) / a.products:8.3f}s load {os.getloadavg()[0]:.2f}", flush=True)
        if name.startswith("product float64 (main)"):
            pref = outs[0]
        else:
            print(f"    max |diff| vs float64 main {np.max(np.abs(outs[0] - pref)):.2e} (|ref| "
                  f"{np.max(np.abs(pref)):.2e})", flush=True)
