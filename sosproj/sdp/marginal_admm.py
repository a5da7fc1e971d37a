r"""Projection of noisy marginal residuals onto consistent, locally non-negative marginals
(optionally inside the degree-2 one-hot moment relaxation), by ADMM with diagonal updates.

Problem (:class:`MarginalProjector`), in the residual basis of
:class:`~sosproj.data.residuals.ResidualLayout` (every closure set ``A`` of the workload):

.. math::
    \min_{c}\ \tfrac12\sum_{A\ne\emptyset} w_A\,\|c_A - \tilde c_A\|^2
    \quad\text{s.t.}\quad B c \ge 0,\quad c_\emptyset = m,\quad
    [\ M_2(c) \succeq 0\ ]

``w_A = 1/sigma_A^2`` is the measurement's metric (inverse noise covariance on the residual
subspace), ``B c`` are the workload tables (consistent by construction, each summing to
``c_\emptyset = m``), so the constraint is *local non-negativity*: every cell of every workload
table (GReM-LNN's set, Mullins et al., NeurIPS 2024). With ``psd=True`` also the one-hot
degree-2 moment matrix :math:`M_2` (order ``1 + sum n_i``; entries ``m``, the 1-way tables on
the first row and the diagonal, the 2-way tables off the diagonal, i.e. the pseudo-moments of the
one-hot variables ``x_{i,a}`` with ``x^2 = x`` and ``sum_a x_{i,a} = 1``) must be PSD; this needs
every pair of attributes in the workload's closure.

Both ``B^T B`` and ``M_2^T M_2`` are diagonal on the residual subspace (the residual components
are orthogonal), so scaled ADMM on the splitting ``z = Bc``, ``X = M_2(c)``::

    c <- (w c~ + rho B^T(z - u) + rho M^T(X - U)) / (w + rho d_B + rho d_M)   (closed form)
    z <- max(Bc + u, 0);   X <- Pi_PSD(M(c) + U)                           (projections)
    u <- u + Bc - z;       U <- U + M(c) - X

costs two passes over the tables and one eigendecomposition per iteration. The returned
residuals are made *exactly* non-negative by mixing with the uniform table
(``c <- (1 - theta) c`` off the empty set), which keeps consistency and totals. Without the PSD
constraint :meth:`MarginalProjector.certificate` bounds the returned point's distance to the exact
optimum by a duality gap (the ADMM's multipliers give the Lagrangian's closed-form minimizer).

References: S. Boyd et al., "Distributed optimization ... ADMM" (2011) for the iteration and the
residual balancing of ``rho``; B. Mullins, M. Fuentes, Y. Xiao, D. Kifer, C. Musco, D. Sheldon,
"Efficient and private marginal reconstruction with local non-negativity" (NeurIPS 2024).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sosproj.data.residuals import ResidualLayout
from sosproj.errors import InvalidParameterError
from sosproj.policy import apply_on_fail, check_on_fail
from sosproj.sdp.cones import project_psd_dense
from sosproj.threads import kernel_threads
from sosproj.validation import check_int, check_positive

__all__ = ["MarginalProjector", "OneHotMoment", "ProjectorState", "compiled_switch_iteration"]


class OneHotMoment:
    """The degree-2 moment matrix of one-hot variables as a linear map of the residuals.

    ``M[0, 0] = m``, ``M[0, (i,a)] = M[(i,a),(i,a)] = mu_i(a)``, ``M[(i,a),(i,b)] = 0`` (``a != b``),
    ``M[(i,a),(j,b)] = mu_ij(a, b)``. Needs every attribute pair in ``layout``'s closure.
    """

    def __init__(self, layout: ResidualLayout) -> None:
        self.layout = layout
        n = len(layout.sizes)
        self.n = n
        self.offsets = np.concatenate([[1], 1 + np.cumsum(layout.sizes)]).astype(int)
        self.order = int(self.offsets[-1])
        self.pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        missing = [p for p in self.pairs if p not in layout.res_pos]
        if missing:
            raise InvalidParameterError(
                "the one-hot moment relaxation needs every pair of attributes in the workload's closure; "
                f"missing {missing[:3]}...; use reconstruction='lnn'")
        # diagonal of M^T M on the residual subspace: (set, multiplicity) uses of each table
        d = np.zeros(len(layout.residual_sets))
        uses = [((i,), 3.0) for i in range(n)] + [(p, 2.0) for p in self.pairs]
        for s, mult in uses:
            j = len(s)
            for mask in range(1, 2**j):
                keep = tuple(s[p] for p in range(j) if mask >> p & 1)
                drop = math.prod(layout.sizes[s[p]] for p in range(j) if not mask >> p & 1)
                d[layout.res_pos[keep]] += mult / drop
        self.normal_diag = layout.expand(d)

    def forward(self, r: np.ndarray) -> np.ndarray:
        """``M_2(c)`` (symmetric, order ``1 + sum n_i``)."""
        lay, o = self.layout, self.offsets
        M = np.zeros((self.order, self.order))
        M[0, 0] = lay.residual(r, ())
        for i in range(self.n):
            mu = lay.marginal(r, (i,))
            M[0, o[i]:o[i + 1]] = mu
            M[o[i]:o[i + 1], 0] = mu
            M[o[i]:o[i + 1], o[i]:o[i + 1]] = np.diag(mu)
        for i, j in self.pairs:
            t = lay.marginal(r, (i, j))
            M[o[i]:o[i + 1], o[j]:o[j + 1]] = t
            M[o[j]:o[j + 1], o[i]:o[i + 1]] = t.T
        return M

    def adjoint(self, Y: np.ndarray) -> np.ndarray:
        """``M_2^T(Y)`` projected onto the residual subspaces (the empty set's entry is not used)."""
        lay, o = self.layout, self.offsets
        r = np.zeros(lay.res_size)
        for i in range(self.n):
            b = slice(o[i], o[i + 1])
            t = np.diag(Y[b, b]) + Y[0, b] + Y[b, 0]
            lay.residual(r, (i,))[...] += t
        for i, j in self.pairs:
            bi, bj = slice(o[i], o[i + 1]), slice(o[j], o[j + 1])
            t = Y[bi, bj] + Y[bj, bi].T
            lay.residual(r, (i, j))[...] += t
            lay.residual(r, (i,))[...] += t.sum(axis=1) / t.shape[1]
            lay.residual(r, (j,))[...] += t.sum(axis=0) / t.shape[0]
        return lay.center(r, max_order=2)                  # r is zero on the sets of 3+ attributes


def _psd_part(Y: np.ndarray) -> np.ndarray:
    """PSD part of the symmetrized ``Y`` (the one dense PSD projection of :mod:`sosproj.sdp.cones`)."""
    return project_psd_dense(0.5 * (Y + Y.T))[0]


@dataclass(frozen=True)
class ProjectorState:
    """Iterate of :meth:`MarginalProjector.solve_state` (for a warm start): the residuals ``r``
    before the final mixing, the table split ``z`` and its scaled multiplier ``u``, and ``rho``."""

    r: np.ndarray
    z: np.ndarray
    u: np.ndarray
    rho: float


#: Initial penalty: ``RHO0_FACTOR`` times the median of ``w_A / d_A`` over the measured sets. The
#: adaptive balancing moved ``rho`` upwards by 4-30x on sparse categorical tables (synthetic
#: cat9-wide-m1k at epsilon 1: 3,225 iterations from the median, 1,075 from 10x the median); starting
#: above the balance point is cheaper than climbing to it (the LNN iterate needs near-exact feasibility
#: for ``theta <= tol``).
RHO0_FACTOR = 10.0


#: Relative duality gap (``gap / max(objective, 1)``, :meth:`MarginalProjector.certificate`) that
#: ``info["converged"]`` of :meth:`MarginalProjector.solve` also requires (LNN only): 0.01 certifies the
#: returned point within ``sqrt(0.02) = 0.14`` of the distance the projection moved the input (W-norm,
#: objective >= 1). Chosen to flag what the residual test misses (captured nltcs LNN steps: gaps up to 0.14 at
#: objectives 0.2-0.7, the ADMM's iterate 70% above the optimum) and to pass the ADMM's and the dual's answers that
#: agree with the exact projection in L1 (planted32 table metric: relative gaps 4e-3-7e-3, L1 within 1e-4 of the
#: dual's; benchmarks/results_marginals/lnnc/). A constant, so public; it changes the report, never the iterates.
ADMM_GAP_RTOL = 0.01


#: ``a`` of the dual's momentum ``(k - 1) / (k + a)`` (Chambolle & Dossal 2015; ``a = 2`` is close to the
#: classical FISTA sequence): on Adult's extrapolation projection (epsilon 1, seed 0) ``a = 4`` took 500 / 520
#: iterations against FISTA's 820 / 580 from two starts (``benchmarks/results_marginals/adult_v9/experiments/``).
#: ``a = 5`` (session 31): on the extrapolation projections captured from ten default Adult releases (epsilon 0.3 /
#: 1 / 3, seeds 0-3 / 0-3 / 0, 2) 4,400 iterations in all against 4,700 for ``a = 4`` (-6.4%; fewer on 7 of 10,
#: ``a = 6`` / ``8``: 4,400 / 4,540; ``benchmarks/results_marginals/adult31/``). Where the test first passes moves
#: by +-10% with ``a`` on a single input, so only the sum over inputs is evidence.
DUAL_MOMENTUM_A = 5.0

#: Whether :meth:`MarginalProjector.solve_dual` also tests (and may return) the averaged primal point ``c(ybar)``
#: (the Patrinos-Bemporad average of the Lagrangian minimizers at the momentum points) beside ``c(lam)``. Off by
#: default: on Adult (paired against main d75fdf8, ``benchmarks/results_marginals/adult_28/``) it stops the
#: extrapolation projection 10-20% earlier (epsilon 1: 400-440 against 480-500 iterations, CPU 0.90x) but its answer
#: was 0.04% worse in L1 on 2 of 3 seeds (ratios 1.0000, 1.0004, 1.0004), against the brief's "no accuracy loss".
DUAL_PRIMAL_AVERAGE = False


#: CPU seconds a process pays once for the compiled LNN kernels (``import numba`` and the kernels' load from numba's
#: cache: 0.15 + 0.23 s on the dev box, ``benchmarks/results_marginals/lnn29/jit_cold.txt``; the first compile of an
#: installation costs ~2.4 s more, once).
COMPILED_FIXED_COST_S = 0.4

#: Per-iteration CPU the compiled dual step saves over the numpy loop, modelled as ``a * groups + b * cells`` (the
#: numpy loop's per-call overhead per group of equal-shape tables, its extra table-sized passes per cell): fitted on
#: the dev box (one BLAS thread): Adult 3-way (182 groups, 2.65M cells) 34.5 -> 10.8 ms, Titanic 3-way (58 groups,
#: 174k cells) 5.4 -> 0.6 ms for the map alone (``benchmarks/results_marginals/lnn29/README.md``).
COMPILED_SAVING_PER_GROUP_S = 75e-6
COMPILED_SAVING_PER_CELL_S = 4e-9

#: A layout whose estimated saving repays :data:`COMPILED_FIXED_COST_S` within this many iterations runs compiled from
#: the first iteration; a smaller one starts on numpy and switches when the numpy loop's estimated extra cost has
#: reached the fixed cost (ski rental: never more than twice the better choice's CPU, so short releases, e.g.
#: Titanic's 40-80 iterations, do not pay for the compiler).
COMPILED_MIN_RUN = 50


def compiled_switch_iteration(layout: ResidualLayout) -> int:
    """The iteration after which :meth:`MarginalProjector.solve_dual` runs the compiled step (0: from the start), from
    the layout's sizes only (public; deterministic, so a release does not depend on the process's history)."""
    saving = (COMPILED_SAVING_PER_GROUP_S * len(layout.tab_groups)
              + COMPILED_SAVING_PER_CELL_S * layout.tab_size)
    if saving * COMPILED_MIN_RUN >= COMPILED_FIXED_COST_S:
        return 0
    return math.ceil(COMPILED_FIXED_COST_S / max(saving, 1e-12))


class MarginalProjector:
    """Weighted least squares onto consistent, locally non-negative workload marginals (+ optional PSD).

    Parameters
    ----------
    layout : the residual layout (workload and its closure).
    weights : ``w_A`` per closure set (``1 / sigma_A^2``; the empty set's weight is ignored).
    psd : add the one-hot degree-2 moment constraint (:class:`OneHotMoment`).
    tol : relative primal/dual residual tolerance; max_iter : iteration cap.
    compiled : default of :meth:`solve_dual`'s ``compiled`` (the compiled dual step; ``None``: from the iteration
        :func:`compiled_switch_iteration` picks).

    >>> from sosproj.data.residuals import ResidualLayout
    >>> lay = ResidualLayout((2, 2), [(0, 1)])
    >>> r = lay.residuals_of_tables([np.array([[3.0, -1.0], [1.0, 1.0]])])   # a negative cell
    >>> c, info = MarginalProjector(lay, np.ones(4)).solve(r)
    >>> bool(lay.forward(c).min() >= 0), round(float(lay.forward(c).sum()), 6)
    (True, 4.0)
    """

    def __init__(self, layout: ResidualLayout, weights: np.ndarray, *, psd: bool = False,
                 tol: float = 1e-3, max_iter: int = 1000, rho: float | None = None,
                 alpha: float = 1.6, compiled: bool | None = None) -> None:
        self.layout = layout
        #: Default of :meth:`solve_dual`'s ``compiled`` (``None``: :func:`compiled_switch_iteration` decides).
        self.compiled = None if compiled is None else bool(compiled)
        w = np.asarray(weights, dtype=float).ravel()
        if w.shape != (len(layout.residual_sets),) or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise InvalidParameterError("weights must be finite, non-negative, one per closure set")
        self.w_sets = w
        self.w = layout.expand(w)
        self.moment = OneHotMoment(layout) if psd else None
        self.tol = check_positive(tol, "tol")
        self.max_iter = check_int(max_iter, "max_iter", minimum=1)
        self.alpha = check_positive(alpha, "alpha")
        if self.alpha >= 2:
            raise InvalidParameterError("alpha (over-relaxation) must lie in (0, 2); 1.6 is a good default")
        self._d: np.ndarray | None = None                          # d = d_B + d_M: built by the ADMM only (d)
        self._empty = layout.empty_pos
        self._uniform = layout.forward(self._unit_empty())          # uniform tables of total 1
        if rho is None:
            nz = (w > 0)
            ratio = w[nz] / np.maximum(layout.normal_diag_sets[nz], 1e-300)
            rho = RHO0_FACTOR * float(np.median(ratio)) if ratio.size else 1.0
        self.rho0 = check_positive(rho, "rho")

    def solve(self, r_noisy: np.ndarray, *, on_fail: str = "warn",
              warm_start: ProjectorState | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        r"""Project the noisy residuals ``r_noisy`` (its empty-set entry is the total ``m``).

        The iteration stops when the mixing weight ``theta`` (:meth:`make_nonnegative`) and the scaled dual
        residual are within ``tol`` (with ``psd=True`` also the relative primal residual), or at ``max_iter``.
        What ``info["converged"]`` certifies: that test passed and, without the PSD constraint (where
        :meth:`certificate` exists), the returned point's duality gap is small,
        :math:`\text{gap} \le \rho_g \max(p(r), 1)`, :math:`\rho_g` = :data:`ADMM_GAP_RTOL` (``info["relative_gap"]``
        is the left side over :math:`\max(p, 1)`; ``p`` the objective :math:`\tfrac12\|r - \tilde c\|_W^2`, so for
        :math:`p \ge 1` the certified distance
        :math:`\|r - c^\star\|_W \le \sqrt{2 \rho_g}\,\|r - \tilde c\|_W`). The residual test alone
        (``info["residuals_converged"]``) can pass far from the optimum: on the captured nltcs LNN steps after
        the cube step (``benchmarks/results_peers/runtime_v13/captured_lnn.txt``) at gap 0.144, objective 0.299
        against an optimum of 0.173. The gap test changes the report only, never the iterates; with ``psd=True``
        (no certificate) ``converged`` is the residual test.
        """
        r, info, _state = self.solve_state(r_noisy, on_fail=on_fail, warm_start=warm_start)
        return r, info

    def solve_state(self, r_noisy: np.ndarray, *, on_fail: str = "warn",
                    warm_start: ProjectorState | None = None
                    ) -> tuple[np.ndarray, dict[str, Any], ProjectorState]:
        """:meth:`solve`, also returning the final iterate (:class:`ProjectorState`).

        ``warm_start`` (e.g. the state of the LNN projection of the same ``r_noisy``) starts the
        iteration from its ``r``, ``z``, ``u`` and ``rho`` instead of from ``r_noisy``; with
        ``psd=True`` the moment split starts at the PSD part of ``M_2(r)`` with a zero multiplier.
        """
        check_on_fail(on_fail)
        t0 = time.perf_counter()
        lay, mo = self.layout, self.moment
        rt = np.asarray(r_noisy, dtype=float)
        total = float(rt[self._empty])
        wr = self.w * rt
        # the iteration runs on s = z + u (table space; z = max(s, 0), u = min(s, 0), so z - u = |s|)
        # and, with psd, S = X + U (X = PSD part of S, U = S - X): one vector per split
        if warm_start is None:
            rho = self.rho0
            r = rt.copy()
            s = np.maximum(lay.forward(r), 0.0)
        else:
            if warm_start.r.shape != rt.shape or warm_start.z.shape != (lay.tab_size,):
                raise InvalidParameterError("warm_start must come from a projector on the same layout")
            rho = check_positive(warm_start.rho, "warm_start.rho")
            r = warm_start.r.copy()
            r[self._empty] = total
            s = warm_start.z + warm_start.u
        if mo is not None:
            X = _psd_part(mo.forward(r))
            S = X.copy()
        inv_uni = 1.0 / (total * self._uniform) if total > 0 else None
        a_vec, b_vec = self._update_coefficients(wr, rho)
        v = np.empty(lay.tab_size)                              # work buffer (table space)
        z_old = np.empty(lay.tab_size)
        Br = np.empty(lay.tab_size)
        converged = False
        rp = rd = np.inf
        alpha = self.alpha
        it = 0
        for it in range(1, self.max_iter + 1):
            np.abs(s, out=v)                                    # z - u
            r = lay.adjoint(v)
            if mo is not None:
                r += mo.adjoint(2.0 * X - S)                    # X - U
            r *= b_vec                                          # (w c~ + rho B^T(z - u)) / (w + rho d)
            r += a_vec
            r[self._empty] = total
            lay.forward(r, out=Br)
            check = it % 5 == 0 or it == self.max_iter
            if check:
                np.maximum(s, 0.0, out=z_old)
            # over-relaxed z/u step in one vector: s <- s + alpha (Br - max(s, 0))
            np.maximum(s, 0.0, out=v)
            np.subtract(Br, v, out=v)
            v *= alpha
            s += v
            if mo is not None:
                Mr = mo.forward(r)
                X_old = X
                S += alpha * (Mr - X_old)
                X = _psd_part(S)
            if not check:
                continue
            np.maximum(s, 0.0, out=v)                           # z (new)
            np.subtract(v, z_old, out=z_old)                    # z - z_old
            dual = lay.adjoint(z_old)
            np.subtract(Br, v, out=v)                           # Bc - z
            p2 = float(v @ v)
            nb = float(Br @ Br)
            np.minimum(s, 0.0, out=v)                           # u
            nu = float(np.linalg.norm(v))
            if mo is not None:
                p2 += float(np.sum((Mr - X) ** 2))
                dual += mo.adjoint(X - X_old)
                nb += float(np.sum(Mr ** 2))
            rp = math.sqrt(p2)
            rd = rho * float(np.linalg.norm(dual))
            eps_p = self.tol * (1.0 + math.sqrt(nb))
            eps_d = self.tol * (1.0 + rho * nu)
            theta_now = self._theta(Br, total, inv_uni, out=v)
            if theta_now <= self.tol and rd <= eps_d and (mo is None or rp <= eps_p):
                converged = True
                break
            # OSQP-style adaptive penalty: balance the relative primal and dual residuals
            ratio = math.sqrt(max(rp / (1.0 + math.sqrt(nb)), 1e-300) / max(rd / (1.0 + rho * nu), 1e-300))
            if ratio > 3.0 or ratio < 1.0 / 3.0:
                ratio = min(max(ratio, 1e-2), 1e2)
                rho *= ratio
                np.minimum(s, 0.0, out=v)                       # u <- u / ratio
                np.maximum(s, 0.0, out=s)
                v *= 1.0 / ratio
                s += v
                if mo is not None:
                    S = X + (S - X) / ratio
                a_vec, b_vec = self._update_coefficients(wr, rho)
        state = ProjectorState(r=r.copy(), z=np.maximum(s, 0.0), u=np.minimum(s, 0.0), rho=rho)
        r, theta = self.make_nonnegative(r)
        cert = self.certificate(rt, r, -rho * state.u) if mo is None else None
        # the residual test above passes well before the optimum on some inputs (captured nltcs LNN
        # steps: gap 0.14 at objective 0.30, optimum 0.17); where a certificate exists, "converged"
        # also requires it (the iterates are unchanged: only the report)
        rel_gap = cert["duality_gap"] / max(cert["objective"], 1.0) if cert else None
        residuals_converged = converged
        converged = converged and (rel_gap is None or rel_gap <= ADMM_GAP_RTOL)
        info = {"solver": "marginal-admm", "iterations": it, "converged": converged,
                "residuals_converged": residuals_converged, "relative_gap": rel_gap,
                "warm_start": warm_start is not None,
                "primal_residual": rp, "dual_residual": rd, "rho": rho, "theta": theta,
                "objective": cert["objective"] if cert else None,
                "dual_objective": cert["dual_objective"] if cert else None,
                "duality_gap": cert["duality_gap"] if cert else None,
                "psd": mo is not None, "moment_matrix_order": mo.order if mo is not None else None,
                "time": time.perf_counter() - t0}
        why = (f"the marginal projection did not reach tol={self.tol:g} in {self.max_iter} iterations; "
               "raise max_iter or tol"
               if not residuals_converged or rel_gap is None else
               f"the marginal projection's residual test passed but its relative duality gap {rel_gap:.3g} "
               f"exceeds ADMM_GAP_RTOL={ADMM_GAP_RTOL:g} (not certified near the optimum); use solve_dual or a "
               "smaller tol")
        apply_on_fail(converged, on_fail,
                      why + " (the returned tables are still non-negative and consistent)", {**info, "value": r})
        return r, info, state

    def solve_dual(self, r_noisy: np.ndarray, *, on_fail: str = "warn", check_every: int = 10,
                   average: bool | None = None, compiled: bool | None = None,
                   warm_start: np.ndarray | None = None, tables: np.ndarray | None = None
                   ) -> tuple[np.ndarray, dict[str, Any]]:
        r"""The LNN projection (``psd=False``) by accelerated projected gradient on its dual, with restarts.

        The Lagrangian's minimizer for multipliers :math:`\lambda \ge 0` of ``B c >= 0`` is
        :math:`c(\lambda) = \tilde c + W^{-1} P B^T \lambda` (:meth:`certificate`), and the dual
        :math:`g(\lambda)` is concave with :math:`\nabla g(\lambda) = -B c(\lambda)`, Lipschitz with constant
        :math:`L = \|B W^{-1} P B^T\| = \max_A d_A / w_A` (``B^T B`` is diagonal on the residual subspace,
        ``d_A`` per set; in the table metric ``w = d`` it is an orthogonal projection, ``L = 1``). FISTA
        (Beck & Teboulle, SIAM J. Imaging Sci. 2, 2009) on the bound-constrained dual,
        :math:`\lambda \leftarrow \max(0, y - B c(y) / L)`, in the momentum of Chambolle & Dossal (J. Optim.
        Theory Appl. 166, 2015: :math:`y = \lambda_k + \tfrac{k-1}{k+a}(\lambda_k - \lambda_{k-1})`,
        ``a`` = :data:`DUAL_MOMENTUM_A`), with the gradient-based adaptive restart of O'Donoghue & Candes
        (Found. Comput. Math. 15, 2015). Each iteration costs one adjoint and one
        forward pass over the tables, like an ADMM iteration, but on the sparse, degenerate tables of an
        extrapolated layout it needs far fewer of them (``benchmarks/extrap_study.py``).

        Each iteration's ``B c(y)`` comes from :meth:`~sosproj.data.residuals.ResidualLayout.normal_apply` where the
        layout allows it (every table's own residual block in no other table: all-``k``-way workloads, the
        maximal sets of a family), the fused map ``y - B c(y) / L`` without the round trip of the tables' full
        blocks through the residual vector (the same numbers up to round-off; Adult's extrapolation projection
        at epsilon 1: the same 500 iterations, tables within 1e-9, 0.84x the CPU,
        ``benchmarks/results_marginals/adult_28/``).

        Compiled step (``compiled``): where the layout allows it (:attr:`~sosproj.data.residuals.ResidualLayout.
        compiled_normal`: numba installed, tables of at most 3 attributes, the fused layout), the whole iteration --
        the normal map, the projection onto :math:`\lambda \ge 0`, the restart test and the momentum -- runs as one
        compiled pass pair over the tables (:meth:`~sosproj.data.residuals.ResidualLayout.dual_step`), the same
        arithmetic as the numpy loop up to round-off (Adult's extrapolation projection at epsilon 1: the same 500
        iterations, tables within 3e-9 of the numpy loop's, 3.3x less CPU; ``benchmarks/results_marginals/lnn29/``).
        ``None`` (default): from the iteration :func:`compiled_switch_iteration` chooses from the layout's sizes (the
        first one on large layouts; short runs on small ones never load the compiler); ``True``: from the first
        iteration; ``False``: never. ``info["compiled"]`` says whether it ran, ``info["compiled_from"]`` from when.

        Primal average (``average``, default :data:`DUAL_PRIMAL_AVERAGE`): the point tested and returned is
        :math:`c(\bar y_k)`, :math:`\bar y_k = (1 - \vartheta_k)\bar y_{k-1} + \vartheta_k y_k`,
        :math:`\vartheta_k = 1 / t_k = a / (k + a - 1)` (``k`` counted since the last restart, which also restarts
        the average), i.e. the weighted average of the Lagrangian minimizers :math:`c(y_k)` at the momentum points
        (``c`` is affine): the primal sequence of an accelerated dual method whose infeasibility and suboptimality
        decay as :math:`O(1/k^2)` (P. Patrinos, A. Bemporad, "An accelerated dual gradient-projection algorithm
        for embedded linear model predictive control", IEEE TAC 59, 2014), where the last iterate :math:`c(\lambda_k)`
        oscillates. On Adult's extrapolation projection it reaches the same test in 430 / 550 iterations against
        500 / 640 (epsilon 1 / 0.3, seed 0); on short runs (Titanic, 40-80 iterations) the last iterate passes
        first, so both are tested at every check (the last iterate first) and the first to pass is returned (at
        ``max_iter`` the one with the smaller ``theta``). The test on the average is the same: ``theta <= tol``
        and the relative gap of the unmixed point :math:`(p(c) - g(\lambda_k)) / \max(p, 1)` within ``tol``
        (for :math:`c = c(\lambda)` this is the complementarity :math:`\lambda^T B c(\lambda) / \max(p, 1)` below,
        exactly: :math:`g(\lambda) = p(c(\lambda)) - \lambda^T B c(\lambda)`); ``average=False`` is the last
        iterate.

        Warm start (``warm_start``): a first multiplier, one per table cell (default 0, the Lagrangian minimizer
        :math:`c(0) = \tilde c`); it moves only the first point of the iteration, never the test that ends it, and is
        checked, not trusted (:meth:`_dual_start`: a wrong shape or a non-finite entry is refused, negative entries
        are set to 0, ``info["warm_start_repaired"]`` counts them). Measured on Adult's extrapolation projection
        (``benchmarks/results_marginals/adult31/``, epsilon 0.3, seed 2): the per-cell clip's multiplier
        :math:`\max(-B\tilde c, 0)` (and 3x it) takes the cold start's 580 iterations (``a = 4``), the measured
        family's multiplier spread over the 3-way tables its 470 (``a = 5``; 570 scaled by 1e6), so the pipeline
        passes none.

        Feasible input: when every workload cell of ``r_noisy`` is already non-negative (``theta = 0``,
        the exact test of :meth:`make_nonnegative`), ``r_noisy`` is the projection, certified by
        :math:`\lambda = 0` (gap 0: the KKT conditions hold exactly); it is returned at once with
        ``iterations = 0`` and ``info["feasible_input"] = True``.

        Stopping test (KKT), every ``check_every`` iterations on the primal point :math:`c(\lambda)`
        (consistent, total ``m``): stationarity and :math:`\lambda \ge 0` hold exactly by construction;
        primal feasibility: the mixing weight with the uniform tables that makes it non-negative
        (:meth:`make_nonnegative`) is at most ``tol`` (the test of :meth:`solve`); complementary slackness:
        :math:`|\lambda^T B c(\lambda)| \le \mathrm{tol}\cdot \max(p(c(\lambda)), 1)` (``p`` the objective; the
        floor 1 keeps the test meaningful for an input that is already feasible, where ``p`` is ~0). The
        returned point is the mixed one; ``info`` carries ``theta``, the relative complementarity, the
        duality gap of the returned point (:meth:`certificate`: a rigorous bound
        :math:`\tfrac12\|r - c^\star\|_W^2 \le` gap, dominated by the mixing itself: measured on Adult,
        ``benchmarks/results_marginals/extrap_v8/experiments/README.txt``) and the iterations;
        ``converged`` is ``False`` at ``max_iter``.

        ``tables``: the input's tables :math:`B\tilde c` (``layout.forward(r_noisy)``) when the caller has them
        (:meth:`make_nonnegative` of the same input, ``tables=``), so they are not built again (read, never written).
        """
        check_on_fail(on_fail)
        check_every = check_int(check_every, "check_every", minimum=1)
        average = DUAL_PRIMAL_AVERAGE if average is None else bool(average)
        compiled = self.compiled if compiled is None else compiled
        if self.moment is not None:
            raise InvalidParameterError("solve_dual handles the LNN projection only (psd=False); use solve")
        t0 = time.perf_counter()
        lay = self.layout
        nonempty = np.ones(len(self.w_sets), dtype=bool)
        nonempty[lay.res_pos[()]] = False
        if np.any(self.w_sets[nonempty] <= 0):
            raise InvalidParameterError("solve_dual needs a positive weight on every non-empty set")
        d_sets = np.asarray(lay.normal_diag_sets, dtype=float)
        lip = float(np.max(d_sets[nonempty] / self.w_sets[nonempty])) if nonempty.any() else 1.0
        inv_w = np.where(self.w > 0, 1.0 / np.where(self.w > 0, self.w, 1.0), 0.0)
        inv_w[self._empty] = 0.0
        step = 1.0 / lip
        rt = np.asarray(r_noisy, dtype=float)
        total = float(rt[self._empty])

        lam, repaired = self._dual_start(warm_start)               # checked before anything else (even if unused)
        # work buffer (table space): the step's output; between steps (and before the first) the tests' scratch
        lam_new = np.empty(lay.tab_size)
        if tables is None:
            t_in = lay.forward(rt)                                 # B r~ = B c(0): the trigger's shift below too
        else:
            t_in = np.asarray(tables, dtype=float)
            if t_in.shape != (lay.tab_size,):
                raise InvalidParameterError(f"tables must be the input's workload tables, shape ({lay.tab_size},); "
                                            f"got shape {t_in.shape}")
        theta0 = self._theta(t_in, total, out=lam_new)
        if theta0 == 0.0:
            # already feasible: the projection is the identity (lam = 0 certifies it, gap 0)
            cert = self.certificate(rt, rt, np.zeros(lay.tab_size))
            info = {"solver": "marginal-dual-fista", "iterations": 0, "converged": True, "warm_start": False,
                    "warm_start_repaired": 0,
                    "primal_residual": None, "dual_residual": None, "rho": None, "theta": 0.0,
                    "objective": cert["objective"] if cert else None,
                    "dual_objective": cert["dual_objective"] if cert else None,
                    "duality_gap": cert["duality_gap"] if cert else None, "complementarity": 0.0,
                    "lipschitz": lip, "psd": False, "moment_matrix_order": None, "feasible_input": True,
                    "time": time.perf_counter() - t0}
            out = rt.copy()
            out[self._empty] = total
            return out, info

        def primal(lam: np.ndarray) -> np.ndarray:
            c = lay.adjoint(lam)
            c *= inv_w
            c += rt
            c[self._empty] = total
            return c

        y = lam.copy()
        # fused operator (ResidualLayout.normal_apply): B c(y) = B c(0) + N y, N = B W^-1 P B^T, without the
        # round trip of every table's own residual block; the same numbers as the composition up to round-off
        fused = lay.fused_normal
        # the compiled kernels (sosproj.data.fused_kernel: the normal map in one loop over the tables, the FISTA
        # step's vector work in two passes); the same arithmetic as the numpy steps up to round-off
        # (compiled=None: from iteration ``switch``, compiled_switch_iteration; True: from the start; False: never)
        can = fused and total > 0 and (lay.compiled_normal if compiled is None else lay._kernel_applies())
        switch = (compiled_switch_iteration(lay) if compiled is None else 0) if can and compiled is not False else None
        if switch == 0 and not lay.kernel_ready():                # numba unusable after all: numpy throughout
            switch = None
        compiled = switch == 0
        # the policy's (1 unless the user chose more), as the layout will use them (1 on small layouts)
        n_threads = lay.kernel_threads_used(kernel_threads()) if switch is not None else 1
        # the numpy steps' and the average's work buffer (the compiled step needs none)
        diff = np.empty(lay.tab_size) if average or not compiled else None
        inv_uni = None
        if switch is not None:                                     # 1 / (total * uniform), one table vector
            inv_uni = np.multiply(self._uniform, total)
            np.divide(1.0, inv_uni, out=inv_uni)
        trig_below = -(self.tol / (1.0 - self.tol)) * (1.0 + 1e-9) if 0.0 < self.tol < 1.0 else None
        tab0 = t_in if fused else None                             # B c(0) (c(0) = r~ with its total: t_in, exactly)
        shift = -step * tab0 if fused else None
        # the primal point tested and returned: c(lam) or, averaged, c(ybar) (c is affine, so c(ybar) is the
        # weighted average of the Lagrangian minimizers c(y_k); Patrinos & Bemporad 2014)
        ybar = np.zeros(lay.tab_size) if average else None
        kk = 0                                                     # iterations in the current average
        k = 0
        converged = False
        theta = compl = np.inf
        c = rt.copy()
        # (c, theta, B c, c = c(lam)?, g(lam) when the KKT test computed it) of a check
        best: tuple[np.ndarray, float, np.ndarray, bool, float | None] | None = None
        it = 0
        for it in range(1, self.max_iter + 1):
            if switch is not None and it > switch and not compiled:
                compiled = lay.kernel_ready()                      # the same arithmetic from here, compiled
                if not compiled:
                    switch = None
            if ybar is not None:                                   # ybar <- (1 - th) ybar + th y, th = 1 / t_k
                kk += 1
                th = DUAL_MOMENTUM_A / (kk + DUAL_MOMENTUM_A - 1.0)
                np.multiply(y, th, out=diff)
                ybar *= 1.0 - th
                ybar += diff
            if compiled:                                           # the whole step, compiled (ResidualLayout.dual_step)
                k += 1
                if lay.dual_step(y, lam, lam_new, inv_w, step, shift, (k - 1.0) / (k + DUAL_MOMENTUM_A),
                                 threads=n_threads):
                    k = kk = 0
                lam, lam_new = lam_new, lam
            elif fused:                                            # lam_new = y - B c(y) / L in one fused map
                lay.normal_apply(y, inv_w, alpha=1.0, beta=-step, shift=shift, out=lam_new, compiled=compiled)
            else:
                lay.forward(primal(y), out=lam_new)
                if step == 1.0:                                    # the table metric: one pass, same values
                    np.subtract(y, lam_new, out=lam_new)
                else:
                    lam_new *= -step
                    lam_new += y
            if not compiled:
                k += 1                                             # iterations since the (re)start
                np.maximum(lam_new, 0.0, out=lam_new)              # lam_new = max(y - B c(y) / L, 0)
                np.subtract(lam_new, lam, out=diff)
                np.subtract(y, lam_new, out=y)                     # y is rewritten below: its buffer holds y - lam
                if float(y @ diff) > 0.0:                          # the momentum points uphill: restart
                    k = kk = 0                                     # (the average restarts too)
                    y[...] = lam_new
                else:                                              # y = lam_new + (k - 1) / (k + a) (lam_new - lam)
                    np.multiply(diff, (k - 1.0) / (k + DUAL_MOMENTUM_A), out=y)
                    y += lam_new
                lam, lam_new = lam_new, lam
            if it % check_every and it != self.max_iter:
                continue
            last = it == self.max_iter
            best = None
            for point in ((lam,) if ybar is None else (lam, ybar)):    # the last iterate first, then the average
                if fused and not last:
                    # a cheap trigger: theta of B c(point) by the fused map; the test below recomputes it exactly
                    if compiled:                                   # = _theta of the map, nothing written
                        # the trigger only asks whether theta > tol, i.e. qmin < -tol / (1 - tol): the scan may stop
                        # at the first row below that (a hair lower, so rounding cannot flip the answer)
                        qmin = lay.normal_min(point, inv_w, tab0, inv_uni, below=trig_below, threads=n_threads)
                        th_trig = 0.0 if qmin >= 0.0 else -qmin / (1.0 - qmin)
                    else:
                        lay.normal_apply(point, inv_w, alpha=0.0, beta=1.0, shift=tab0, out=diff, compiled=False)
                        th_trig = self._theta(diff, total)
                    if th_trig > self.tol:
                        continue
                c_p = primal(point)
                Bc = lay.forward(c_p)
                th_p = self._theta(Bc, total, inv_uni, out=lam_new)     # lam_new: scratch until the next step
                if best is None or th_p < best[1]:
                    best = (c_p, th_p, Bc, point is lam, None)
                if th_p > self.tol:
                    continue                                    # the KKT test only where it can pass
                e = c_p - rt
                e[self._empty] = 0.0
                p_c = 0.5 * float(e @ (self.w * e))
                if point is lam:
                    lam_bc = float(lam @ Bc)
                    compl = lam_bc / max(p_c, 1.0)               # floor: an input already feasible has p ~ 0
                    if best[0] is c_p:                           # g(lam) = p(c(lam)) - lam^T B c(lam): certificate's
                        best = (*best[:4], p_c - lam_bc)
                else:                                            # p(c) - g(lam): lam^T B c(lam) when c = c(lam)
                    c_l = primal(lam)
                    e = c_l - rt
                    e[self._empty] = 0.0
                    g_l = 0.5 * float(e @ (self.w * e)) - float(lam @ lay.forward(c_l))
                    compl = (p_c - g_l) / max(p_c, 1.0)
                if abs(compl) <= self.tol:
                    converged = True
                    best = (c_p, th_p, Bc, point is lam, p_c - lam_bc if point is lam else None)
                    break
            if best is not None:
                c, theta = best[:2]
            if converged:
                break
        # the exact test's tables are reused: B c and its theta are make_nonnegative's, and for c = c(lam) the
        # certificate's Lagrangian minimizer (the same numbers; skips two forward and one adjoint pass)
        tested = best is not None and best[0] is c
        r, theta = self._mix(c, best[1]) if tested else self.make_nonnegative(c)
        cert = self.certificate(rt, r, lam, lagrangian=(c, best[2]) if tested and best[3] else None,
                                dual_value=best[4] if tested and best[3] else None)
        gap = cert["duality_gap"] if cert else np.inf
        info = {"solver": "marginal-dual-fista", "iterations": it, "converged": converged,
                "warm_start": warm_start is not None, "warm_start_repaired": repaired, "primal_residual": None,
                "dual_residual": None, "rho": None, "theta": theta,
                "objective": cert["objective"] if cert else None,
                "dual_objective": cert["dual_objective"] if cert else None,
                "duality_gap": gap if cert else None, "complementarity": compl, "lipschitz": lip,
                "psd": False, "moment_matrix_order": None, "feasible_input": False,
                "primal_average": average, "compiled": compiled, "compiled_from": switch, "threads": n_threads,
                "time": time.perf_counter() - t0}
        apply_on_fail(converged, on_fail,
                      f"the dual projection did not reach tol={self.tol:g} in {self.max_iter} iterations; "
                      "raise max_iter or tol (the returned tables are still non-negative and consistent)",
                      {**info, "value": r})
        return r, info

    def _dual_start(self, warm_start: np.ndarray | None) -> tuple[np.ndarray, int]:
        r"""The first multiplier of :meth:`solve_dual`: zero, or ``warm_start`` checked and repaired (a copy).

        A warm start only moves the first point of the iteration, never the test that ends it, so it is not
        trusted: one of the wrong length or shape, or with a non-finite entry, is refused
        (:class:`~sosproj.errors.InvalidParameterError`); negative entries are outside the dual's domain
        :math:`\lambda \ge 0` and are projected onto it (set to 0), as the first projected-gradient step would;
        their number is returned beside the multiplier (``info["warm_start_repaired"]``).
        """
        n = self.layout.tab_size
        if warm_start is None:
            return np.zeros(n), 0
        lam = np.asarray(warm_start, dtype=float)
        if lam.shape != (n,):
            raise InvalidParameterError(f"warm_start must be a multiplier per table cell, shape ({n},); "
                                        f"got shape {lam.shape}")
        if not np.all(np.isfinite(lam)):
            raise InvalidParameterError("warm_start must be finite")
        return np.maximum(lam, 0.0), int(np.count_nonzero(lam < 0.0))

    def certificate(self, r_noisy: np.ndarray, r: np.ndarray, lam: np.ndarray, *,
                    lagrangian: tuple[np.ndarray, np.ndarray] | None = None,
                    dual_value: float | None = None) -> dict[str, float] | None:
        r"""Duality-gap certificate of a feasible point ``r`` of the LNN projection (``psd=False``).

        With multipliers ``lam >= 0`` of the cell constraints ``B c >= 0`` the Lagrangian
        :math:`\tfrac12\|c - \tilde c\|_W^2 - \lambda^T B c` is minimized (``c_\emptyset = m`` fixed)
        by :math:`c(\lambda) = \tilde c + W^{-1} P B^T \lambda` (``B^T B`` and ``W`` are diagonal on the
        residual subspace), so the dual value
        :math:`g(\lambda) = \tfrac12\|c(\lambda) - \tilde c\|_W^2 - \lambda^T B c(\lambda)` is a lower
        bound on the optimum ``p*`` (weak duality). For ``r`` with ``B r >= 0`` (the mixed iterate of
        :meth:`solve`) ``p(r) >= p*``, and ``p`` is 1-strongly convex in the ``W`` norm, so

        .. math:: \tfrac12\|r - c^\star\|_W^2 \le p(r) - p^\star \le p(r) - g(\lambda) = \text{gap}.

        ``lagrangian``: ``(c(lam), B c(lam))`` when the caller has them (:meth:`solve_dual`'s exact test on the last
        multiplier, ``lam >= 0``), so they are not recomputed (the same values up to the rounding of ``g / w``
        against ``g * (1 / w)``). ``dual_value``: :math:`g(\lambda)` itself, when the caller computed it from those
        tables by the expression below (:meth:`solve_dual`'s KKT test: :math:`p(c(\lambda)) - \lambda^T B c(\lambda)`,
        the same numbers), so neither the multiplier nor the tables are read again.

        The ADMM's multipliers are ``lam = -rho u`` (scaled form). ``None`` when a non-empty set has
        zero weight (its residual is then free and ``g = -inf`` unless ``P B^T lam`` vanishes on it).
        """
        w = self.w
        nonempty = np.ones(w.shape, dtype=bool)
        nonempty[self._empty] = False
        if np.any(w[nonempty] <= 0):
            return None
        lay = self.layout
        total = float(r_noisy[self._empty])
        if dual_value is not None and lagrangian is not None:
            dual = float(dual_value)
        else:
            lam = np.asarray(lam, dtype=float)
            lam = np.maximum(lam, 0.0) if lam.size and lam.min() < 0.0 else lam     # lam >= 0 (copied only if not)
            if lagrangian is None:
                g = lay.adjoint(lam)
                g[self._empty] = 0.0
                c_lam = r_noisy + g / np.where(nonempty, w, 1.0)
                c_lam[self._empty] = total
                Bc_lam = lay.forward(c_lam)
            else:
                c_lam, Bc_lam = lagrangian
            e = c_lam - r_noisy
            e[self._empty] = 0.0
            dual = 0.5 * float(e @ (w * e)) - float(lam @ Bc_lam)
        e = r - r_noisy
        e[self._empty] = 0.0
        primal = 0.5 * float(e @ (w * e))
        return {"objective": primal, "dual_objective": dual, "duality_gap": max(primal - dual, 0.0)}

    @property
    def d(self) -> np.ndarray:
        """The diagonal of ``B^T B (+ M^T M)`` per residual entry (the ADMM's closed-form step; built on first use:
        :meth:`solve_dual` never needs it)."""
        if self._d is None:
            dB = self.layout.normal_diag
            self._d = dB + self.moment.normal_diag if self.moment is not None else dB + np.zeros_like(dB)
        return self._d

    def _update_coefficients(self, wr: np.ndarray, rho: float) -> tuple[np.ndarray, np.ndarray]:
        """``a = w c~ / (w + rho d)`` and ``b = rho / (w + rho d)``: the closed-form residual step is ``a + b g``."""
        b = rho / (self.w + rho * self.d)
        return wr * (b / rho), b

    def _theta(self, t: np.ndarray, total: float, inv_uni: np.ndarray | None = None,
               out: np.ndarray | None = None) -> float:
        """Smallest mixing weight with the uniform tables that makes the tables ``t`` non-negative.

        With ``q = t / u`` (``u`` the uniform tables of total ``total``) the weight a cell needs is
        ``-q / (1 - q)``, increasing in ``-q``: the largest is that of the smallest ``q``.
        """
        if total <= 0:
            return 0.0 if float(np.min(t)) >= 0 else 1.0
        if inv_uni is None:
            inv_uni = 1.0 / (total * self._uniform)
        q = np.multiply(t, inv_uni, out=out)
        qmin = float(np.min(q))
        return 0.0 if qmin >= 0.0 else -qmin / (1.0 - qmin)

    def make_nonnegative(self, r: np.ndarray, *, tables: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """Mix with the uniform tables, ``c_A -> (1 - theta) c_A`` (``A != {}``), until every cell is ``>= 0``.

        The uniform tables are consistent, strictly positive and have the same total, so the result
        is consistent, non-negative and sums to ``m``; the stopping rule of :meth:`solve` bounds
        ``theta`` by ``tol`` at convergence (``info["theta"]``). ``tables``: ``layout.forward(r)`` when the caller
        has them (not built again).
        """
        t = self.layout.forward(r) if tables is None else np.asarray(tables, dtype=float)
        if t.shape != (self.layout.tab_size,):
            raise InvalidParameterError(f"tables must be the workload tables of r, shape ({self.layout.tab_size},)")
        return self._mix(r, self._theta(t, float(r[self._empty])))

    def _mix(self, r: np.ndarray, theta: float) -> tuple[np.ndarray, float]:
        """:meth:`make_nonnegative` given ``theta`` = :meth:`_theta` of ``B r`` (a hair more, so round-off in the
        mixing cannot leave a cell below 0)."""
        total = float(r[self._empty])
        if theta == 0.0:
            return r, 0.0
        theta = min(1.0, theta * (1 + 1e-9) + 1e-15)
        out = (1.0 - theta) * r
        out[self._empty] = total
        return out, theta

    def _unit_empty(self) -> np.ndarray:
        e = np.zeros(self.layout.res_size)
        e[self._empty] = 1.0
        return e
