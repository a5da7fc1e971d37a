r"""Rank-one candidate, a rough dual, then semismooth Newton on the face (``solver="rankone_newton"``).

For a support function of a tensor over the unit-ball relaxation
(:func:`~sosproj.sdp.lowrank_support.support_route` supplies the proven trace bound, the
interior point and the :class:`~sosproj.sdp.lowrank_support.TensorRounding`), this backend

1. takes the best point of a batched power method whose 32 best starts are converged to local
   maximizers by a trust-region Newton method (KKT residual in ``info["candidate_kkt_residual"]``;
   :meth:`~sosproj.sdp.lowrank_support.TensorRounding.best_point`): its Dirac moment vector
   :math:`\hat x` is an exactly feasible point of value :math:`\hat p`, the primal optimum when the
   relaxation is tight (rank-one moment matrix);
2. finds a **rough** dual certificate (for moment orders from :data:`DR_CAP_MIN_ORDER` below
   :data:`DR_CAP_MAX_ORDER`, first with partial projections onto the PSD cone, only the most
   negative eigenpairs per step, until the estimated gap is ``dr_cap_gap``), certified relative gap ``dr_gap`` (default
   :math:`2\cdot10^{-2}`), by the Douglas-Rachford iteration of ``solver="rankone"``
   (:class:`~sosproj.sdp.rankone_dual.DualFeasibility`) at the dual value
   :math:`\hat p(1 + \texttt{dr\_gap}/2)`, started at the closed-form flattening certificate
   (:func:`~sosproj.sdp.rankone_dual.flattening_certificate`) scaled to that value, with
   Chebyshev-filtered negative eigenpairs: the cheap, early part of that iteration;
3. polishes it by the **semismooth Newton augmented Lagrangian** of ``solver="ssnal"``
   (:class:`~sosproj.sdp.backends.ssnal.SsnalBackend`, started at :math:`(\hat x, y_{DR})`, one
   ADMM step as phase one) whose moment block is handled by
   :class:`~sosproj.sdp.partial_newton.PartialPsdBlock`: at a rank-one optimum
   :math:`W = Z - \sigma\hat Y` has a few negative eigenvalues, so the projection needs only those
   eigenpairs (warm-started block Krylov) and the Jacobian one Cholesky factorization per negative
   eigenvalue and Newton step; no full eigendecomposition while the iterate stays on that face.
   Near the solution the Newton system is close to :math:`A^\top\sigma A`, which is the ADMM's
   closed-form preconditioner, so CG needs a few dozen steps;
4. certifies the multiplier of **every augmented Lagrangian update** with
   :class:`~sosproj.sdp.support_bounds.SupportCertifier` (residual absorbed exactly, verified
   :math:`\lambda_{\min}`, proven trace bound) against :math:`\hat p` and stops at the first one
   within ``gap_tol``; a round ends when the Newton residuals reach its tolerance, and the next one
   tightens it tenfold from the last point (``rounds``, default 4).

Status ``"solved"`` only with a certified relative gap ``<= gap_tol``; otherwise
``"max_iter"`` / ``"time_limit"`` with the valid (wider) certified bounds in ``info``.
``x`` is always the feasible Dirac moment vector, ``y`` the best certified multiplier.
Why this order: Douglas-Rachford alone needs 230-1,345 steps at order 496 for a :math:`10^{-6}` gap
but reaches :math:`10^{-2}` in 30-130; the Newton method converges fast only from a dual point that
has the right face (``benchmarks/results_support/experiments/newton_*.txt``).

>>> import numpy as np
>>> from sosproj.poly import MomentRelaxation, unit_ball
>>> from sosproj.sdp import compile_support
>>> from sosproj.sdp.lowrank_support import support_route
>>> R = MomentRelaxation(unit_ball(4), 4)
>>> W = np.random.default_rng(0).standard_normal((4, 4, 4))
>>> prob = compile_support(R, 3, W)
>>> _, settings = support_route(R, "rankone_newton", 1e-7, 3)
>>> sol = RankOneNewtonBackend(prob, tol=1e-7, **settings).solve()
>>> sol.status, sol.raw_status, sol.extra["cert_relative_gap"] <= 1e-6
('solved', 'certified', True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError, ResourceLimitError, SolverNotAvailableError
from sosproj.sdp import partial_newton
from sosproj.sdp.backends.base import RawSolution, SolverBackend
from sosproj.sdp.backends.lowrank import _PartialPSDProjector
from sosproj.sdp.backends.rankone import lowrank_fallback
from sosproj.sdp.backends.ssnal import SsnalBackend
from sosproj.sdp.cones import Cones
from sosproj.sdp.conic import ConicProblem
from sosproj.sdp.gpu import check_device_memory, resolve_device
from sosproj.sdp.partial_newton import PartialPsdBlock
from sosproj.sdp.rankone_dual import RTOL_FACTOR, DualFeasibility, NegativeEigenpairs, flattening_certificate
from sosproj.sdp.support_bounds import SupportCertifier

#: Douglas-Rachford cap of the rough phase
DEFAULT_DR_MAX_ITER = 1000

#: measured peak workspace of a solve in dense ``N x N`` float64 matrices (at most 37-41, n = 24-64), with a margin
PEAK_DENSE_UNITS = 44

#: fixed part of the estimate (LAPACK workspaces, vectors of length ``n``), bytes
PEAK_FIXED_BYTES = 64 * 2 ** 20

#: initial penalty of the Newton phase below moment order :data:`DR_CAP_MIN_ORDER` (``sigma="auto"``); 3 before
#: issue 15's n30b session: with the exact Woodbury CG preconditioner (one CG step per Newton step) a large penalty
#: closes the gap in 1-2 Newton steps instead of 4-5 (n = 30: 0.57 s against 0.77 s CPU, median of 3 tensors x 2,
#: ``benchmarks/results_support/n30b/notes.md``)
DEFAULT_SIGMA = 1000.0

#: the penalty under ``sigma="auto"`` below moment order :data:`DR_CAP_MIN_ORDER` (the old default) of every
#: Newton round after the first, and of the first when the rough phase did not certify its ``dr_gap``: the large
#: penalty can stall the certified gap after a poor rough phase (n = 30, ``dr_max_iter=20``: 1.6e-6 after 4 rounds
#: on one of three tensors; n = 8: 1.2e-6), the small one certified those
#: (``benchmarks/results_support/n30b/notes.md``)
RETRY_SIGMA = 3.0

#: initial penalty of the Newton phase from moment order :data:`DR_CAP_MIN_ORDER` on (``sigma="auto"``), for a first
#: Newton round after a certified rough phase (the rule of :data:`RETRY_SIGMA`); 10 before issue 15's session 27:
#: with the exact Woodbury preconditioner the large penalty was faster at n = 48 (3 tensors, median 9.42 s against
#: 10.66 s, ``benchmarks/results_support/n30b/``) and n = 64 (2 tensors, ``benchmarks/results_support/lead27/``)
LARGE_ORDER_SIGMA = 1000.0

#: the penalty from moment order :data:`DR_CAP_MIN_ORDER` on of every Newton round after the first, and of the first
#: when the rough phase did not certify its ``dr_gap`` (the large-order default before session 27)
LARGE_ORDER_RETRY_SIGMA = 10.0

#: the rough phase's eigenpair residual tolerance per unit of the Douglas-Rachford step from moment order
#: :data:`DR_CAP_MIN_ORDER` on (``dr_rtol_factor="auto"``; below it and in ``solver="rankone"``:
#: :data:`~sosproj.sdp.rankone_dual.RTOL_FACTOR` = 0.05)
DR_RTOL_FACTOR = 0.25

#: eigenpairs of the full Douglas-Rachford stage's screen (a lambda_min estimate before the Cholesky check);
#: 0: every negative eigenpair, as before issue 15's n30 session
SCREEN_CAP = 1

#: the Newton phase's ``ssnal`` option ``tangent_reuse``: the Woodbury CG preconditioner of the face is kept from one
#: Newton step to the next while its dominant negative eigenpair moves by less than this (relative eigenvalue,
#: sine of the angle); 0 rebuilds it every step, as before issue 15's session 28. n = 64, first tensor, Newton
#: phase alone from the same rough dual: 62 -> 64 CG steps, 22.8 -> 17.4 s CPU
#: (``benchmarks/results_support/n64_28/``)
FACE_PRECOND_REUSE = 0.05

#: filter passes per Douglas-Rachford step of the rough phase before the exact partial decomposition takes over
#: (:class:`~sosproj.sdp.rankone_dual.NegativeEigenpairs`'s ``passes``)
DR_FILTER_PASSES = 3

#: ``dr_cap_screen="one"``: the capped stage's estimate runs :meth:`~sosproj.sdp.rankone_dual.NegativeEigenpairs.lowest`
#: (up to this many filter passes of the one-eigenpair screen)
CAPPED_SCREEN_PASSES = 12

#: moment order from which ``dr_cap="auto"`` caps the negative eigenpairs of the rough phase's first stage
DR_CAP_MIN_ORDER = 1000

#: moment order from which ``dr_cap="auto"`` no longer caps them (issue 15's session 28): at ``n = 100`` (order
#: 5,151) the capped stage needed 170 Douglas-Rachford steps with exact eigenpairs (310 with the filtered ones) to
#: reach its ``dr_cap_gap`` where the full projections reach the same estimate in 35-40 and a certified gap of
#: 4.2e-2 in 106 (``benchmarks/results_support/n100_28/``); at ``n = 64`` (order 2,145) the cap was measured faster
#: (``docs/bench_support.md``). Between the two orders the threshold is not measured
DR_CAP_MAX_ORDER = 4000


#: coupled rows (the localizing block's) the Newton phase's workspace accepts: its dense Woodbury matrix has that
#: order, one Cholesky per penalty, within :data:`PEAK_DENSE_UNITS` (the ADMM's own limit,
#: :data:`~sosproj.sdp.backends.admm.MAX_COUPLED_ROWS` = 4,000, refused the Newton phase at ``n = 100``: 5,151
#: coupled rows; before issue 15's session 29 every ``n >= 88`` solve that reached its Newton phase ended in that
#: refusal)
FACE_MAX_COUPLED_ROWS = 8000


#: certify the multiplier :math:`y_+` of a Newton step **inside** a subproblem (not only at the multiplier updates)
#: once an update has set the subproblem's dual-residual target :math:`t` (``dual_target``,
#: :meth:`RankOneNewtonBackend._dual_target`) and the step's relative dual residual is at most this times :math:`t`
#: (the linear model puts the absorption part at most 5 ``gap_tol`` there); a certified one (gap ``<= gap_tol``,
#: recomputed by the certifier as at an update) ends the solve there. ``None``: off (before issue 15's session 32).
#: 10, not 20: at ``n = 64`` 20 adds one refused check (0.44 s of 16 s), 10 none; at ``n = 48`` from a 0.6
#: hand-over both stop one Newton step early (``benchmarks/results_support/n100_32/``). Why: the target extrapolates
#: the absorption part linearly from the last update and halves it; at ``n = 100``
#: (``benchmarks/results_support/n100_31/``) the fourth subproblem ran 9 Newton steps (1,900 s CPU) to dual residual
#: 1e-6 for a certified gap of 3.1e-7 where 1e-5 was asked, its last four steps (~1,000 s) stalling between 1e-6 and
#: 7e-6 above a target the update's value could not reach. A check costs one :math:`\lambda_{\min}` bound (10-20 s at
#: order 5,151, against 130-260 s per Newton step there)
INNER_CHECK_FACTOR: float | None = 10.0

#: a further in-subproblem check only after the dual residual fell by this factor since the last one (at most a few
#: per subproblem)
INNER_CHECK_DROP = 0.5


#: the face solver's CG tolerance floor: each Newton system is solved to ``max(rtol, this)`` relative instead of the
#: parent's ``rtol = min(cg_rtol, max(0.1 dres, 1e-6))``; ``None``: the parent's (the default; tried in issue 15's
#: session 32, ``benchmarks/results_support/n100_32/notes.md``)
FACE_CG_RTOL_FLOOR: float | None = None


class _InnerCertified(Exception):
    """Raised by :meth:`_FaceSsnal._newton_dir` when ``inner_check`` certified the current step's multiplier: ends
    :meth:`SsnalBackend.solve` there (caught by :meth:`RankOneNewtonBackend.solve`, which holds that multiplier)."""


class _FaceSsnal(SsnalBackend):
    """:class:`SsnalBackend` whose largest PSD block is a :class:`PartialPsdBlock` (its decompositions on
    ``device`` when one is given)."""

    max_coupled_rows = FACE_MAX_COUPLED_ROWS

    def __init__(self, problem: ConicProblem, device: str | None = None, **kw: Any) -> None:
        kw.setdefault("tangent_reuse", FACE_PRECOND_REUSE)
        super().__init__(problem, **kw)
        big = max(range(len(self.blocks)), key=lambda i: self.blocks[i][1].d)
        sl, blk = self.blocks[big]
        self.face_block = PartialPsdBlock(blk.d, device=device)
        self.blocks[big] = (sl, self.face_block)
        # phase one (one ADMM step per round) projects Y - Z/rho, whose positive part has the rank of
        # the moment matrix (one): its top eigenpairs only, not a full eigendecomposition
        proj = _PartialPSDProjector(blk.d, device=device)
        proj.n_pos = 1
        self.psd_proj[blk.d] = proj
        self.prepare_tangent()          # the Woodbury preconditioner's maps, before the Newton phase's workspace
        #: ``(y) -> bool``: the caller's certificate of a Newton step's multiplier (:data:`INNER_CHECK_FACTOR`)
        self.inner_check: Callable[[np.ndarray], bool] | None = None
        self.inner_checks = 0           # in-subproblem certificates computed (all solves)
        self.newton_calls = 0           # Newton directions and their CG steps (all solves): the counts of a
        self.cg_calls = 0               # solve ended by _InnerCertified, which returns no RawSolution
        self._last_st: dict[str, Any] | None = None
        self._checked_dres = np.inf

    def _phi(self, x: np.ndarray, y: np.ndarray, q: np.ndarray, b: np.ndarray) -> tuple[float, dict[str, Any]]:
        """The parent's, remembering the state: every :meth:`_newton_dir` call follows the :meth:`_phi` of its
        iterate (the accepted line-search point, or the point after a multiplier update)."""
        val, st = super()._phi(x, y, q, b)
        self._last_st = st
        return val, st

    def _maybe_certify(self, grad: np.ndarray) -> None:
        """:data:`INNER_CHECK_FACTOR`: certify this iterate's multiplier ``y_+``; raise :class:`_InnerCertified`
        when the caller's ``inner_check`` accepts it."""
        fac, st, target = INNER_CHECK_FACTOR, self._last_st, self.inner_target
        if fac is None or self.inner_check is None or target is None or st is None:
            return
        dres = self._subproblem_dres(grad, st, self._q)
        if dres > fac * target or dres > INNER_CHECK_DROP * self._checked_dres:
            return
        self._checked_dres = dres
        self.inner_checks += 1
        if self.inner_check(st["yp"]):
            raise _InnerCertified

    def _newton_dir(self, grad: np.ndarray, active: np.ndarray, rtol: float) -> tuple[np.ndarray, int]:
        """The parent's CG, with the face block's full-path products in float32 while ``rtol`` is at least
        :data:`~sosproj.sdp.partial_newton.FULL_SINGLE_RTOL` (the line search and the residuals stay float64);
        before it, the in-subproblem certificate (:data:`INNER_CHECK_FACTOR`)."""
        self._maybe_certify(grad)
        if FACE_CG_RTOL_FLOOR is not None:
            rtol = max(rtol, FACE_CG_RTOL_FLOOR)
        lim = partial_newton.FULL_SINGLE_RTOL
        self.face_block.set_single(lim is not None and rtol >= lim)
        try:
            d, k = super()._newton_dir(grad, active, rtol)
        finally:
            self.face_block.set_single(False)
        self.newton_calls += 1
        self.cg_calls += k
        return d, k


