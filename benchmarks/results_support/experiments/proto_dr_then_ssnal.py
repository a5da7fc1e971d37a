# ruff: noqa: B007, B023, E402, E501
"""Prototype of issue 15 (run as recorded in newton_prototypes.txt; kept for the record, not a library module)."""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends.ssnal import SsnalBackend as _S
from sosproj.sdp.lowrank_support import TensorRounding
from sosproj.sdp.partial_newton import PartialPsdBlock

PART = True


class SsnalBackend(_S):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        if PART:
            big = max(range(len(self.blocks)), key=lambda i: self.blocks[i][1].d)
            sl, blk = self.blocks[big]
            self.blocks[big] = (sl, PartialPsdBlock(blk.d))
            self.pb = self.blocks[big][1]


from sosproj.sdp.rankone_dual import DualFeasibility
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

n = int(sys.argv[1])
T = int(sys.argv[2])
STOL = float(sys.argv[3])
sys.argv.pop(3)
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
for ti in range(T):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rd = TensorRounding(R, 3)
    for cfg in sys.argv[3:]:
        loose, rho = cfg.split(":")
        loose = float(loose)
        rho = float(rho)
        c0 = time.process_time()
        val, z = rd.best_point(q, starts=128, rng=0)
        x = rd.dirac(z)
        pv = -float(q @ x)
        feas = DualFeasibility(prob)
        t = pv + 0.5 * loose * max(1, abs(pv))

        def check(Z, yr):
            y = feas.dual_vector(t, Z, yr)
            lo = cert.lower(q, y)
            return (-lo["lower"] - pv) / max(1, abs(pv)) <= loose

        if loose >= 1:
            from sosproj.sdp.conic import smat

            Y = smat((prob.b - prob.A @ x)[feas.big_slice], feas.N)
            u = np.linalg.eigh(Y)[1][:, -1]

            class _R:
                pass

            run = _R()
            run.iterations = 0
            run.status = "central"
            run.y = feas.dual_vector(
                pv, loose * 1e-3 * (np.eye(feas.N) - np.outer(u, u)), np.zeros(len(feas.rest_rows))
            )
        else:
            run = feas.run(q, t, max_iter=3000, check=check, relax=1.7)
        c1 = time.process_time()
        be = SsnalBackend(prob, tol=STOL, admm_tol=1.0, admm_max_iter=1, time_limit=300, rho=rho)
        raw = be.solve(q, warm_start=(x, run.y, prob.b - prob.A @ x))
        c = time.process_time() - c0
        b = cert.bounds(q, raw.x, raw.y, point_value=-pv, repair=True)
        e = raw.extra
        print(
            f"n={n} t{ti} {cfg} cpu={c:.2f} (dr {c1 - c0:.2f}, {run.iterations} it {run.status}) status={raw.status} gap={b['relative_gap']:.2e} newton={e.get('ssnal_newton')} cg={e.get('ssnal_cg')} outer={e.get('ssnal_outer')} sigma={e.get('ssnal_sigma'):.1e} part={getattr(be, 'pb', None) and (be.pb.partial_calls, be.pb.full_calls, be.pb.neg.krylov_accepted)}",
            flush=True,
        )
