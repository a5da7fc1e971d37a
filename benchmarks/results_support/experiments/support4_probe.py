"""Issue 15 (support4): probes of solver="rankone_newton" on the tensors of benchmarks/support_scale.py.

OPENBLAS_NUM_THREADS=1 python benchmarks/results_support/experiments/support4_probe.py MODE N TENSORS [CFG...]

MODE profile  : cProfile of one full solve (tensor TENSORS - 1, tol 1e-6; CFG[0] = tol if given)
MODE filterlog: the rough phase only, with every NegativeEigenpairs call logged (filter accepted / failed
                the residual test / widened, exact fallbacks) for the first tensor
MODE rough    : the rough phase only; CFG = PASSES:FACTOR:DEGREE (filter passes, rankone_dual.RTOL_FACTOR,
                rankone_dual.FILTER_DEGREE)
MODE full     : full solves; CFG = FACTOR:NEWTON (rankone_dual.RTOL_FACTOR, newton_tol / gap_tol)
(The variants that were measured and dropped were made by editing the module constants in the same way.)
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time
from collections import Counter

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support, rankone_dual
from sosproj.sdp.backends.rankone_newton import RankOneNewtonBackend
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver


def rough(R, W, tol: float = 1e-6) -> tuple[int, str, float]:
    """Steps, status and CPU seconds of the rough Douglas-Rachford phase alone."""
    prob = compile_support(R, 3, W)
    _, st = support_route(R, "rankone_newton", tol, 3)
    b = RankOneNewtonBackend(prob, tol=tol, **st)
    q = prob.q
    _, z = b.rounding.best_point(q, starts=128, rng=0)
    pv = -float(q @ b.rounding.dirac(z))
    c = time.process_time()
    _, it, status, _ = b._rough_dual(q, pv, None)
    return it, status, time.process_time() - c


def log_calls() -> list[tuple]:
    """Wrap NegativeEigenpairs._filter / _exact to record (kind, tracker, block, outcome, cpu)."""
    ne, log = rankone_dual.NegativeEigenpairs, []
    filt, exact = ne._filter, ne._exact

    def f(self, M, rtol):
        k, c = self.X.shape[1], time.process_time()
        out = filt(self, M, rtol)
        widened = self.X is None or (self.X.shape[1] != k and self._cut == 0.0)
        log.append(("filter", id(self), k, "ok" if out is not None else ("widen" if widened else "resid"),
                    time.process_time() - c))
        return out

    def e(self, M, rtol=0.0):
        c = time.process_time()
        out = exact(self, M, rtol)
        log.append(("exact", id(self), out[0].size, "", time.process_time() - c))
        return out

    ne._filter, ne._exact = f, e
    return log


def main() -> None:
    mode, n, T = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    cfgs = sys.argv[4:]
    R = MomentRelaxation(unit_ball(n), 4)
    rng = np.random.default_rng([2026, n])
    Ws = [rng.standard_normal((n, n, n)) for _ in range(T)]
    if mode == "profile":
        tol = float(cfgs[0]) if cfgs else 1e-6
        prob = compile_support(R, 3, Ws[-1])
        _, st = support_route(R, "rankone_newton", tol, 3)
        pr = cProfile.Profile()
        c = time.process_time()
        pr.enable()
        res = ConicSolver(prob, "rankone_newton", tol=tol, **st).solve(on_fail="return")
        pr.disable()
        print("cpu", time.process_time() - c, res.status, res.info["cert_relative_gap"], res.info["dr_iterations"],
              res.info["newton_steps"])
        pstats.Stats(pr).sort_stats("cumulative").print_stats(45)
    elif mode == "filterlog":
        log = log_calls()
        it, status, cpu = rough(R, Ws[0])
        print("rough", it, status, round(cpu, 2))
        for tracker in Counter(rec[1] for rec in log):
            recs = [rec for rec in log if rec[1] == tracker]
            kinds = Counter((rec[0], rec[3]) for rec in recs)
            print("tracker", len(recs), {k: (v, round(sum(r[4] for r in recs if (r[0], r[3]) == k), 2))
                                         for k, v in kinds.items()})
        main_id = Counter(rec[1] for rec in log).most_common(1)[0][0]
        print(" ".join(f"{r[0][0]}{r[2]}{r[3][:1]}" for r in log if r[1] == main_id))
    elif mode == "rough":
        init = rankone_dual.NegativeEigenpairs.__init__
        for cfg in cfgs:
            passes, factor, degree = cfg.split(":")

            def patched(self, d, *a, _p=int(passes), **kw):
                init(self, d, *a, **kw)
                if self.method == "filter":
                    self.passes = _p

            rankone_dual.NegativeEigenpairs.__init__ = patched
            rankone_dual.RTOL_FACTOR, rankone_dual.FILTER_DEGREE = float(factor), int(degree)
            for W in Ws:
                it, status, cpu = rough(R, W)
                print(cfg, "rough", it, status, round(cpu, 2), flush=True)
    elif mode == "full":
        tol = 1e-7 if n <= 30 else 1e-6
        for cfg in cfgs:
            factor, newton = cfg.split(":")
            rankone_dual.RTOL_FACTOR = float(factor)
            for i, W in enumerate(Ws):
                prob = compile_support(R, 3, W)
                _, st = support_route(R, "rankone_newton", tol, 3)
                c = time.process_time()
                res = ConicSolver(prob, "rankone_newton", tol=tol, newton_tol=float(newton) * 10 * tol,
                                  **st).solve(on_fail="return")
                inf = res.info
                print(cfg, n, i, f"cpu {time.process_time() - c:.2f}", res.status,
                      f"gap {inf['cert_relative_gap']:.1e}", inf["dr_iterations"], inf["newton_steps"],
                      inf["newton_cg"], inf["newton_rounds"], flush=True)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
