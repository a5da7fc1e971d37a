r"""Low-rank ADMM for support functions over pseudo-moments, with certified bounds (``solver="lowrank"``).

The structured ADMM of :mod:`sosproj.sdp.backends.admm` spends almost all its time in one
full eigendecomposition of the moment matrix per iteration. For linear objectives
(support functions) the optimal moment matrix has low rank (rank one when the relaxation
is tight at a unique maximizer), so the iterate :math:`w` of the Douglas-Rachford
splitting has only a few positive eigenvalues, and the projection

.. math::

    \Pi_{\mathcal S_+}(w) = \sum_{\lambda_i > 0} \lambda_i v_i v_i^\top

needs only those eigenpairs. This backend keeps every step of the ADMM and replaces the
projection of large blocks by a **partial eigendecomposition**: a warm-started block Krylov
Rayleigh-Ritz step from the previous top eigenvectors (accepted when its residuals are below
a tolerance tied to the ADMM's residual level), else LAPACK's MRRR (``syevr``) on the top
eigenvalues only (in single precision while the residuals are far above float32 accuracy),
or a full ``eigh`` when a third of the spectrum is positive. Anderson memory is capped by a
memory budget (large blocks).

**Certified stopping.** With ``trace_bound`` (a proven bound on the trace of the largest
PSD block over the feasible set) and optionally ``interior`` (a strictly feasible
point), every time the residuals reach ``tol`` the answer is certified by
:class:`~sosproj.sdp.support_bounds.SupportCertifier` (dual repair + Cholesky-verified
:math:`\lambda_{\min}`; primal repair by mixing with the interior point). If the
certified relative gap is above ``gap_tol`` the ADMM continues from where it stopped
with a ten times smaller ``tol`` (up to ``max_iter`` / ``time_limit``); the status is
``"solved"`` only when the certified gap is met, the certificate (``cert_*`` entries) is
always reported. With an interior point the returned ``x`` is the **repaired, exactly feasible**
point or the rounded Dirac point, whichever is better (so the reported objective is a certified
primal value; ``extra["repaired_mix"]`` is the mixing weight), not the last ADMM iterate.
Without ``trace_bound`` the backend behaves like ``"admm"`` with partial eigendecompositions; on
projections (least-squares costs) it projects from the smaller side of the spectrum with the
projection penalty and Anderson memory (:class:`LowrankBackend`, docs/sdp.md section 14).

References: Burer & Monteiro (2003) for low-rank SDP; the partial-eigendecomposition ADMM
follows the observation of SDPNAL+/ManiSDP that only the positive spectrum of the
iterate is needed; certification after Jansson, Chaykin & Keil (2007).

>>> import numpy as np
>>> from sosproj.poly import MomentRelaxation, unit_ball
>>> from sosproj.sdp import compile_support
>>> from sosproj.sdp.support_bounds import moment_trace_bound, ball_interior_moments
>>> R = MomentRelaxation(unit_ball(3), 4)
>>> W = np.zeros((3, 3, 3)); W[0, 0, 0] = 1.0
>>> prob = compile_support(R, 3, W)
>>> sol = Backend(prob, tol=1e-8, trace_bound=moment_trace_bound(R),
...               interior=ball_interior_moments(R)).solve()
>>> sol.status, round(-sol.extra["cert_lower"], 6)       # max x_0^3 on the unit ball
('solved', 1.0)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.linalg as sla

from sosproj.errors import InvalidParameterError
from sosproj.sdp.backends.admm import AdmmBackend
from sosproj.sdp.backends.base import RawSolution
from sosproj.sdp.backends.side_spectrum import STEIN_CLUSTER_LIMIT, mrrr_share_limit, side_eigh, side_gram
from sosproj.sdp.cones import Cones, PSDProjector, ritz_block
from sosproj.sdp.conic import ConicProblem
from sosproj.sdp.gpu import TorchPSDProjector, check_device_memory, device_eigh, resolve_device

#: blocks of at least this order get the partial eigendecomposition
PARTIAL_MIN_ORDER = 100

#: Krylov/residual tolerance from which the partial eigendecomposition runs in single precision
SINGLE_PRECISION_RTOL = 1e-5

#: bytes allowed for the Anderson history (two ring buffers of length-m vectors)
ANDERSON_BYTES = 1.5e9

#: projections (least-squares costs): Anderson memory and initial penalty over the ADMM's default
#: (median of diag(P)); measured on unit-ball ``dp`` / ``boundary`` inputs, n = 16-30
#: (docs/bench_sdp.md, "Projections with the smaller side of the spectrum")
PROJECTION_ANDERSON = 15
PROJECTION_RHO_FACTOR = 2.0


class _PartialPSDProjector(PSDProjector):
    r"""PSD projection from the positive eigenpairs only.

    Each call first tries a **warm-started block Krylov** step: from the previous top Ritz
    vectors :math:`X` (the positive ones plus ``extra`` more), Rayleigh-Ritz on
    :math:`\operatorname{span}[X, MX, M^2X]`; it is accepted when the (new) positive Ritz
    pairs have residuals :math:`\|Mu - \theta u\| \le` ``rtol`` :math:`\|M\|_F` and at least
    one Ritz value of the block is negative. Otherwise (and every ``resync`` calls) LAPACK's
    MRRR (``syevr``) computes the top ``n_pos + extra`` eigenpairs exactly, or a full
    ``eigh`` runs when many eigenvalues are positive. With ``device`` (a resolved PyTorch device,
    :mod:`sosproj.sdp.gpu`) that exact step is one full decomposition there
    (:func:`~sosproj.sdp.gpu.device_eigh`, same precision rule) of which the positive eigenpairs and
    ``extra`` more come back.
    """

    def __init__(self, d: int, extra: int = 6, rtol: float = 1e-9, resync: int = 50,
                 device: str | None = None) -> None:
        super().__init__(d)
        self.device = device
        self.n_pos = d
        self.extra = int(extra)
        self.rtol = float(rtol)
        self.resync = int(resync)
        self.X: np.ndarray | None = None
        self.calls = self.krylov_accepted = 0

    def _matrix(self, v: np.ndarray) -> np.ndarray:
        M = self.buf
        vals = v / self.scale
        M.flat[self.lower] = vals
        M.flat[self.upper] = vals
        return M

    def __call__(self, v: np.ndarray) -> np.ndarray:
        self.calls += 1
        M = self._matrix(v)
        out = None
        if self.X is not None and self.calls % self.resync != 0:
            out = self._krylov(M)
        if out is None:
            out = self._exact(M)
        lam, V = out
        if lam.size == 0:
            return np.zeros_like(v)
        Pm = (V * lam) @ V.T
        return Pm.flat[self.lower] * self.scale

    def _krylov(self, M: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        X = self.X
        assert X is not None
        theta_k, Y, MY, _ = ritz_block(M, X, "largest")
        k = X.shape[1]
        pos = theta_k > 0
        n_pos = int(pos.sum())
        if n_pos >= k:                          # block too small: the next eigenvalue may be positive
            return None
        if n_pos:
            Rp = MY[:, pos] - Y[:, pos] * theta_k[pos]
            fro = float(np.linalg.norm(M))
            if float(np.max(np.linalg.norm(Rp, axis=0))) > self.rtol * max(fro, 1e-300):
                return None
        self.krylov_accepted += 1
        self.n_pos = n_pos
        self.X = Y
        return theta_k[pos], Y[:, pos]

    def _exact(self, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = self.d
        k = min(d, self.n_pos + self.extra)
        while self.device is None:
            if k > d // 3:
                lam, V = np.linalg.eigh(M)
                break
            try:
                # single precision while the ADMM is far from converged (its residual level, which
                # sets rtol, is well above float32's 1e-7): MRRR is about twice as fast there
                Mk = M.astype(np.float32) if self.rtol >= SINGLE_PRECISION_RTOL else M
                lam, V = sla.eigh(Mk, subset_by_index=[d - k, d - 1], driver="evr", check_finite=False)
                lam, V = lam.astype(float), V.astype(float)
            except (np.linalg.LinAlgError, ValueError):
                lam, V = np.linalg.eigh(M)
                break
            if lam[0] <= 0:          # a non-positive eigenvalue in the block: every positive one is in
                break
            k = min(d, 2 * k)
        if self.device is not None:
            Mk = M.astype(np.float32) if self.rtol >= SINGLE_PRECISION_RTOL else M
            w, V = device_eigh(Mk, self.device,
                               lambda w: slice(max(0, int(np.searchsorted(w, 0.0)) - self.extra), d))
            lam, V = w[d - V.shape[1]:].astype(float), V.astype(float)
        neg = int(np.searchsorted(lam, 0.0))
        self.n_pos = int(lam.size - neg)
        k = min(d, self.n_pos + self.extra)
        self.X = V[:, -k:] if (lam.size >= k and k <= max(16, d // 20)) else None
        return lam[neg:], V[:, neg:]


#: moment-matrix order from which a projection (a quadratic cost) uses :class:`_SidePSDProjector`
SIDE_MIN_ORDER = 100


class _SidePSDProjector(PSDProjector):
    r"""PSD projection for least-squares costs from the **smaller side** of the spectrum.

    A projection's iterate has no low rank to exploit in general (``dp`` inputs: about half of
    the eigenvalues positive; ``boundary`` inputs: a quarter), so the cheaper of

    .. math::

        \Pi_{\mathcal S_+}(M) = \sum_{\lambda_i > 0} \lambda_i v_i v_i^\top
        = M - \sum_{\lambda_i < 0} \lambda_i v_i v_i^\top

    is used. When the side expected from the previous call (``extra`` eigenpairs of margin) is
    small, ``k/d`` below :func:`~sosproj.sdp.backends.side_spectrum.mrrr_share_limit`, MRRR
    (``syevr`` with ``subset_by_index``) computes exactly its ``k`` eigenpairs (a block whose last
    eigenvalue has the wrong sign, the side grew, is recomputed twice as wide); otherwise
    :func:`~sosproj.sdp.backends.side_spectrum.side_eigh` runs divide and conquer with the
    back-transformation of the smaller side's eigenvectors only (20-35% cheaper than ``syevd``).
    The sum is one ``syrk`` (:func:`~sosproj.sdp.backends.side_spectrum.side_gram`). The
    decomposition runs in **single precision** while ``rtol`` (set by the backend from its residual
    level) is at least ``single_rtol``: float32 is about twice as fast, and its backward error
    (about :math:`10^{-7}\|M\|`) is then far below the ADMM's current error; the projection itself
    is always formed in double precision. In double precision, when the previous call's side had
    small eigenvalue clusters (:func:`~sosproj.sdp.backends.side_spectrum.cluster_share` at most
    ``stein_limit``), the side's eigenvectors of the tridiagonal come from inverse iteration instead
    of divide and conquer (``side_eigh``'s ``stein_limit``; same eigenpairs to rounding, cheaper on
    ``boundary`` inputs, docs/bench_sdp.md "proj5"). Counters: ``calls``, ``single_calls``,
    ``subset_calls``, ``widened``, ``stein_calls``.
    """

    def __init__(self, d: int, extra: int = 8, single_rtol: float = 1e-5,
                 stein_limit: float | None = STEIN_CLUSTER_LIMIT) -> None:
        super().__init__(d)
        self.extra = int(extra)
        self.single_rtol = float(single_rtol)
        self.stein_limit = None if stein_limit is None else float(stein_limit)
        self.rtol = 1.0
        self.n_pos = self.n_neg = d // 2
        self.stein_next = False
        self.calls = self.single_calls = self.subset_calls = self.widened = self.stein_calls = 0

    def __call__(self, v: np.ndarray) -> np.ndarray:
        d = self.d
        self.calls += 1
        M = self.buf
        # the upper triangle only: side_eigh, side_gram and MRRR (lower=False) read no other entry
        M.flat[self.upper] = v / self.scale
        single = self.rtol >= self.single_rtol
        Mk = M.astype(np.float32) if single else M
        self.single_calls += int(single)
        positive = self.n_pos <= self.n_neg             # the side with fewer eigenvalues
        k = min(d, (self.n_pos if positive else self.n_neg) + self.extra)
        limit = mrrr_share_limit(d, single)
        lam = V = None
        while k <= limit * d:
            idx = [d - k, d - 1] if positive else [0, k - 1]
            try:
                lam, V = sla.eigh(Mk, lower=False, subset_by_index=idx, driver="evr", check_finite=False)
            except (np.linalg.LinAlgError, ValueError):
                lam = V = None
                break
            self.subset_calls += 1
            # complete when the block reaches past zero: its first (top side) or last (bottom
            # side) eigenvalue has the other sign
            if (lam[0] <= 0.0) if positive else (lam[-1] >= 0.0):
                break
            self.widened += 1
            lam = V = None
            k = 2 * k
        if lam is None or V is None:
            # every eigenvalue, the smaller side's eigenvectors only (the float32 copy is scratch)
            info: dict[str, Any] = {}
            stein = None if (single or not self.stein_next) else self.stein_limit
            lam, V, positive, neg = side_eigh(Mk, overwrite=single, stein_limit=stein, info=info)
            self.stein_calls += int(info["stein"])
            self.stein_next = self.stein_limit is not None and info["cluster_share"] <= self.stein_limit
            self.n_pos, self.n_neg = d - neg, neg
            if neg == 0:
                return v.copy()
            if neg == d:
                return np.zeros_like(v)
            lam = lam.astype(float, copy=False)
            if positive:
                return side_gram(V, lam).flat[self.lower] * self.scale
            return side_gram(V, lam, M).flat[self.lower] * self.scale
        lam = lam.astype(float, copy=False)
        V = V.astype(float, copy=False)
        neg = int(np.searchsorted(lam, 0.0))
        if positive:
            self.n_pos, self.n_neg = lam.size - neg, d - (lam.size - neg)
            Pm = side_gram(V[:, neg:], lam[neg:])
        else:
            self.n_neg, self.n_pos = neg, d - neg
            Pm = side_gram(V[:, :neg], lam[:neg], M)
        return Pm.flat[self.lower] * self.scale


class _Certified(Exception):
    """Raised inside the ADMM loop when a periodic certificate meets ``gap_tol``."""

    def __init__(self, x: np.ndarray, y: np.ndarray, s: np.ndarray, cert: dict[str, float]) -> None:
        super().__init__("certified")
        self.x, self.y, self.s, self.cert = x, y, s, cert


class LowrankBackend(AdmmBackend):
    """ADMM with partial eigendecompositions and certified stopping (see the module docs).

    Extra options: ``trace_bound`` (enables the certificate), ``interior`` (strictly feasible
    point for the primal repair), ``gap_tol`` (certified relative gap to reach, default
    ``10 * tol``), ``rounding`` (callable ``(q, x) -> q . x'`` of an exactly feasible point
    ``x'`` rounded from ``x``), ``initial`` (callable ``q -> x0``: a primal warm start),
    ``cert_start`` (residual level from which certificates are tried), ``cert_share`` (largest
    share of the run time spent certifying), ``partial_min_order``, ``krylov_factor``; and the
    ADMM options (``anderson`` defaults to what fits :data:`ANDERSON_BYTES`).

    Projections (a least-squares cost, ``P != 0``; docs/sdp.md section 14): blocks of order at
    least ``side_min_order`` use :class:`_SidePSDProjector` (the smaller side of the spectrum,
    float32 while the residual level is at least ``single_rtol``; inverse iteration for the side's
    vectors when its eigenvalue clusters are small, ``stein_limit``, None to turn off), the Anderson
    memory defaults to :data:`PROJECTION_ANDERSON` and the initial penalty to ``rho_factor`` (default
    :data:`PROJECTION_RHO_FACTOR`) times the ADMM's (the median of ``diag(P)``); an explicit ``rho``
    wins. Linear costs (supports) are unchanged by these options.

    ``device`` (default None: the LAPACK paths above, unchanged; ``"cpu"`` / ``"cuda[:K]"`` / ``"auto"``,
    :func:`~sosproj.sdp.gpu.resolve_device`): the eigendecompositions run on that PyTorch device. A
    projection's blocks of order at least ``side_min_order`` use
    :class:`~sosproj.sdp.gpu.TorchPSDProjector` (the whole decomposition and the smaller side's sum on the
    device, float32 while the residual level is at least ``single_rtol``, as on the host; a GPU has no
    cheaper one-sided decomposition); a support's large blocks keep the warm-started Krylov step on the
    host and run the exact fallback there (:func:`~sosproj.sdp.gpu.device_eigh`). The iterates, residuals,
    stopping tests and certificates stay on the host in float64. The device memory of the largest block's
    decomposition is estimated and refused up front (:func:`~sosproj.sdp.gpu.check_device_memory`).
    ``solver="auto"`` asks for ``device="auto"`` on projections with a block of order at least
    :data:`~sosproj.sdp.backends.admm.AUTO_PROJECTION_DEVICE_MIN_ORDER` only
    (:func:`~sosproj.sdp.backends.admm.auto_options`).
    """

    name = "lowrank"
    options = {**AdmmBackend.options, "anderson": None, "trace_bound": None, "interior": None, "gap_tol": None,
               "rounding": None, "initial": None, "cert_start": 1e-2, "cert_share": 0.2,
               "partial_min_order": PARTIAL_MIN_ORDER, "krylov_factor": 1e-2,
               "side_min_order": SIDE_MIN_ORDER, "single_rtol": SINGLE_PRECISION_RTOL, "rho_factor": None,
               "stein_limit": STEIN_CLUSTER_LIMIT}

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """The ADMM workspace plus the support certifier's copy of ``A`` and ``A'``; for a least-squares
        cost (``nnz_P > 0``) the longer Anderson history (:data:`PROJECTION_ANDERSON` pairs of length-m
        vectors instead of the ADMM's 10) and the single-precision copy of the largest block."""
        extra = 0
        if nnz_P > 0:
            dmax = max(cones.psd, default=0)
            extra = 8 * 2 * max(0, PROJECTION_ANDERSON - 10) * cones.dim + 4 * dmax * dmax
        return int(AdmmBackend.estimate_memory(n, cones, nnz_A, nnz_P) + 2 * 12 * nnz_A + extra)

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **options: Any) -> None:
        opts = dict(options)
        device = resolve_device(opts.get("device"))
        opts["device"] = device
        if device is not None and problem.cones.psd:
            check_device_memory(max(problem.cones.psd), device, "solver='lowrank' (largest PSD block)")
        quadratic = problem.P is not None and bool(problem.P.count_nonzero())
        if opts.get("anderson") is None:
            memory = PROJECTION_ANDERSON if quadratic else 10
            opts["anderson"] = int(max(0, min(memory, ANDERSON_BYTES // (16.0 * max(problem.m, 1)))))
        rho_factor = opts.pop("rho_factor", None)
        rho_factor = float(rho_factor) if rho_factor is not None else (PROJECTION_RHO_FACTOR if quadratic else 1.0)
        if rho_factor <= 0.0:
            raise InvalidParameterError("rho_factor must be positive (the initial penalty over the ADMM's default)")
        stein_limit = opts.get("stein_limit", STEIN_CLUSTER_LIMIT)
        if stein_limit is not None and not (isinstance(stein_limit, (int, float)) and 0.0 <= stein_limit <= 1.0):
            raise InvalidParameterError("stein_limit must be None or a number in [0, 1] (a cluster share)")
        if quadratic and opts.get("rho") is None:
            pd = np.asarray(problem.P.diagonal(), dtype=float)
            pd = pd[pd > 0]
            opts["rho"] = rho_factor * float(np.median(pd)) if pd.size else rho_factor
        super().__init__(problem, tol, max_iter, time_limit, **opts)
        o = self.options
        # supports (linear costs): the positive eigenpairs only (low-rank iterates); projections
        # (least squares, ``P != 0``): the smaller side of the spectrum (_SidePSDProjector)
        self.quadratic = bool(np.any(self.p_diag))
        for d in list(self.psd_proj):
            if self.quadratic and d >= int(o["side_min_order"]):
                self.psd_proj[d] = (_SidePSDProjector(d, single_rtol=float(o["single_rtol"]),
                                                      stein_limit=o["stein_limit"]) if device is None
                                    else TorchPSDProjector(d, device, single_rtol=float(o["single_rtol"])))
            elif not self.quadratic and d >= int(o["partial_min_order"]):
                self.psd_proj[d] = _PartialPSDProjector(d, device=device)
        self.krylov_factor = float(o["krylov_factor"])
        self.gap_tol = float(o["gap_tol"]) if o["gap_tol"] is not None else 10.0 * self.tol
        self.rounding = o["rounding"]
        self.initial = o["initial"]
        self.cert_start = float(o["cert_start"])
        self.cert_share = float(o["cert_share"])
        self.certifier = None
        if o["trace_bound"] is not None:
            from sosproj.sdp.support_bounds import SupportCertifier

            self.certifier = SupportCertifier(problem, float(o["trace_bound"]), o["interior"])
        self._cert_time = 0.0
        self._cert_count = 0
        self._t_start = 0.0
        self._map_calls = 0
        self._built()

    def _certify(self, x: np.ndarray, y: np.ndarray, *, repair: bool) -> dict[str, float]:
        assert self.certifier is not None
        t0 = time.perf_counter()
        point = None
        if self.rounding is not None:
            try:
                point = float(self.rounding(self._q, x))
            except (ValueError, FloatingPointError, np.linalg.LinAlgError):
                point = None
        cert = self.certifier.bounds(self._q, x, y, point_value=point, repair=False)
        if repair and not cert["relative_gap"] <= self.gap_tol:
            cert = self.certifier.bounds(self._q, x, y, point_value=point, repair=True)
        self._cert_time += time.perf_counter() - t0
        self._cert_count += 1
        return cert

    def _residuals(self, x: np.ndarray, Ax: np.ndarray, s: np.ndarray, y: np.ndarray, Aty: np.ndarray,
                   q: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
        """As the ADMM's; the Krylov acceptance tolerance follows the residual level (inexact ADMM),
        and a certificate is tried when the residuals are small and the time share allows."""
        rel = super()._residuals(x, Ax, s, y, Aty, q, b)
        worst = max(rel)
        level = float(np.clip(self.krylov_factor * worst, 1e-13, 1e-3))
        for proj in self.psd_proj.values():
            if isinstance(proj, (_PartialPSDProjector, _SidePSDProjector, TorchPSDProjector)):
                proj.rtol = level
        if (self.certifier is not None and worst <= self.cert_start
                and self._cert_time <= self.cert_share * (time.perf_counter() - self._t_start)):
            cert = self._certify(x, y, repair=False)
            if cert["relative_gap"] <= self.gap_tol:
                raise _Certified(x, y, s, cert)
        return rel

    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """ADMM to ``tol`` with periodic certificates; stops as soon as ``gap_tol`` is certified."""
        if q is not None:
            self._q = np.asarray(q, dtype=float)
        t0 = time.perf_counter()
        self._t_start = t0
        self._cert_time, self._cert_count = 0.0, 0
        self._map_calls = 0
        if warm_start is None and self.initial is not None:
            x0 = np.asarray(self.initial(self._q), dtype=float)
            warm_start = (x0, np.zeros(self.problem.m), self.problem.b - self.A @ x0)
        base_tol, base_iter, base_time = self.tol, self.max_iter, self.time_limit
        total_it = 0
        cert: dict[str, float] = {}
        rounds = 0
        raw: RawSolution | None = None
        try:
            while True:
                try:
                    raw = super().solve(None, warm_start)
                except _Certified as done:
                    cert = done.cert
                    raw = RawSolution(done.x, done.y, done.s, "solved", "certified", self._map_calls - total_it,
                                      time.perf_counter() - t0, self.setup_time, {})
                    total_it += raw.iterations
                    rounds += 1
                    break
                total_it += raw.iterations
                rounds += 1
                if self.certifier is None or raw.x is None or raw.y is None:
                    break
                if not (np.all(np.isfinite(raw.x)) and np.all(np.isfinite(raw.y))):
                    break
                cert = self._certify(raw.x, raw.y, repair=True)
                if raw.status != "solved":
                    break
                if cert["relative_gap"] <= self.gap_tol:
                    break
                # residuals met but the certified gap not: continue, tighter
                self.max_iter = base_iter - total_it
                if self.time_limit is not None:
                    self.time_limit = base_time - (time.perf_counter() - t0)  # type: ignore[operator]
                if self.max_iter <= 0 or (self.time_limit is not None and self.time_limit <= 0) \
                        or self.tol < 1e-13:
                    raw.status, raw.raw_status = ("max_iter", "certified gap not reached") \
                        if self.max_iter <= 0 or self.tol < 1e-13 else ("time_limit", "time_limit")
                    break
                self.tol = self.tol / 10.0
                warm_start = (raw.x, raw.y, raw.s)
        finally:
            self.tol, self.max_iter, self.time_limit = base_tol, base_iter, base_time
        assert raw is not None
        extra = dict(raw.extra)
        extra["lowrank_rounds"] = rounds
        extra["lowrank_certificates"] = self._cert_count
        extra["lowrank_certificate_time"] = self._cert_time
        extra["lowrank_positive_eigs"] = {d: p.n_pos for d, p in self.psd_proj.items()
                                          if isinstance(p, _PartialPSDProjector)}
        for d, p in self.psd_proj.items():
            if isinstance(p, _SidePSDProjector):
                extra["lowrank_positive_eigs"][d] = p.n_pos
                extra[f"side_calls_{d}"] = p.calls
                extra[f"side_single_calls_{d}"] = p.single_calls
                extra[f"side_subset_calls_{d}"] = p.subset_calls
                extra[f"side_widened_{d}"] = p.widened
                extra[f"side_stein_calls_{d}"] = p.stein_calls
            elif isinstance(p, TorchPSDProjector) and p.single_rtol is not None:
                extra[f"device_calls_{d}"] = p.calls
                extra[f"device_single_calls_{d}"] = p.single_calls
        if cert:
            extra.update({f"cert_{k}": float(v) for k, v in cert.items()})
            extra["cert_gap_tol"] = self.gap_tol
            if raw.status == "solved" and not cert["relative_gap"] <= self.gap_tol:
                raw.status, raw.raw_status = "inaccurate", "certified gap above gap_tol"
            elif raw.status == "solved":
                raw.raw_status = "certified"
        x_out, s_out = raw.x, raw.s
        if (self.certifier is not None and raw.x is not None and np.all(np.isfinite(raw.x))
                and (point := self.certifier.feasible_point(raw.x)) is not None):
            # report the repaired, exactly feasible point: its objective is the certified primal
            # value, not the value of the (slightly infeasible) ADMM iterate
            x_out = point[0]
            extra["repaired_mix"] = float(point[1])
            if hasattr(self.rounding, "point") and hasattr(self.rounding, "dirac"):
                # the rounded point (a Dirac measure in the ball) when it is better
                _, z = self.rounding.point(self._q, raw.x)
                x_dirac = self.rounding.dirac(z)
                if float(self._q @ x_dirac) < float(self._q @ x_out):
                    x_out = x_dirac
                    extra["reported_point"] = "rounding"
            s_out = self.problem.b - self.A @ x_out
        return RawSolution(x_out, raw.y, s_out, raw.status, raw.raw_status, total_it,
                           time.perf_counter() - t0, self.setup_time, extra)

    def _map(self, w: np.ndarray, q: np.ndarray, b: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        self._map_calls += 1
        return super()._map(w, q, b)


#: short alias
Backend = LowrankBackend

__all__ = ["LowrankBackend", "Backend", "PARTIAL_MIN_ORDER"]
