# ruff: noqa: B007, B023, E402, E501
"""Prototype of issue 15 (run as recorded in newton_prototypes.txt; kept for the record, not a library module)."""
import sys

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import TensorRounding
from sosproj.sdp.rankone_dual import DualFeasibility, NegativeEigenpairs
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

n = int(sys.argv[1])
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
for ti in range(3):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rd = TensorRounding(R, 3)
    f = DualFeasibility(prob)
    _, z = rd.best_point(q, starts=128, rng=0)
    x = rd.dirac(z)
    pv = -float(q @ x)
    t = pv * (1 + 0.5e-2)
    neg = NegativeEigenpairs(f.N)
    hist = []

    def check(Z, yr):
        it = len(hist) + 1
        if it % 5 == 0:
            lo = cert.lower(q, f.dual_vector(t, Z, yr))
            gap = (-lo["lower"] - pv) / pv
        else:
            gap = np.nan
        hist.append((neg.n_neg, gap))
        return it >= 200

    f.run(q, t, max_iter=200, check=check, check_every=1, neg=neg, relax=1.7)
    print(
        f"n={n} t{ti}: "
        + " ".join(f"{i + 1}:{k}/{g:.0e}" for i, (k, g) in enumerate(hist) if (i + 1) % 5 == 0 and i < 160),
        flush=True,
    )
