r"""Routing and certification of support functions over pseudo-moment sets.

:func:`support_route` decides which backend solves :math:`\max_y \langle W, T(y)\rangle`
and with which settings: ``solver="lowrank"`` (or ``"auto"`` on a unit-ball relaxation
whose moment matrix has order at least :data:`AUTO_LOWRANK_MIN_ORDER`, where it was
measured faster than the full-eigendecomposition ADMM, ``docs/bench_support.md``) gets the
proven trace bound and the interior point of :mod:`sosproj.sdp.support_bounds`, so that
it stops only at a certified relative gap ``gap_tol`` (default ``10 * tol``).

:func:`certify_support` attaches to every support answer on a unit-ball relaxation,
whatever the solver, the certified numbers recomputed by sosproj:

* ``upper_bound``: a dual bound valid for every feasible pseudo-moment vector;
* ``primal_value``: the value of a feasible (repaired) pseudo-moment vector;
* with ``atoms=True``: the atoms of a flat extension (:func:`sosproj.poly.extract_atoms`),
  each scaled into the ball (exactly feasible points), their best value ``point_value``
  (a lower bound on the injective norm itself) and ``tight``: the point attains the
  upper bound within ``gap_tol`` (then degree 4 is certified tight on this ``W``);
* ``lower_bound = max(primal_value, point_value)``, ``certified_gap = upper_bound -
  lower_bound`` and ``certified_relative_gap`` (divided by ``max(1, |upper_bound|)``).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from sosproj.errors import InvalidInputError, InvalidParameterError
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

#: ``solver="auto"`` picks the low-rank backend from this moment-matrix order on (unit ball)
AUTO_LOWRANK_MIN_ORDER = 400

#: ``solver="auto"`` picks the rank-one certificate backend for supports of tensors (unit ball) from
#: this moment-matrix order on: measured faster than ``admm`` and ``lowrank`` in the same run at
#: orders 231 and 496 (``docs/bench_support.md``); smaller orders were not measured and keep the ADMM
AUTO_RANKONE_MIN_ORDER = 200

#: from this order on ``solver="auto"`` takes ``"rankone_newton"`` (flattening start, filtered
#: eigenpairs, Newton polish; ``fallback="lowrank"``) instead of ``"rankone"``: 1.7x faster (median
#: CPU) at order 496 and 2.2x at 1,225 in the same run (``docs/bench_support.md``, issue 15); the
#: orders in between 200 and 496 were not measured and keep ``"rankone"``
AUTO_RANKONE_NEWTON_MIN_ORDER = 496

#: ``TensorRounding.best_point`` converges this many of its best starts by trust-region Newton below
#: :data:`CANDIDATE_ALL_STARTS_MIN_N` variables: on 30 Gaussian tensors at n = 30, 40, 48 and 6 at n = 64 the 32
#: best reached the same value as all 128, 0.05-0.3 s sooner (``benchmarks/results_support/cand/filter_check.txt``)
CANDIDATE_NEWTON_STARTS = 32

#: from this many variables on every start is converged: at n = 100 the 32 best missed the best maximizer
#: by 2.1% on one of three tensors (and by 0.6% on one of the lead's two probe tensors), at ~1 s more per solve
#: of 10 minutes (``filter_check.txt``, ``candidate_probe9.txt``)
CANDIDATE_ALL_STARTS_MIN_N = 64

#: the backends that take the rank-one candidate's settings (trace bound, interior point, rounding)
_RANKONE_SOLVERS = ("rankone", "rankone_newton")

_CERTIFIERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _ball_data(R: Any) -> tuple[float, np.ndarray] | None:
    try:
        return moment_trace_bound(R), ball_interior_moments(R)
    except InvalidInputError:
        return None


class TensorRounding:
    r"""Feasible points for :math:`\max_{\|x\|\le 1}\langle W, x^{\otimes k}\rangle` from a support cost.

    The symmetric tensor :math:`\bar W` is recovered from the cost vector
    ``q = -F^T (w * Wbar)`` (``F`` the order-``k`` readout, one unit entry per orbit on a
    free reduction), a start point is the degree-1 pseudo-moment :math:`\tilde{\mathbb E}[x]`
    (exact at a rank-one optimum) or, without one, the best of a few random starts, and the
    shifted symmetric higher-order power method (SS-HOPM, Kolda & Mayo 2011) polishes it on
    the sphere. ``__call__(q, x)`` returns ``(q . m(z), z)``: the cost of the Dirac moment vector
    of an exactly feasible point ``z`` (``||z|| = 1``), i.e. minus its support value.
    """

    def __init__(self, R: Any, k: int, iters: int = 200, starts: int = 8) -> None:
        self.R = R
        self.k = int(k)
        self.ro = R.readout(self.k)
        F = self.ro.matrix.tocsr()
        if not (np.all(np.diff(F.indptr) == 1) and np.allclose(F.data, 1.0)):
            raise InvalidInputError("TensorRounding needs a readout with one unit entry per orbit (free reduction)")
        self.cols = F.indices.copy()
        self.weights = np.asarray(self.ro.weights, dtype=float)
        self.ro1 = R.readout(1)
        self.iters = int(iters)
        self.starts = int(starts)
        self.last_info: dict[str, Any] = {}

    def tensor(self, q: np.ndarray) -> np.ndarray:
        """The symmetric tensor of the support direction encoded in the cost ``q``."""
        return self.ro.to_tensor(-np.asarray(q)[self.cols] / self.weights)

    def _value(self, T: np.ndarray, z: np.ndarray) -> float:
        v = T
        for _ in range(self.k):
            v = v @ z
        return float(v)

    def _polish(self, T: np.ndarray, z: np.ndarray) -> tuple[float, np.ndarray]:
        z = z / np.linalg.norm(z)
        shift = float(np.linalg.norm(T.reshape(T.shape[0], -1), 2)) if self.k > 2 else 0.0
        best, zbest = -np.inf, z
        for _ in range(self.iters):
            g = T
            for _ in range(self.k - 1):
                g = g @ z
            g = g + shift * z
            nrm = float(np.linalg.norm(g))
            if nrm == 0:
                break
            z_new = g / nrm
            done = float(np.linalg.norm(z_new - z)) < 1e-13
            z = z_new
            val = self._value(T, z)
            if val > best:
                best, zbest = val, z
            if done:
                break
        return best, zbest

    def point(self, q: np.ndarray, x: np.ndarray | None = None, rng: Any = 0) -> tuple[float, np.ndarray]:
        """Best feasible point ``z`` found and its support value ``<W, z^k>``."""
        T = self.tensor(q)
        n = T.shape[0]
        starts = []
        if x is not None:
            m1 = np.asarray(self.ro1.matrix @ x).ravel()
            if np.linalg.norm(m1) > 1e-8:
                starts += [m1, -m1]
        gen = np.random.default_rng(rng)
        if not starts:
            starts = [gen.standard_normal(n) for _ in range(self.starts)]
        best, zbest = -np.inf, starts[0] / np.linalg.norm(starts[0])
        for z0 in starts:
            val, z = self._polish(T, z0)
            if self.k % 2 == 1 and -val > val:
                val, z = -val, -z
            if val > best:
                best, zbest = val, z
        return best, zbest

    def _contract(self, T: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """``G[:, b] = T(., z_b, ..., z_b)`` for every column ``z_b`` of ``Z`` (``k - 1`` contractions)."""
        G = np.tensordot(T, Z, axes=([T.ndim - 1], [0]))
        for _ in range(self.k - 2):
            G = np.einsum("...jb,jb->...b", G, Z)
        return G

    def best_point(self, q: np.ndarray, starts: int = 128, rng: Any = 0, iters: int = 100,
                   tol: float = 1e-12, polish: int = 4, newton_starts: int | None = None, kkt_tol: float = 1e-11,
                   newton_iters: int = 60) -> tuple[float, np.ndarray]:
        r"""Best point of a **batched** SS-HOPM (Kolda & Mayo 2011) from ``starts`` random unit
        vectors (one tensor contraction per iteration for all of them, ``iters`` at most), then
        converged by a batched Riemannian trust-region Newton method (:meth:`_ascend`).

        The power phase (shift :math:`\alpha = \|T_{(1)}\|_2`, the spectral norm of the flattening,
        so that every step raises the value) converges only linearly with rate
        :math:`(\alpha + \mu_{\max}) / (\alpha + \lambda)` and the shift grows like :math:`n` while
        :math:`\lambda` grows like :math:`\sqrt n`: at :math:`n = 100` 100 iterations leave the starts
        1-2% below their local maxima (``benchmarks/results_support/cand``). The ``newton_starts`` best
        starts (by value after the power phase; ``None``: :data:`CANDIDATE_NEWTON_STARTS` below
        :data:`CANDIDATE_ALL_STARTS_MIN_N` variables, every start from there on) are then driven to a KKT point of
        :math:`\max_{\|z\| = 1} T(z, \dots, z)` with relative residual
        :math:`\|T(\cdot, z^{k-1}) - \lambda z\| / \max(1, |\lambda|) \le` ``kkt_tol`` (a local maximizer:
        the trust-region steps only raise the value) within ``newton_iters`` steps; the best value is
        returned and ``self.last_info`` says how many starts converged and the returned point's residual.
        (At :math:`n = 100` the best local maximizer came from the 1st-5th best start after the power
        phase on three tensors, and plain Newton's method stalled on it; on another the winning start
        was not among the 64 best after the power phase, ``candidate.txt``, ``filter_check.txt``.)
        ``newton_starts=0`` is the method before issue 15's ``cand`` session: Newton's method on the
        ``polish`` best starts only, a step kept only if it raises the value.

        Returns ``(value, z)``: the best value of :math:`\langle W, z^{\otimes k}\rangle` found on the
        unit sphere and its point (``||z|| = 1``).

        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> from sosproj.sdp.compile import support_cost
        >>> R = MomentRelaxation(unit_ball(3), 4)
        >>> W = np.zeros((3, 3, 3)); W[1, 1, 1] = 2.0
        >>> val, z = TensorRounding(R, 3).best_point(support_cost(R, 3, W), starts=8)
        >>> round(val, 9), np.round(np.abs(z), 6).tolist()
        (2.0, [0.0, 1.0, 0.0])
        """
        return self.best_point_tensor(self.tensor(q), starts=starts, rng=rng, iters=iters, tol=tol,
                                      polish=polish, newton_starts=newton_starts, kkt_tol=kkt_tol,
                                      newton_iters=newton_iters)

    def best_point_tensor(self, T: np.ndarray, starts: int = 128, rng: Any = 0, iters: int = 100,
                          tol: float = 1e-12, polish: int = 4, newton_starts: int | None = None, kkt_tol: float = 1e-11,
                          newton_iters: int = 60) -> tuple[float, np.ndarray]:
        """:meth:`best_point` for the symmetric tensor ``T`` itself (order ``self.k``)."""
        T = np.asarray(T, dtype=float)
        if T.ndim != self.k or any(d != T.shape[0] for d in T.shape):
            raise InvalidInputError(f"best_point_tensor needs a cubical tensor of order {self.k}")
        n = T.shape[0]
        self.last_info = {}
        if self.k == 1:                       # a linear form: the maximizer is explicit
            nrm = float(np.linalg.norm(T))
            return nrm, (T / nrm if nrm > 0 else np.eye(n)[0])
        gen = np.random.default_rng(rng)
        Z = gen.standard_normal((n, int(starts)))
        Z /= np.linalg.norm(Z, axis=0)
        shift = float(np.linalg.norm(T.reshape(n, -1), 2)) if self.k > 2 else 0.0
        active = np.arange(Z.shape[1])
        for _ in range(iters):
            Za = Z[:, active]
            G = self._contract(T, Za) + shift * Za
            nrm = np.linalg.norm(G, axis=0)
            nrm[nrm == 0] = 1.0
            Zn = G / nrm
            moved = np.linalg.norm(Zn - Za, axis=0)
            Z[:, active] = Zn
            active = active[moved > tol]
            if active.size == 0:
                break
        vals = np.einsum("ib,ib->b", Z, self._contract(T, Z))
        if self.k % 2 == 1:
            flip = vals < 0
            Z[:, flip] *= -1.0
            vals = np.abs(vals)
        if newton_starts is None:
            newton_starts = Z.shape[1] if n >= CANDIDATE_ALL_STARTS_MIN_N else CANDIDATE_NEWTON_STARTS
        if newton_starts > 0:
            top = np.argsort(vals)[::-1][:int(newton_starts)]
            vals_n, Zc, info = self._ascend(T, Z[:, top], vals[top], kkt_tol, newton_iters)
            b = int(np.argmax(vals_n))
            self.last_info = {**info, "power_value": float(vals.max()), "value": float(vals_n[b])}
            return float(vals_n[b]), Zc[:, b]
        val, z = -np.inf, Z[:, 0]
        for b in np.argsort(vals)[::-1][:polish]:        # Newton on the few best, the best kept
            v, zb = self._newton(T, Z[:, b])
            if not v >= vals[b]:
                v, zb = float(vals[b]), Z[:, b]
            if v > val:
                val, z = v, zb
        return float(val), z

    def _matrices(self, T: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """``H[b] = T(., ., z_b, ..., z_b)`` (``k - 2`` contractions) for every column of ``Z``: ``(B, n, n)``."""
        n, B = Z.shape
        if self.k == 2:
            return np.broadcast_to(T, (B, n, n)).copy()
        H = np.tensordot(T, Z, axes=([T.ndim - 1], [0]))
        for _ in range(self.k - 3):
            H = np.einsum("...jb,jb->...b", H, Z)
        return np.ascontiguousarray(np.moveaxis(H, -1, 0))

    def _ascend(self, T: np.ndarray, Z0: np.ndarray, vals0: np.ndarray, kkt_tol: float,
                max_iter: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        r"""Batched Riemannian trust-region Newton ascent of :math:`f(z) = T(z, \dots, z)` on the sphere
        (Absil, Mahony & Sepulchre 2008, ch. 7; the subproblem solved exactly by an eigendecomposition,
        Moré & Sorensen 1983) from every column of ``Z0``.

        With :math:`H = T(\cdot, \cdot, z^{k-2})`, :math:`g = Hz`, :math:`\lambda = z^\top g`, the Riemannian
        gradient and Hessian of :math:`f / k` are :math:`r = g - \lambda z` and
        :math:`M = P((k-1)H - \lambda I)P` (:math:`P = I - zz^\top`). The step
        :math:`d = -(M - \mu I)^{-1} r` on the tangent space takes :math:`\mu = 0` (Newton) when
        :math:`M \prec 0` and the step is inside the radius :math:`\Delta`, else the
        :math:`\mu > \max(0, \lambda_{\max}(M))` with :math:`\|d\| = \Delta` (bisection on the secular
        equation); the trial point :math:`(z + d)/\|z + d\|` is kept only if the value does not fall
        (then :math:`\Delta` doubles up to 1; else it shrinks 4x). A start stops at relative KKT residual
        :math:`\|r\| / \max(1, |\lambda|) \le` ``kkt_tol``. Returns the values, the points and counts."""
        k = self.k
        n, S = Z0.shape
        Z = Z0 / np.linalg.norm(Z0, axis=0)
        H = self._matrices(T, Z)
        G = np.einsum("bij,jb->ib", H, Z)
        lam = np.einsum("ib,ib->b", Z, G)
        radius = np.full(S, 0.5)
        trial = np.zeros_like(Z)
        done = np.zeros(S, dtype=bool)
        resid = np.full(S, np.inf)
        steps = 0
        rejected = 0
        eye = np.eye(n)
        for it in range(max_iter + 1):
            if it > 0:                         # evaluate the trial points of the active starts
                act = np.flatnonzero(~done)
                Zt = trial[:, act]
                Ht = self._matrices(T, Zt)
                Gt = np.einsum("bij,jb->ib", Ht, Zt)
                lt = np.einsum("ib,ib->b", Zt, Gt)
                ok = lt >= lam[act] - 1e-15 * np.abs(lam[act])
                acc, rej = act[ok], act[~ok]
                Z[:, acc], H[acc], G[:, acc], lam[acc] = Zt[:, ok], Ht[ok], Gt[:, ok], lt[ok]
                radius[acc] = np.minimum(1.0, 2.0 * radius[acc])
                radius[rej] *= 0.25
                rejected += int(rej.size)
                done[rej[radius[rej] < 1e-13]] = True    # no ascent left at machine precision
            act = np.flatnonzero(~done)
            if act.size == 0:
                break
            Za, la = Z[:, act], lam[act]
            r = G[:, act] - la * Za
            resid[act] = np.linalg.norm(r, axis=0) / np.maximum(1.0, np.abs(la))
            conv = resid[act] <= kkt_tol
            done[act[conv]] = True
            if it == max_iter:
                break
            act, Za, la, r = act[~conv], Za[:, ~conv], la[~conv], r[:, ~conv]
            if act.size == 0:
                break
            steps += 1
            M = (k - 1) * H[act] - la[:, None, None] * eye
            P = eye - np.einsum("ib,jb->bij", Za, Za)
            M = P @ M @ P - np.maximum(1.0, np.abs(la))[:, None, None] * np.einsum("ib,jb->bij", Za, Za)
            e, U = np.linalg.eigh(M)
            c = np.einsum("bji,jb->bi", U, r)
            rad = radius[act]
            emax = e[:, -1]
            mu = np.zeros(act.size)
            newton = emax < 0
            with np.errstate(divide="ignore", invalid="ignore"):
                dn = np.linalg.norm(c / e, axis=1)
            need = ~newton | ~(dn <= rad)
            if need.any():                     # the radius is active: ||c / (e - mu)|| = rad, mu > max(0, emax)
                lo = np.maximum(0.0, emax[need])
                cn = np.linalg.norm(c[need], axis=1)
                hi = lo + cn / rad[need] + 1e-300
                lo = lo + 1e-15 * np.maximum(1.0, np.abs(lo))
                for _ in range(60):
                    mid = 0.5 * (lo + hi)
                    big = np.linalg.norm(c[need] / (e[need] - mid[:, None]), axis=1) > rad[need]
                    lo = np.where(big, mid, lo)
                    hi = np.where(big, hi, mid)
                mu[need] = hi
            d = -np.einsum("bij,bj->ib", U, c / (e - mu[:, None]))
            d -= Za * np.einsum("ib,ib->b", Za, d)       # on the tangent space (rounding)
            zt = Za + d
            trial[:, act] = zt / np.linalg.norm(zt, axis=0)
        return lam, Z, {"newton_steps": steps, "converged": int(np.sum(resid <= kkt_tol)), "starts": S,
                        "rejected": rejected, "kkt_residual": float(resid[int(np.argmax(lam))])}

    def _newton(self, T: np.ndarray, z: np.ndarray, steps: int = 8) -> tuple[float, np.ndarray]:
        r"""Newton's method on the KKT system :math:`T(\cdot, z^{k-1}) = \lambda z`, :math:`\|z\| = 1`
        (quadratic convergence at a non-degenerate critical point); a step is kept only if it raises
        the value."""
        z = z / np.linalg.norm(z)
        val = self._value(T, z)
        n = z.size
        for _ in range(steps):
            H = T
            for _ in range(self.k - 2):
                H = H @ z
            g = H @ z
            lam = float(g @ z)
            J = np.zeros((n + 1, n + 1))
            J[:n, :n] = (self.k - 1) * H - lam * np.eye(n)
            J[:n, n] = -z
            J[n, :n] = -z
            rhs = -np.concatenate([g - lam * z, [0.5 * (1.0 - z @ z)]])
            try:
                d = np.linalg.solve(J, rhs)
            except np.linalg.LinAlgError:
                break
            z_new = z + d[:n]
            z_new /= np.linalg.norm(z_new)
            v_new = self._value(T, z_new)
            if not v_new >= val - 1e-15 * abs(val):
                break
            done = float(np.linalg.norm(z_new - z)) < 1e-14
            z, val = z_new, v_new
            if done:
                break
        return val, z

    def dirac(self, z: np.ndarray) -> np.ndarray:
        """Moments of the Dirac measure at ``z`` scaled into the closed ball (an exactly feasible point)."""
        z = np.asarray(z, dtype=float)
        z = z / max(1.0, float(np.linalg.norm(z)) * (1.0 + 1e-15))
        return self.R.moments_of(z[None, :])

    def __call__(self, q: np.ndarray, x: np.ndarray) -> float:
        """``q . m(z)`` of the rounded point (minus its support value; ``m(z)``: Dirac moments)."""
        val, _ = self.point(q, x)
        return -val

    def initial(self, q: np.ndarray) -> np.ndarray:
        """Moment vector of the best power-method point: a rank-one warm start."""
        _, z = self.point(q, None)
        return self.R.moments_of(z[None, :])


def support_route(R: Any, solver: str, tol: float, k: int | None = None) -> tuple[str, dict[str, Any]]:
    """Backend name and its extra settings for a support function over relaxation ``R``.

    ``"rankone"`` / ``"rankone_newton"`` (or ``"auto"`` with a tensor order ``k`` on a unit ball of
    moment order at least :data:`AUTO_RANKONE_MIN_ORDER`: ``"rankone"``, from
    :data:`AUTO_RANKONE_NEWTON_MIN_ORDER` on ``"rankone_newton"`` with the low-rank fallback) gets the
    trace bound, the interior point and a :class:`TensorRounding`; ``"lowrank"`` (or ``"auto"`` from
    :data:`AUTO_LOWRANK_MIN_ORDER` without ``k``) as before.

    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> support_route(MomentRelaxation(unit_ball(3), 4), "auto", 1e-7)[0]
    'auto'
    >>> name, settings = support_route(MomentRelaxation(unit_ball(3), 4), "lowrank", 1e-7)
    >>> name, settings["trace_bound"], settings["gap_tol"]
    ('lowrank', 3.0, 1e-06)
    """
    order = int(R.psd_blocks[0].order)
    if solver in _RANKONE_SOLVERS or (solver == "auto" and k is not None and order >= AUTO_RANKONE_MIN_ORDER):
        data = _ball_data(R)
        rounding = None
        if data is not None and k is not None:
            try:
                rounding = TensorRounding(R, k)
            except InvalidInputError:
                rounding = None
        if data is None or rounding is None:
            if solver in _RANKONE_SOLVERS:
                raise InvalidParameterError(f"solver={solver!r} needs a support function (tensor order k) over a "
                                            "unit-ball relaxation (a proven trace bound of the moment matrix); "
                                            "use solver='lowrank', 'admm' or 'scs'")
        else:
            settings: dict[str, Any] = {"trace_bound": data[0], "interior": data[1], "gap_tol": 10.0 * float(tol),
                                        "rounding": rounding}
            if solver != "auto":
                return solver, settings
            if order >= AUTO_RANKONE_NEWTON_MIN_ORDER:
                return "rankone_newton", {**settings, "fallback": "lowrank"}
            return "rankone", settings
    if solver == "lowrank" or (solver == "auto" and order >= AUTO_LOWRANK_MIN_ORDER):
        data = _ball_data(R)
        if data is None:
            if solver == "lowrank":
                raise InvalidParameterError("solver='lowrank' needs a unit-ball relaxation (a proven trace bound "
                                            "of the moment matrix); use solver='admm' or 'scs'")
            return solver, {}
        settings = {"trace_bound": data[0], "interior": data[1], "gap_tol": 10.0 * float(tol)}
        if k is not None:
            rounding = TensorRounding(R, k)
            settings.update({"rounding": rounding, "initial": rounding.initial})
        return "lowrank", settings
    return solver, {}


def _certifier(R: Any, problem: Any) -> SupportCertifier | None:
    try:
        cached = _CERTIFIERS.get(problem)
    except TypeError:
        cached = None
    if cached is not None:
        return cached
    data = _ball_data(R)
    if data is None:
        return None
    cert = SupportCertifier(problem, data[0], data[1])
    try:
        _CERTIFIERS[problem] = cert
    except TypeError:
        pass
    return cert


def certify_support(R: Any, problem: Any, cost: np.ndarray, res: Any, *, atoms: bool = False,
                    tol: float = 1e-7, gap_tol: float | None = None, k: int | None = None) -> dict[str, Any] | None:
    """Certified bounds of a support answer ``res`` (a :class:`~sosproj.sdp.SolveResult`); ``None``
    when the relaxation has no proven trace bound (not a unit ball).

    With ``atoms=True`` (and the tensor order ``k``) the feasible points tried are the extracted
    atoms and the rounded point of :class:`TensorRounding`; ``tight_by`` says which one attains
    the bound (``"atoms"``, ``"rounding"`` or ``None``)."""
    if res.x is None:
        return None
    cert_info = res.info if isinstance(res.info, dict) else {}
    if "cert_lower" in cert_info and "cert_upper" in cert_info:
        lower, upper = float(cert_info["cert_lower"]), float(cert_info["cert_upper"])
    else:
        certifier = _certifier(R, problem)
        if certifier is None:
            return None
        b = certifier.bounds(np.asarray(cost, dtype=float), np.asarray(res.x), res.y_dual)
        lower, upper = b["lower"], b["upper"]
    out: dict[str, Any] = {"upper_bound": -lower, "primal_value": -upper}
    gap_tol = float(gap_tol) if gap_tol is not None else 10.0 * float(tol)
    point_value = float("nan")
    if atoms:
        from sosproj.poly.atoms import extract_atoms

        # a loose rank tolerance is safe: tightness is decided on the recomputed values of the points
        ext = extract_atoms(R, np.asarray(res.x), tol=max(1e-4, 1e3 * float(tol)), rng=0)
        out["atoms_ranks"] = dict(ext.ranks)
        out["atoms_message"] = ext.message
        out["atoms_success"] = bool(ext.success)
        if ext.success:
            # scaled into the ball (the 1e-15 keeps ||x|| <= 1 after rounding)
            pts = ext.points / np.maximum(1.0, np.linalg.norm(ext.points, axis=1) * (1.0 + 1e-15))[:, None]
            vals = [float(-(np.asarray(cost) @ R.moments_of(p[None, :]))) for p in pts]
            best = int(np.argmax(vals))
            point_value = vals[best]
            out["atoms_points"] = pts
            out["atoms_weights"] = ext.weights
            out["point"] = pts[best]
        out["atoms_value"] = point_value
        if k is not None:
            try:
                r_val, r_pt = TensorRounding(R, k).point(np.asarray(cost, dtype=float), np.asarray(res.x))
            except InvalidInputError:
                r_val, r_pt = float("nan"), None
            out["rounding_value"] = r_val
            if r_pt is not None and (not np.isfinite(point_value) or r_val > point_value):
                point_value = r_val
                out["point"] = r_pt
    out["point_value"] = point_value
    lows = [v for v in (out["primal_value"], point_value) if np.isfinite(v)]
    lb = max(lows) if lows else float("nan")
    ub = out["upper_bound"]
    out["lower_bound"] = lb
    out["certified_gap"] = ub - lb
    out["certified_relative_gap"] = (ub - lb) / max(1.0, abs(ub))

    def attains(v: float) -> bool:
        return bool(np.isfinite(v) and ub - v <= gap_tol * max(1.0, abs(ub)))

    out["tight"] = attains(point_value)
    if atoms:
        out["tight_by"] = ("atoms" if attains(out["atoms_value"]) else
                           "rounding" if attains(out.get("rounding_value", float("nan"))) else None)
    return out


__all__ = ["support_route", "certify_support", "TensorRounding", "AUTO_LOWRANK_MIN_ORDER"]
