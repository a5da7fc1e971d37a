r"""Certified support values from a rank-one candidate and a dual certificate (``solver="rankone"``).

For a support function :math:`\max\langle W, T(y)\rangle` over the degree-4 pseudo-moments of the
unit ball the relaxation is often tight with a rank-one optimum (the Dirac moments of the
maximizer of :math:`\langle W, x^{\otimes k}\rangle` over the ball). This backend

1. finds the candidate with a batched power method, its best starts converged by trust-region Newton
   (:meth:`~sosproj.sdp.lowrank_support.TensorRounding.best_point`); its Dirac moment vector
   :math:`\hat x` is an **exactly feasible** point of value :math:`\hat p`;
2. fixes the dual value at :math:`t = \hat p + \epsilon\max(1, |\hat p|)`,
   :math:`\epsilon` = ``dual_margin`` :math:`\times` ``gap_tol``, and looks for a dual certificate
   of that value by Douglas-Rachford on the dual spectrahedron
   (:class:`~sosproj.sdp.rankone_dual.DualFeasibility`: closed-form affine projection and the
   negative eigenpairs of one matrix per step, no full eigendecomposition);
3. certifies the dual iterate every ``check_every`` steps with
   :class:`~sosproj.sdp.support_bounds.SupportCertifier` (residual absorbed exactly, verified
   :math:`\lambda_{\min}`, proven trace bound) and stops when the certified relative gap
   :math:`(\text{upper} - \hat p) / \max(1, |\text{upper}|)` is at most ``gap_tol``.

When no certificate is found (the relaxation is not tight at this ``W``, the power method
missed the maximizer, or the caps were hit), ``fallback="lowrank"`` hands the problem to the
low-rank ADMM (:mod:`sosproj.sdp.backends.lowrank`), warm-started from :math:`\hat x` and the last
dual iterate, for the remaining iterations and time; ``info`` records both attempts
(``rankone_status``). With ``fallback=None`` the answer is returned with status
``"max_iter"``/``"time_limit"`` and its (valid, but wider) certified bounds; it is never
reported as solved.

The returned ``x`` is always the feasible Dirac moment vector (its objective is the certified
primal value), ``y`` the dual iterate whose recomputed bound is ``cert_lower``.

>>> import numpy as np
>>> from sosproj.poly import MomentRelaxation, unit_ball
>>> from sosproj.sdp import compile_support
>>> from sosproj.sdp.lowrank_support import support_route
>>> R = MomentRelaxation(unit_ball(4), 4)
>>> W = np.random.default_rng(0).standard_normal((4, 4, 4))
>>> prob = compile_support(R, 3, W)
>>> _, settings = support_route(R, "rankone", 1e-7, 3)
>>> sol = RankOneBackend(prob, tol=1e-7, **settings).solve()
>>> sol.status, sol.raw_status, sol.extra["cert_relative_gap"] <= 1e-6
('solved', 'certified', True)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sosproj.errors import ResourceLimitError, SolverNotAvailableError
from sosproj.sdp.backends.base import RawSolution, SolverBackend
from sosproj.sdp.cones import Cones, svec_dim
from sosproj.sdp.conic import ConicProblem
from sosproj.sdp.rankone_dual import DualFeasibility, NegativeEigenpairs
from sosproj.sdp.support_bounds import SupportCertifier
from sosproj.validation import check_memory

#: default cap on Douglas-Rachford iterations before the fallback
DEFAULT_MAX_ITER = 3000


def lowrank_fallback(backend: Any, x: np.ndarray, y: np.ndarray, deadline: float | None, used: int) -> RawSolution:
    """Hand a support problem whose rank-one certificate failed to the low-rank ADMM, warm-started
    at the feasible Dirac point ``x`` and the last dual ``y``, for the remaining iterations and time.

    ``backend`` is a ``rankone`` / ``rankone_newton`` backend (its ``options`` carry the trace
    bound, interior point and rounding; its ``device``, if any, goes along); the ADMM is built once
    (memory checked then, refused with :class:`~sosproj.errors.ResourceLimitError`) and cached on
    ``backend._fallback``."""
    from sosproj.sdp.backends.lowrank import LowrankBackend

    o = backend.options
    if backend._fallback is None:
        p = backend.problem
        check_memory(LowrankBackend.estimate_memory(p.n, p.cones, p.A.nnz, 0),
                     f"the lowrank fallback of solver {backend.name!r} (PSD blocks of orders {list(p.cones.psd)})")
        backend._fallback = LowrankBackend(p, tol=backend.tol, max_iter=backend.max_iter,
                                           time_limit=backend.time_limit, trace_bound=o["trace_bound"],
                                           interior=o["interior"], gap_tol=backend.gap_tol,
                                           rounding=backend.rounding, initial=None,
                                           device=getattr(backend, "device", None))
    fb = backend._fallback
    if backend.max_iter:
        fb.max_iter = max(1, backend.max_iter - used)
    fb.time_limit = None if deadline is None else max(1e-3, deadline - time.perf_counter())
    s = backend.problem.b - backend.problem.A @ x
    return fb.solve(backend._q, (x, y, s))


class RankOneBackend(SolverBackend):
    """Power method + dual Douglas-Rachford with certified stopping (see the module docs).

    Options: ``trace_bound`` and ``interior`` (as for ``"lowrank"``; required), ``rounding``
    (a :class:`~sosproj.sdp.lowrank_support.TensorRounding`; required), ``gap_tol`` (certified
    relative gap, default ``10 * tol``), ``dual_margin`` (share of ``gap_tol`` given to the dual
    value's offset, default 0.5), ``starts`` (power-method starts, default 128), ``check_every``
    (default 5), ``relax`` (Douglas-Rachford relaxation in (0, 2), default 1.7: 19-27% fewer
    iterations than 1.0 on the six benchmark tensors at n = 20, 30,
    ``benchmarks/results_support/experiments/rankone_tuning.txt``), ``shift`` (start at ``shift * max(1, |p|) / N``
    times the identity, default 0), ``continuation`` (factors ``f``: certify ``f * gap_tol`` first,
    then tighten; default none: measured no gain at ``n = 30``), ``fallback`` (``"lowrank"`` or
    ``None``), ``rng`` (power-method starts).
    """

    name = "rankone"
    options = {"trace_bound": None, "interior": None, "rounding": None, "gap_tol": None, "dual_margin": 0.5,
               "starts": 128, "check_every": 5, "relax": 1.7, "shift": 0.0, "continuation": (),
               "fallback": "lowrank", "rng": 0}
    status_map = {"certified": "solved", "max_iter": "max_iter", "time_limit": "time_limit"}
    warm_start = False

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """Dense ``N x N`` work matrices of the dual iteration and the certifier's copies of ``A``.

        The low-rank fallback's workspace is checked separately when (and only if) it is needed:
        a fallback that does not fit is refused then, and the answer is reported unsolved."""
        N = max(cones.psd) if cones.psd else 1
        m_rest = cones.dim - cones.zero - svec_dim(N)
        return int(DualFeasibility.estimate_memory(N, n, m_rest) + 2 * 12 * nnz_A)

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **options: Any) -> None:
        super().__init__(problem, tol, max_iter, time_limit, **options)
        o = self.options
        if o["trace_bound"] is None or o["rounding"] is None:
            raise SolverNotAvailableError("solver 'rankone' needs a proven trace bound and a tensor rounding: "
                                          "use it through PseudoMomentSet.support on a unit-ball relaxation "
                                          "(support_route), or solver='lowrank' / 'admm'")
        if o["fallback"] not in ("lowrank", None):
            from sosproj.errors import InvalidParameterError

            raise InvalidParameterError("fallback must be 'lowrank' or None")
        self.feas = DualFeasibility(problem)
        self.certifier = SupportCertifier(problem, float(o["trace_bound"]), o["interior"])
        self.gap_tol = float(o["gap_tol"]) if o["gap_tol"] is not None else 10.0 * self.tol
        self.rounding = o["rounding"]
        self._q = problem.q
        self._fallback: Any = None
        self._built()

    def _lower(self, y: np.ndarray) -> dict[str, float]:
        return self.certifier.lower(self._q, y)

    def _fall_back(self, x: np.ndarray, y: np.ndarray, deadline: float | None, used: int) -> RawSolution:
        return lowrank_fallback(self, x, y, deadline, used)

    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """Candidate, dual certificate, fallback (module docs); ``warm_start`` is not used."""
        if q is not None:
            self._q = np.asarray(q, dtype=float)
        q = self._q
        o = self.options
        t0 = time.perf_counter()
        deadline = None if self.time_limit is None else t0 + self.time_limit
        val, z = self.rounding.best_point(q, starts=int(o["starts"]), rng=o["rng"])
        x = self.rounding.dirac(z)
        x_origin = self.rounding.dirac(np.zeros_like(z))
        if float(q @ x_origin) < float(q @ x):        # even k: the origin can be the maximizer
            x = x_origin
        pv = -float(q @ x)                             # value of an exactly feasible point
        margin = float(o["dual_margin"]) * self.gap_tol
        gap_tol = self.gap_tol
        tb = self.certifier.trace_bound
        N = self.feas.N
        screen = NegativeEigenpairs(N)
        best: dict[str, Any] = {}
        level = {"gap": gap_tol, "t": pv}

        def check(Z: np.ndarray, yr: np.ndarray) -> bool:
            t_now, goal = level["t"], level["gap"]
            lam, _ = screen(Z, 1e-3)          # a cheap estimate first: the verified one is O(N^3)
            est = t_now + tb * max(0.0, -float(lam[0]) if lam.size else 0.0)
            if (est - pv) / max(1.0, abs(est)) > goal:
                return False
            y = self.feas.dual_vector(t_now, Z, yr)
            low = self._lower(y)
            upper = -low["lower"]
            rel = (upper - pv) / max(1.0, abs(upper), abs(pv))
            if not best or rel < best["rel"]:
                best.update(rel=rel, low=low, y=y)
            return rel <= goal

        relax = float(o["relax"])
        if not 0.0 < relax < 2.0:
            from sosproj.errors import InvalidParameterError

            raise InvalidParameterError("relax must lie in (0, 2) (Douglas-Rachford relaxation)")
        max_iter = int(self.max_iter) if self.max_iter else DEFAULT_MAX_ITER
        # continuation: certify a looser gap first (a fatter dual set, fast), then tighten t
        # from the same Douglas-Rachford point
        factors = [float(f) for f in o["continuation"]] + [1.0]
        state = None
        iterations = 0
        run = None
        for f in factors:
            level["gap"] = f * gap_tol
            level["t"] = t = pv + f * margin * max(1.0, abs(pv))
            run = self.feas.run(q, t, max_iter=max_iter - iterations, deadline=deadline, check=check,
                                check_every=int(o["check_every"]), relax=relax, state=state,
                                shift=float(o["shift"]) * max(1.0, abs(pv)) / N)
            iterations += run.iterations
            state = run.state
            if run.status != "certified" or iterations >= max_iter:
                break
        assert run is not None
        t = level["t"]
        y = best["y"] if best and run.status != "certified" else run.y
        if run.status == "certified":
            y = best["y"]
        cert = self.certifier.bounds(q, x, y, point_value=float(q @ x), repair=False)
        extra: dict[str, Any] = {"rankone_status": run.status, "rankone_iterations": iterations,
                                 "rankone_candidate": pv, "rankone_dual_value": t,
                                 "rankone_krylov_share": run.krylov_share, "rankone_step": run.step}
        if cert["relative_gap"] <= gap_tol:
            status, raw_status = "solved", "certified"
        else:
            status = run.status if run.status in ("max_iter", "time_limit") else "max_iter"
            raw_status = "certified gap not reached"
        # a run that stopped at its time limit (the forecast stops before the deadline itself, keeping
        # the final certificate's time) is answered as such, not handed to a fallback for the reserve
        if status not in ("solved", "time_limit") and o["fallback"] == "lowrank" and (
                deadline is None or time.perf_counter() < deadline):
            try:
                raw = self._fall_back(x, y, deadline, iterations)
            except (ResourceLimitError, SolverNotAvailableError) as exc:   # too large for the ADMM: say so
                extra["fallback"] = f"refused: {exc}"
            else:
                extra["fallback"] = "lowrank"
                extra.update(raw.extra)
                return RawSolution(raw.x, raw.y, raw.s, raw.status, raw.raw_status, iterations + raw.iterations,
                                   time.perf_counter() - t0, self.setup_time, extra)
        extra.update({f"cert_{k}": float(v) for k, v in cert.items()})
        extra["cert_gap_tol"] = gap_tol
        s = self.problem.b - self.problem.A @ x
        return RawSolution(x, y, s, status, raw_status, iterations, time.perf_counter() - t0, self.setup_time, extra)


#: short alias
Backend = RankOneBackend

__all__ = ["RankOneBackend", "Backend", "DEFAULT_MAX_ITER", "lowrank_fallback"]