class RankOneNewtonBackend(SolverBackend):
    r"""Power method, rough Douglas-Rachford dual, semismooth Newton polish (module docs).

    Options: ``trace_bound``, ``interior``, ``rounding`` (from ``support_route``; required),
    ``gap_tol`` (certified relative gap, default ``10 * tol``), ``starts`` (power-method starts,
    128), ``dr_gap`` (certified gap of the rough phase, 2e-2; 1e-2 before the filter), ``dr_max_iter``
    (its cap, 1000), ``start`` (``"flattening"``: the Douglas-Rachford start is the closed-form
    flattening certificate scaled to the dual value, :func:`~sosproj.sdp.rankone_dual.flattening_certificate`;
    ``"zero"``: the old start), ``eig`` (``"filter"``: Chebyshev-filtered negative eigenpairs,
    ``"krylov"``: the old block Krylov tracker; the defaults measured 1.3x / 1.8x faster than
    ``start="zero", eig="krylov", dr_gap=1e-2`` at ``n = 30`` / 48, a tie at 64, ``docs/bench_support.md``),
    ``dr_cap`` (``"auto"``: a first Douglas-Rachford stage with only the :math:`\lceil\sqrt N\,\rceil`
    most negative eigenpairs per step from moment order :data:`DR_CAP_MIN_ORDER` up to
    :data:`DR_CAP_MAX_ORDER`; a count; ``None``: off), ``dr_cap_gap`` (estimated gap at which that stage
    hands over to the full projections, 0.3; ``docs/bench_support.md``), ``dr_cap_check_every`` (steps between
    that stage's gap estimates, 10;
    5 before issue 15's seventh session: each estimate computes every negative eigenpair of the
    shadow, ``experiments/support7_prototypes.txt`` §5), ``dr_cap_screen`` (how that estimate gets
    :math:`\lambda_{\min}` of the shadow: ``"one"``, the one-eigenpair filter of the full stage's screen repeated until
    its Ritz value settles, :meth:`~sosproj.sdp.rankone_dual.NegativeEigenpairs.lowest`, default since issue 15's
    session 29: the same estimates to 1%, 3.9 s against 6.3 s of the rough phase at ``n = 64``,
    ``benchmarks/results_support/rough29/``; ``"all"``: every negative eigenpair of the shadow, as before),
    ``dr_rtol_factor`` (the rough phase's eigenpair
    residual tolerance per unit of the relative Douglas-Rachford step, capped at
    :data:`~sosproj.sdp.rankone_dual.RTOL_MAX`; ``"auto"``: :data:`DR_RTOL_FACTOR` = 0.25 from moment order
    :data:`DR_CAP_MIN_ORDER` on, :data:`~sosproj.sdp.rankone_dual.RTOL_FACTOR` = 0.05 below it and everywhere
    before issue 15's eighth session: at ``n = 64`` the full stage's filtered eigenpairs then failed the
    residual test in most calls and a quarter of the calls fell back to the exact decomposition,
    ``docs/bench_support.md``), ``fallback`` (``"lowrank"``: without a certificate hand over to the low-rank
    ADMM, as ``"rankone"`` does; default ``None``: return the valid, wider bounds unsolved),
    ``newton_tol`` (first residual tolerance of the Newton phase, default ``10 * gap_tol`` with
    ``check_updates``: one round, stopped by the certificate, ``experiments/support6_sweep.py``; without it
    ``1000 * gap_tol``: the certified gap of the multiplier is far below the residuals,
    ``experiments/newton_sweep.txt``), ``rounds``
    (tenfold tightenings, 4), ``check_updates`` (certify every multiplier update of the Newton phase and
    stop at the first within ``gap_tol``, True; ``False``: certify only at the end of each round, as
    before: a round whose last update missed ``gap_tol`` narrowly cost a whole further round,
    ``docs/bench_support.md``), ``dual_target`` (True: once an update's value part is within
    ``gap_tol / 2``, ask the next Newton subproblem for the dual residual that the certificate
    needs, :meth:`_dual_target`; False: the subproblems' own targets, as before), ``sigma``
    (initial penalty of the Newton phase; ``"auto"``:
    :data:`LARGE_ORDER_SIGMA` = 1000 from moment order :data:`DR_CAP_MIN_ORDER` on (10 before session 27, itself
    1.09x / 1.19x faster than 3 on two ``n = 64`` tensors, ``experiments/support6_sigma64_t*.txt``), later rounds
    and a first round after an uncertified rough phase at :data:`LARGE_ORDER_RETRY_SIGMA` = 10; below it
    :data:`DEFAULT_SIGMA` = 1000 (3 before issue 15's n30b session, when ``newton_tol`` 1e-3 and 3 were the
    fastest pair at ``n = 30`` in ``experiments/newton_sweep.txt``; with the exact Woodbury preconditioner of
    the Newton systems a large penalty needs fewer Newton steps, ``benchmarks/results_support/n30b/notes.md``)),
    ``rng`` (power-method starts).
    ``max_iter`` caps the Newton steps of each round (default that of ``ssnal``).
    ``device`` (None: the host, unchanged; ``"cpu"`` / ``"cuda[:K]"`` / ``"auto"``,
    :func:`~sosproj.sdp.gpu.resolve_device`): the negative (and phase one's top) eigenpairs of the
    rough phase and of the Newton phase come from full decompositions on that PyTorch device
    (:class:`~sosproj.sdp.rankone_dual.NegativeEigenpairs`'s ``device``); iterates, checks and the
    certificate stay on the host in float64; the device memory is estimated and refused up front.
    """

    name = "rankone_newton"
    options = {"trace_bound": None, "interior": None, "rounding": None, "gap_tol": None, "starts": 128,
               "dr_gap": 2e-2, "dr_max_iter": DEFAULT_DR_MAX_ITER, "newton_tol": None, "rounds": 4,
               "sigma": "auto", "start": "flattening", "eig": "filter", "dr_cap": "auto", "dr_cap_gap": 0.3,
               "dr_cap_check_every": 10, "dr_cap_screen": "one", "dr_rtol_factor": "auto", "dual_target": True,
               "check_updates": True, "fallback": None, "rng": 0, "device": None}
    status_map = {"certified": "solved", "max_iter": "max_iter", "time_limit": "time_limit"}
    warm_start = False

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        r"""Peak bytes of the workspace: :data:`PEAK_DENSE_UNITS` dense :math:`N\times N` float64 matrices
        of the moment order :math:`N` plus :data:`PEAK_FIXED_BYTES`.

        Measured, not summed: the rough phase's matrices are freed before the Newton phase allocates
        its own (its ADMM and semismooth Newton vectors have length :math:`m \approx N^2/2`, the Newton
        block's Cholesky factors are :math:`N\times N`), so the sum of the parts (about 60 matrices,
        the estimate before issue 15's sixth session) was 1.4-1.7 times the measured peak; every
        part scales as :math:`N^2` on this structure. The peak resident set of a whole solve, after
        the problem is compiled, was 36.0 matrices at ``n = 40, 48``, 41.0 at ``n = 32`` (small
        fixed parts) and 42.5 at ``n = 64`` before this session's cuts, 23.6-37.0 at ``n = 48, 64``
        after them (``benchmarks/results_support/experiments/support6_memory.txt``,
        ``support6_same_run.txt``)."""
        N = max(cones.psd) if cones.psd else 1
        return int(8 * PEAK_DENSE_UNITS * N * N + PEAK_FIXED_BYTES)

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **options: Any) -> None:
        super().__init__(problem, tol, max_iter, time_limit, **options)
        o = self.options
        if o["trace_bound"] is None or o["rounding"] is None:
            raise SolverNotAvailableError("solver 'rankone_newton' needs a proven trace bound and a tensor rounding: "
                                          "use it through PseudoMomentSet.support on a unit-ball relaxation "
                                          "(support_route), or solver='rankone' / 'admm'")
        self.gap_tol = float(o["gap_tol"]) if o["gap_tol"] is not None else 10.0 * self.tol
        self.dr_gap = float(o["dr_gap"])
        self.rounds = int(o["rounds"])
        if isinstance(o["sigma"], str) and o["sigma"] == "auto":      # a function of the size only
            big = max(problem.cones.psd, default=0)
            self.sigma = LARGE_ORDER_SIGMA if big >= DR_CAP_MIN_ORDER else DEFAULT_SIGMA
            self.retry_sigma = LARGE_ORDER_RETRY_SIGMA if big >= DR_CAP_MIN_ORDER else RETRY_SIGMA
        elif isinstance(o["sigma"], (int, float, np.integer, np.floating)) and not isinstance(o["sigma"], bool):
            self.sigma = float(o["sigma"])
            self.retry_sigma = None
        else:
            self.sigma = float("nan")          # refused below
            self.retry_sigma = None
        if not (self.gap_tol > 0 and self.dr_gap > 0 and self.rounds >= 1 and self.sigma > 0
                and int(o["dr_max_iter"]) >= 0 and int(o["starts"]) >= 1 and o["start"] in ("flattening", "zero")
                and o["eig"] in ("krylov", "filter") and o["fallback"] in ("lowrank", None)
                and (o["dr_cap"] in ("auto", None) or (isinstance(o["dr_cap"], (int, np.integer))
                                                      and not isinstance(o["dr_cap"], bool) and o["dr_cap"] >= 1))
                and float(o["dr_cap_gap"]) > 0 and int(o["dr_cap_check_every"]) >= 1
                and o["dr_cap_screen"] in ("one", "all")
                and (o["dr_rtol_factor"] == "auto"
                     or (isinstance(o["dr_rtol_factor"], (int, float, np.integer, np.floating))
                         and not isinstance(o["dr_rtol_factor"], bool) and 0 < float(o["dr_rtol_factor"]) < np.inf))
                and isinstance(o["dual_target"], (bool, np.bool_))
                and isinstance(o["check_updates"], (bool, np.bool_))):
            raise InvalidParameterError("rankone_newton options: gap_tol > 0, dr_gap > 0, rounds >= 1, "
                                        "sigma > 0 or 'auto', "
                                        "dr_max_iter >= 0, starts >= 1, start 'flattening' or 'zero', "
                                        "eig 'krylov' or 'filter', fallback 'lowrank' or None, dr_cap 'auto', None or "
                                        "a positive count, dr_cap_gap > 0, dr_cap_check_every >= 1, "
                                        "dr_cap_screen 'one' or 'all', "
                                        "dr_rtol_factor 'auto' or > 0, "
                                        "dual_target and check_updates True or False")
        self.device = resolve_device(o["device"])
        if self.device is not None:
            check_device_memory(max(problem.cones.psd), self.device, "solver='rankone_newton' (moment block)")
        self.feas = DualFeasibility(problem)
        self.certifier = SupportCertifier(problem, float(o["trace_bound"]), o["interior"])
        self.rounding = o["rounding"]
        self._q = problem.q
        self._newton: _FaceSsnal | None = None
        self._fallback: Any = None
        self._built()

    def _cap(self) -> int | None:
        r"""Negative eigenpairs per step of the capped stage: ``dr_cap``, or with ``"auto"``
        :math:`\lceil\sqrt N\,\rceil` (about :math:`n/\sqrt2` for the moment order
        :math:`N = \binom{n+2}{2}`: 35 at ``n = 48``, 47 at 64) from order :data:`DR_CAP_MIN_ORDER`
        up to :data:`DR_CAP_MAX_ORDER` (off from there: at ``n = 100`` the full projections need far fewer
        steps); a function of the size only (``experiments/support5_prototypes.txt``,
        ``benchmarks/results_support/n100_28/``)."""
        cap = self.options["dr_cap"]
        if cap == "auto":
            N = self.feas.N
            return int(np.ceil(np.sqrt(N))) if DR_CAP_MIN_ORDER <= N < DR_CAP_MAX_ORDER else None
        return None if cap is None else int(cap)

    def _rtol_factor(self) -> float:
        r"""The rough phase's eigenpair tolerance per unit step: ``dr_rtol_factor``, or with ``"auto"``
        :data:`DR_RTOL_FACTOR` from moment order :data:`DR_CAP_MIN_ORDER` on and
        :data:`~sosproj.sdp.rankone_dual.RTOL_FACTOR` below it (a function of the size only)."""
        f = self.options["dr_rtol_factor"]
        if isinstance(f, str):
            return DR_RTOL_FACTOR if self.feas.N >= DR_CAP_MIN_ORDER else RTOL_FACTOR
        return float(f)

    def _start(self, q: np.ndarray, t: float) -> tuple[tuple[np.ndarray, np.ndarray] | None, float | None]:
        """Douglas-Rachford start: the flattening certificate scaled to ``t`` (``start="flattening"``,
        when it applies) or zero; and the flattening bound (``None`` without one)."""
        if self.options["start"] != "flattening" or getattr(self.rounding, "k", None) != 3:
            return None, None
        blocks = self.rounding.R.psd_blocks
        loc = [b for b in blocks if b.kind == "localizing"]
        if len(loc) != 1:
            return None, None
        fc = flattening_certificate(self.feas, q, self.rounding.tensor(q), blocks[0].basis, loc[0].basis)
        if fc is None:
            return None, None
        scale = min(1.0, t / fc.bound)
        return (scale * fc.Z, scale * fc.yr), fc.bound

    def _origin_moments(self, z: np.ndarray) -> np.ndarray:
        r"""The Dirac moments of the origin: :math:`0^\alpha`, one at the constant monomial and zero elsewhere
        on a relaxation without reduction (a unit ball; 13 ms less than ``rounding.dirac`` at ``n = 30``),
        else ``rounding.dirac(0)``."""
        R = self.rounding.R
        if getattr(getattr(R.system, "reduction", None), "kind", None) == "free":
            E = np.asarray(R.monomials)
            if E.ndim == 2 and E.shape[0] == self.problem.n:
                const = np.flatnonzero(~E[:1].any(axis=1)) if E.shape[0] else np.zeros(0, dtype=int)
                if const.size == 0:
                    const = np.flatnonzero(~E.any(axis=1))
                if const.size == 1:
                    out = np.zeros(E.shape[0])
                    out[const[0]] = 1.0
                    return out
        return self.rounding.dirac(np.zeros_like(z))

    def _rough_dual(self, q: np.ndarray, pv: float, deadline: float | None
                    ) -> tuple[np.ndarray, int, str, float | None, int, str]:
        """Douglas-Rachford to the certified gap ``dr_gap`` (the cheap screen of ``rankone`` first).

        With ``dr_cap``, a first stage projects onto the PSD cone only partially (the ``dr_cap``
        most negative eigenpairs per step) until the estimated gap is ``dr_cap_gap``; the second
        stage continues from its Douglas-Rachford point with full projections. Returns the dual
        vector, the steps of both stages, the status, the flattening bound, the capped stage's steps
        and status (``"certified"``: it reached ``dr_cap_gap``; ``"max_iter"``: it did not and the
        full projections took over; ``"off"``: no cap)."""
        feas, tb, goal = self.feas, self.certifier.trace_bound, self.dr_gap
        t = pv + 0.5 * goal * max(1.0, abs(pv))
        state, flat_bound = self._start(q, t)
        method = str(self.options["eig"])
        cap = self._cap() if method == "filter" else None
        max_iter = max(1, int(self.options["dr_max_iter"]))
        screen = NegativeEigenpairs(feas.N, method=method, device=self.device)
        rtol_factor = self._rtol_factor()
        # the screens need lambda_min(Z) only: a filter capped at one eigenpair (a block of SCREEN_CAP + 6
        # columns) instead of every negative eigenpair. Its Ritz value is >= lambda_min, so the screen can only
        # err on the optimistic side: the full stage's Cholesky check below decides, and the capped stage's
        # estimate only decides when the full projections take over
        tight = (NegativeEigenpairs(feas.N, method="filter", cap=SCREEN_CAP, device=self.device)
                 if method == "filter" and SCREEN_CAP else screen)
        capped_screen, capped_passes = ((tight, CAPPED_SCREEN_PASSES) if self.options["dr_cap_screen"] == "one"
                                        and tight is not screen else (screen, 1))

        def estimate(Z: np.ndarray, tracker: NegativeEigenpairs = tight, passes: int = 1) -> float:
            if passes > 1:
                low = tracker.lowest(Z, passes)
            else:
                lam, _ = tracker(Z, 1e-3)
                low = float(lam[0]) if lam.size else 0.0
            est = t + tb * max(0.0, -low)
            return (est - pv) / max(1.0, abs(est))

        capped_steps, capped_status = 0, "off"
        neg = NegativeEigenpairs(feas.N, method=method, device=self.device, passes=DR_FILTER_PASSES)
        if flat_bound is not None and cap is None:
            # the flattening start's first reflection has about n negative eigenvalues (30-31 at n = 30): the
            # first exact decomposition asks for that many at once instead of doubling from 6 (6, 12, 24,
            # 48: four partial decompositions). A hint only: it still doubles while the last one is negative
            neg.n_neg = int(self.rounding.R.system.n_vars)
        if cap is not None:
            # stage one: partial projections; without its goal within half the cap it hands over
            # to the full projections anyway (from its last point) and says so
            goal1 = float(self.options["dr_cap_gap"])
            neg1 = NegativeEigenpairs(feas.N, method=method, cap=cap, device=self.device, passes=DR_FILTER_PASSES)
            run = feas.run(q, t, max_iter=max(1, max_iter // 2), deadline=deadline, relax=1.7, state=state,
                           neg=neg1, check=lambda Z, yr: estimate(Z, capped_screen, capped_passes) <= goal1,
                           check_every=int(self.options["dr_cap_check_every"]), rtol_factor=rtol_factor)
            capped_steps, capped_status = run.iterations, run.status
            state, neg = run.state, neg1.uncapped()
            if run.status == "time_limit":
                return run.y, run.iterations, run.status, flat_bound, capped_steps, capped_status

        def check(Z: np.ndarray, yr: np.ndarray) -> bool:
            if estimate(Z) > goal:
                return False
            # certified upper bound <= pv + goal max(1, |pv|), shown by one Cholesky factorization
            return self.certifier.verifies(q, feas.dual_vector(t, Z, yr), -(pv + goal * max(1.0, abs(pv))))

        run = feas.run(q, t, max_iter=max_iter - capped_steps, deadline=deadline, check=check,
                       relax=1.7, state=state, neg=neg, rtol_factor=rtol_factor)
        return run.y, capped_steps + run.iterations, run.status, flat_bound, capped_steps, capped_status

    def _dual_target(self, q: np.ndarray, y: np.ndarray, low: dict[str, float], pv: float,
                     rel: float) -> float | None:
        r"""The Newton subproblems' dual-residual target after a multiplier update that missed ``gap_tol``.

        The update's certified gap is a **value part** :math:`(b^\top y' - \hat p)/s` (the multiplier's
        dual objective against the candidate) plus an **absorption part** :math:`\beta\max(0,
        -\lambda_{\min}(Z'))/s` (what absorbing the dual residual :math:`r = q + A^\top y` into the moment
        block costs; the multiplier's own block is PSD). Measured at ``n = 64``
        (``experiments/support7_prototypes.txt`` §1, §6): the value part falls below :math:`10^{-5}` within 2-4
        updates (before that it is also negative, down to :math:`-10^{-2}`: a large residual absorbed along
        the Dirac point), the absorption part follows :math:`\|r\|_\infty` and stays at :math:`10^{-4}`-:math:`10^{-3}`
        for five more, because the subproblems end at relative dual residuals of
        :math:`10^{-2}`-:math:`10^{-5}`. Once the value part is within :math:`\pm` ``gap_tol / 2`` the next subproblem
        is asked for the dual residual at which the absorption part would be ``gap_tol / 2`` (linear in
        :math:`\|r\|`, from this update's ratio); ``None`` (no change) otherwise."""
        scale = max(1.0, abs(low["lower"]), abs(pv))
        value = (-low["dual_value"] - pv) / scale
        absorb = rel - value
        r_inf = float(low["dual_residual_inf"])
        if not (abs(value) <= 0.5 * self.gap_tol and absorb > 0 and r_inf > 0):
            return None
        aty = self.certifier.AT @ y
        norm = 1.0 + max(float(np.linalg.norm(aty, np.inf)), float(np.linalg.norm(q, np.inf)))
        return r_inf / norm * min(1.0, 0.5 * self.gap_tol / absorb)

    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """Candidate, rough dual, Newton polish with certified stopping (module docs); no warm start."""
        if q is not None:
            self._q = np.asarray(q, dtype=float)
        q = self._q
        o = self.options
        p = self.problem
        t0 = time.perf_counter()
        deadline = None if self.time_limit is None else t0 + self.time_limit
        # the final certificate (one lambda_min bound of order N, timed on the interior point at setup) is
        # owed after the work: the rough and Newton phases stop that much earlier
        work_deadline = None if deadline is None else deadline - self.certifier.lambda_min_seconds
        _, z = self.rounding.best_point(q, starts=int(o["starts"]), rng=o["rng"])
        x = self.rounding.dirac(z)
        x_origin = self._origin_moments(z)
        if float(q @ x_origin) < float(q @ x):        # even k: the origin can be the maximizer
            x = x_origin
        pv = -float(q @ x)
        y, dr_iter, dr_status, flat_bound, capped, capped_status = self._rough_dual(q, pv, work_deadline)
        cand_info = getattr(self.rounding, "last_info", None) or {}
        extra: dict[str, Any] = {"candidate": pv, "candidate_kkt_residual": cand_info.get("kkt_residual"),
                                 "candidate_power_value": cand_info.get("power_value"),
                                 "dr_iterations": dr_iter, "dr_status": dr_status,
                                 "dr_capped_iterations": capped, "dr_capped_status": capped_status,
                                 "flattening_bound": flat_bound}

        def certify(yv: np.ndarray) -> tuple[float, dict[str, float]]:
            low = self.certifier.lower(q, yv)
            return (-low["lower"] - pv) / max(1.0, abs(low["lower"]), abs(pv)), low

        # out of time: the final certificate below is the only one (a second order-N bound here overshot a
        # 600 s limit by about as much again at order 5,151)
        # the rough phase's Cholesky check showed a certified gap <= dr_gap: with dr_gap > gap_tol the Newton
        # phase runs whatever the exact gap, so its lambda_min bound is not computed here (the final
        # certificate recomputes it if this multiplier stays the best)
        best_low: dict[str, float] | None = None
        if dr_status == "time_limit":
            best_rel = float("inf")
        elif dr_status == "certified" and self.dr_gap > self.gap_tol:
            best_rel = self.dr_gap
        else:
            best_rel, best_low = certify(y)
        best_y = y
        best: dict[str, Any] = {"rel": best_rel, "y": best_y, "low": best_low}
        checks = [0]

        def certify_keep_best(yv: np.ndarray) -> tuple[float, float] | None:
            # the certificate of a multiplier (None when it is not finite), the best one kept
            if not np.all(np.isfinite(yv)):
                return None
            rel, low = certify(yv)
            if rel < best["rel"]:
                best["rel"], best["y"], best["low"] = rel, yv.copy(), low
            return rel, low

        def stop_check(_x: np.ndarray, yv: np.ndarray, _s: np.ndarray) -> bool:
            # certify every multiplier update of the Newton phase (one lambda_min bound, cheap against
            # a Newton step): stop at the first one within gap_tol instead of at the end of a round
            checks[0] += 1
            got = certify_keep_best(yv)
            if got is None:
                return False
            rel, low = got
            if rel > self.gap_tol and o["dual_target"] and self._newton is not None:
                self._newton.inner_target = self._dual_target(q, yv, low, pv, rel)
                self._newton._checked_dres = np.inf
            return rel <= self.gap_tol

        def inner_check(yv: np.ndarray) -> bool:
            # a Newton step's multiplier inside a subproblem (INNER_CHECK_FACTOR): the same certificate
            got = certify_keep_best(yv)
            return got is not None and got[0] <= self.gap_tol

        newton_steps = cg = 0
        inner_stop = False
        status = "max_iter"
        rounds = 0
        if o["newton_tol"] is not None:
            tol = float(o["newton_tol"])
        else:   # with a certificate per update one round to 10 gap_tol; without, rounds from 1000 gap_tol
            tol = (10.0 if o["check_updates"] else 1000.0) * self.gap_tol
        xs, ys, ss = x, y, p.b - p.A @ x
        if self._newton is not None:      # a workspace reused for another q: its subproblems' own targets
            self._newton.inner_target = None
            self._newton.inner_checks, self._newton._checked_dres = 0, np.inf
        while best_rel > self.gap_tol and rounds < self.rounds:
            remaining = None if work_deadline is None else work_deadline - time.perf_counter()
            if dr_status == "time_limit" or (remaining is not None and remaining <= 0):
                status = "time_limit"
                break
            rounds += 1
            if self._newton is None:
                self._newton = _FaceSsnal(p, tol=tol, max_iter=self.max_iter, time_limit=remaining,
                                          admm_tol=1.0, admm_max_iter=1, rho=self.sigma, device=self.device)
            nw = self._newton
            # sigma="auto": the large penalty for a first round after a certified rough phase, the old one
            # otherwise (a poor hand-over, any later round)
            large_ok = rounds == 1 and dr_status == "certified"
            want = self.sigma if large_ok or self.retry_sigma is None else self.retry_sigma
            if nw.rho != want:
                nw.rho = want
                nw._factor()
            nw.tol, nw.time_limit = tol, remaining
            nw.stop_check = stop_check if o["check_updates"] else None
            nw.inner_check = inner_check if o["check_updates"] else None
            calls0, cg0 = nw.newton_calls, nw.cg_calls
            try:
                raw = nw.solve(q, warm_start=(xs, ys, ss))
            except _InnerCertified:       # a Newton step's multiplier certified within gap_tol: best holds it
                newton_steps += nw.newton_calls - calls0
                cg += nw.cg_calls - cg0
                best_rel, best_y = best["rel"], best["y"]
                inner_stop = True
                break
            newton_steps += int(raw.extra.get("ssnal_newton", 0))
            cg += int(raw.extra.get("ssnal_cg", 0))
            best_rel, best_y = best["rel"], best["y"]
            if raw.y is None or not np.all(np.isfinite(raw.y)):
                break
            if nw.stop_check is None or raw.raw_status.startswith("phase one"):   # not certified yet
                rel, low = certify(raw.y)
                if rel < best_rel:
                    best_rel, best_y = rel, raw.y.copy()
                    best["low"] = low
                best["rel"], best["y"] = best_rel, best_y
            if raw.status == "time_limit":
                status = "time_limit"
                break
            xs, ys, ss = raw.x, raw.y, raw.s
            tol /= 10.0
        # the best multiplier's lambda_min bound, computed by the same certifier on this very vector, is reused
        cert = self.certifier.bounds(q, x, best_y, point_value=float(q @ x), repair=False, low=best["low"])
        if cert["relative_gap"] <= self.gap_tol:
            status, raw_status = "solved", "certified"
        else:
            if deadline is not None and time.perf_counter() > deadline:
                status = "time_limit"
            raw_status = "certified gap not reached"
        blk = self._newton.face_block if self._newton is not None else None
        extra.update({"newton_rounds": rounds, "newton_steps": newton_steps, "newton_cg": cg,
                      "newton_update_checks": checks[0],
                      "newton_inner_checks": self._newton.inner_checks if self._newton is not None else 0,
                      "newton_inner_stop": inner_stop,
                      "partial_decompositions": blk.partial_calls if blk else 0,
                      "full_decompositions": blk.full_calls if blk else 0,
                      "missed_decompositions": blk.missed_calls if blk else 0})
        # a run that stopped at its time limit (the forecast stops before the deadline itself, keeping
        # the final certificate's time) is answered as such, not handed to a fallback for the reserve
        if status not in ("solved", "time_limit") and o["fallback"] == "lowrank" and (
                deadline is None or time.perf_counter() < deadline):
            try:
                fb = lowrank_fallback(self, x, best_y, deadline, dr_iter + newton_steps)
            except (ResourceLimitError, SolverNotAvailableError) as exc:   # too large for the ADMM: say so
                extra["fallback"] = f"refused: {exc}"
            else:
                extra["fallback"] = "lowrank"
                extra.update(fb.extra)
                return RawSolution(fb.x, fb.y, fb.s, fb.status, fb.raw_status, dr_iter + newton_steps + fb.iterations,
                                   time.perf_counter() - t0, self.setup_time, extra)
        extra.update({f"cert_{k}": float(v) for k, v in cert.items()})
        extra["cert_gap_tol"] = self.gap_tol
        s = p.b - p.A @ x
        return RawSolution(x, best_y, s, status, raw_status, dr_iter + newton_steps, time.perf_counter() - t0,
                           self.setup_time, extra)


#: short alias
Backend = RankOneNewtonBackend

__all__ = ["RankOneNewtonBackend", "Backend", "DEFAULT_DR_MAX_ITER", "DR_CAP_MIN_ORDER", "DR_CAP_MAX_ORDER",
           "DR_RTOL_FACTOR",
           "PEAK_DENSE_UNITS", "PEAK_FIXED_BYTES", "DEFAULT_SIGMA", "LARGE_ORDER_SIGMA",
           "RETRY_SIGMA", "LARGE_ORDER_RETRY_SIGMA", "FACE_PRECOND_REUSE", "FACE_MAX_COUPLED_ROWS", "DR_FILTER_PASSES",
           "CAPPED_SCREEN_PASSES"]
