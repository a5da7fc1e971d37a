"""Issue 15 support6 prototype (not built): the rough phase's checks by one Cholesky factorization only.

e1ff240's rough phase screens every fifth shadow with an estimate of lambda_min from all its negative
eigenpairs (2.0 s of 9.3 s at n = 48) before the Cholesky-verified certificate. Here the estimate is
replaced by ``SupportCertifier.verifies`` itself, at the capped stage's gap ``dr_cap_gap`` and at the rough
gap (monkeypatched ``_rough_dual``; the rest of the solver unchanged). One process, same tensor, CPU time.
Usage: python support6_cholesky_checks.py N TENSOR
"""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.rankone_dual import NegativeEigenpairs

n, ti = int(sys.argv[1]), int(sys.argv[2])
tol = 1e-7 if n <= 30 else 1e-6
rng = np.random.default_rng([2026, n])
for _ in range(ti + 1):
    W = rng.standard_normal((n, n, n))
R = MomentRelaxation(unit_ball(n), 4)
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", tol, 3)


def rough_cholesky(self, q, pv, deadline):
    feas, goal = self.feas, self.dr_gap
    t = pv + 0.5 * goal * max(1.0, abs(pv))
    state, flat_bound = self._start(q, t)
    cap = self._cap()
    max_iter = max(1, int(self.options["dr_max_iter"]))

    def shows(Z, yr, g):
        return self.certifier.verifies(q, feas.dual_vector(t, Z, yr), -(pv + g * max(1.0, abs(pv))))

    capped_steps, capped_status = 0, "off"
    neg = NegativeEigenpairs(feas.N, method="filter")
    if cap is not None:
        goal1 = float(self.options["dr_cap_gap"])
        neg1 = NegativeEigenpairs(feas.N, method="filter", cap=cap)
        run = feas.run(q, t, max_iter=max(1, max_iter // 2), deadline=deadline, relax=1.7, state=state,
                       neg=neg1, check=lambda Z, yr: shows(Z, yr, goal1))
        capped_steps, capped_status = run.iterations, run.status
        state, neg = run.state, neg1.uncapped()
    run = feas.run(q, t, max_iter=max_iter - capped_steps, deadline=deadline, relax=1.7, state=state, neg=neg,
                   check=lambda Z, yr: shows(Z, yr, goal))
    return run.y, capped_steps + run.iterations, run.status, flat_bound, capped_steps, capped_status


for label in ("default", "cholesky", "default", "cholesky"):
    be = rn.RankOneNewtonBackend(prob, tol=tol, **settings)
    if label == "cholesky":
        be._rough_dual = rough_cholesky.__get__(be)
    c0 = time.process_time()
    sol = be.solve()
    c = time.process_time() - c0
    e = sol.extra
    print(f"n={n} t{ti} {label:9s} cpu {c:7.2f}s {sol.status} gap {e['cert_relative_gap']:.1e} "
          f"dr {e['dr_iterations']} (capped {e['dr_capped_iterations']}) newton {e['newton_steps']}", flush=True)
