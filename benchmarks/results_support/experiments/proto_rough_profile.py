# ruff: noqa: B007, B023, E402, E501, F841
"""Issue 15 (support3): where the rough Douglas-Rachford phase of rankone_newton spends its time.

Usage: python proto_rough_profile.py N TENSORS [variant]   (variants: old, new)
Per tensor: steps to the certified gap 1e-2, CPU seconds of the phase, of the negative
eigenpairs (Krylov / exact paths), of the affine projection, the negative counts every 10 steps.
"""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp import rankone_dual as rd_mod
from sosproj.sdp.lowrank_support import TensorRounding
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

n, tensors = int(sys.argv[1]), int(sys.argv[2])
variant = sys.argv[3] if len(sys.argv) > 3 else "old"
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
NE = rd_mod.NegativeEigenpairs


class Logged(NE):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.log = []

    def __call__(self, M, rtol):
        c0 = time.process_time()
        e0 = getattr(self, "exact_calls", None)
        lam, V = super().__call__(M, rtol)
        self.log.append((lam.size, time.process_time() - c0))
        return lam, V


for ti in range(tensors):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rd = TensorRounding(R, 3)
    f = rd_mod.DualFeasibility(prob)
    _, z = rd.best_point(q, starts=128, rng=0)
    x = rd.dirac(z)
    pv = -float(q @ x)
    goal = 1e-2
    t = pv + 0.5 * goal * max(1.0, abs(pv))
    meth = "filter" if variant == "new" else "krylov"
    neg = Logged(f.N, method=meth)
    screen = NE(f.N, method=meth)
    tb = cert.trace_bound
    ccpu = [0.0]

    def check(Z, yr):
        c0 = time.process_time()
        lam, _ = screen(Z, 1e-3)
        est = t + tb * max(0.0, -float(lam[0]) if lam.size else 0.0)
        ok = False
        if (est - pv) / max(1.0, abs(est)) <= goal:
            low = cert.lower(q, f.dual_vector(t, Z, yr))
            ok = (-low["lower"] - pv) / max(1.0, abs(pv)) <= goal
        ccpu[0] += time.process_time() - c0
        return ok

    c0 = time.process_time()
    run = f.run(q, t, max_iter=2000, check=check, neg=neg, relax=1.7, deadline=time.perf_counter() + 900)
    total = time.process_time() - c0
    eig = sum(c for _, c in neg.log)
    counts = [k for k, _ in neg.log]
    print(f"n={n} t{ti} {variant}: steps={run.iterations} status={run.status} cpu={total:.2f}s eig={eig:.2f}s "
          f"check={ccpu[0]:.2f}s other={total - eig - ccpu[0]:.2f}s krylov_share={run.krylov_share:.2f} "
          f"max_neg={max(counts)}", flush=True)
    print("  neg every 10: " + " ".join(f"{i + 1}:{k}/{c:.2f}" for i, (k, c) in enumerate(neg.log) if i < 12 or i % 10 == 9), flush=True)
