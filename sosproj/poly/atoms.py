r"""Atom extraction from pseudo-moments: flat extensions and the Henrion-Lasserre algorithm.

Given pseudo-moments :math:`y` of a relaxation ``R`` (free reduction: the unit ball and
other systems without equalities), let :math:`M_s` be the moment matrix restricted to
monomials of degree :math:`\le s` (a leading principal block of ``R``'s moment matrix,
whose basis is sorted by degree).

**Flat extension (Curto & Fialkow 1996).** If :math:`\operatorname{rank} M_s =
\operatorname{rank} M_{s-1} = r` for some :math:`1 \le s \le d`, then :math:`y`
restricted to degree :math:`2s` is the moment vector of a unique :math:`r`-atomic measure.
Numerical ranks use the singular values of :math:`M_s` relative to the largest one
(``tol``).

**Extraction (Henrion & Lasserre 2005).** Factor :math:`M_s = VV^\top` (:math:`V` of
rank :math:`r`), bring :math:`V` to column echelon form :math:`U = V V_B^{-1}` with the
pivot monomials :math:`B` chosen greedily in degree order (all of degree :math:`\le s-1`
at a flat extension), so that :math:`m_s(x) = U\, m_B(x)` on the atoms. The
multiplication matrices :math:`N_i` (rows of :math:`U` at the monomials
:math:`x_i b`, :math:`b\in B`) commute and share the eigenvectors :math:`m_B(x^{(j)})`;
they are diagonalized simultaneously through the ordered Schur decomposition of a
random combination :math:`\sum_i c_i N_i`, giving :math:`x^{(j)}_i = q_j^\top N_i q_j`.
Weights solve :math:`\sum_j w_j m_B(x^{(j)}) = y_B`. Every answer is **recomputed**: the
atoms' moment matrix must reproduce :math:`M_s` to ``tol`` (relative), weights must be
nonnegative and the points must satisfy the system's inequalities to ``tol``;
otherwise ``success`` is false and the ranks are reported.

References: R. Curto, L. Fialkow, *Solution of the truncated complex moment problem for
flat data* (1996); D. Henrion, J.-B. Lasserre, *Detecting global optimality and
extracting solutions in GloptiPoly* (2005).

>>> import numpy as np
>>> from sosproj.poly import MomentRelaxation, unit_ball
>>> R = MomentRelaxation(unit_ball(3), 4)
>>> pts = np.array([[0.6, 0.0, 0.8], [0.0, -1.0, 0.0]])
>>> res = extract_atoms(R, R.moments_of(pts, [0.3, 0.7]))
>>> res.success, res.rank
(True, 2)
>>> order = np.argsort(res.weights)
>>> np.round(res.points[order], 6).tolist(), np.round(res.weights[order], 6).tolist()
([[0.6, 0.0, 0.8], [0.0, -1.0, 0.0]], [0.3, 0.7])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla

from sosproj.errors import InvalidInputError
from sosproj.rng import as_generator
from sosproj.validation import check_array, check_memory, check_positive


@dataclass(frozen=True)
class AtomResult:
    """Outcome of :func:`extract_atoms`.

    ``success``: a flat extension was found and the recomputed atoms reproduce the moments;
    ``points`` ``(r, n_vars)`` and ``weights`` ``(r,)`` (empty when not successful);
    ``ranks``: numerical rank of :math:`M_s` for ``s = 0..d``; ``singular_values``: the leading
    relative singular values of each :math:`M_s`; ``flat_degree``: the ``s`` used (or ``None``);
    ``residual``: relative Frobenius error of the reconstructed :math:`M_s`; ``message``.
    """

    success: bool
    points: np.ndarray
    weights: np.ndarray
    ranks: dict[int, int]
    singular_values: dict[int, list[float]]
    flat_degree: int | None
    residual: float
    message: str
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def rank(self) -> int:
        """Number of atoms (the rank of the flat moment matrix), 0 when extraction failed."""
        return int(self.points.shape[0]) if self.success else 0


def numerical_rank(M: np.ndarray, tol: float) -> tuple[int, np.ndarray]:
    """Rank of a symmetric PSD-ish matrix: singular values above ``tol`` times the largest.

    >>> numerical_rank(np.diag([1.0, 1e-3, 1e-12]), 1e-6)[0]
    2
    """
    sv = np.linalg.svd(M, compute_uv=False)
    if sv.size == 0 or sv[0] <= 0:
        return 0, sv
    rel = sv / sv[0]
    return int(np.sum(rel > tol)), rel


def _greedy_pivots(V: np.ndarray, tol: float) -> list[int]:
    """Rows of ``V`` (in order) that are numerically independent of the earlier ones."""
    r = V.shape[1]
    scale = float(np.max(np.linalg.norm(V, axis=1))) or 1.0
    Q = np.zeros((r, 0))
    piv: list[int] = []
    for i in range(V.shape[0]):
        v = V[i]
        res = v - Q @ (Q.T @ v)
        res = res - Q @ (Q.T @ res)
        nrm = float(np.linalg.norm(res))
        if nrm > np.sqrt(tol) * scale:
            Q = np.concatenate([Q, (res / nrm)[:, None]], axis=1)
            piv.append(i)
            if len(piv) == r:
                break
    return piv


def extract_atoms(R: Any, moments: Any, tol: float = 1e-6, *, rng: Any = None) -> AtomResult:
    r"""Weights and points of an atomic measure with moments ``moments`` (flat extension), or ranks.

    ``R``: a :class:`~sosproj.poly.MomentRelaxation` without equalities (free reduction);
    ``moments``: its pseudo-moment vector (``R.n_moments``); ``tol``: relative tolerance of the
    rank test, the reconstruction and the feasibility of the points; ``rng``: seed of the
    random combination of multiplication matrices (``None``: fresh entropy).

    See the module docs for the algorithm.
    """
    if getattr(R.system.reduction, "kind", None) != "free" or R.system.equalities:
        raise InvalidInputError("extract_atoms needs a relaxation without equalities (free reduction, e.g. "
                                "unit_ball); reduced systems need normal forms of products x_i b")
    y = check_array(moments, "moments", ndim=1, shape=(R.n_moments,))
    tol = check_positive(tol, "tol")
    blk = R.psd_blocks[0]
    d_full = int(blk.order)
    # dense moment matrix, its SVD / eigendecomposition workspaces and the factor: ~6 d^2 doubles
    check_memory(48.0 * d_full * d_full, f"atom extraction from a moment matrix of order {d_full}")
    gen = as_generator(rng)
    basis = np.asarray(blk.basis, dtype=np.int64)
    deg = basis.sum(axis=1)
    d = int(deg.max()) if deg.size else 0
    M = blk.matrix(y)
    M = (M + M.T) / 2.0
    ranks: dict[int, int] = {}
    svals: dict[int, list[float]] = {}
    for s in range(d + 1):
        k = int(np.sum(deg <= s))
        rk, rel = numerical_rank(M[:k, :k], tol)
        ranks[s] = rk
        svals[s] = [float(v) for v in rel[: min(8, rel.size)]]
    empty = np.zeros((0, basis.shape[1]))

    def fail(msg: str, s: int | None = None, residual: float = float("nan")) -> AtomResult:
        return AtomResult(False, empty, np.zeros(0), ranks, svals, s, residual, msg)

    if abs(y[0]) <= 0 or not np.isfinite(y).all():
        return fail("moments must have y_0 > 0 and be finite")
    flat = [s for s in range(d, 0, -1) if ranks[s] == ranks[s - 1] and ranks[s] > 0]
    if not flat:
        return fail(f"no flat extension: numerical ranks {ranks} (tol {tol:g}); the relaxation's "
                    "optimum is not certified to come from an atomic measure")
    s = flat[0]
    k = int(np.sum(deg <= s))
    Ms = M[:k, :k]
    r = ranks[s]
    lam, Q = np.linalg.eigh(Ms)
    lam_r, Q_r = lam[-r:], Q[:, -r:]
    if np.any(lam_r <= 0):
        return fail("moment matrix has non-positive leading eigenvalues (not PSD)", s)
    V = Q_r * np.sqrt(lam_r)
    piv = _greedy_pivots(V, tol)
    if len(piv) < r:
        return fail(f"column echelon form found {len(piv)} pivots for rank {r}", s)
    if np.any(deg[piv] > s - 1):
        return fail("pivot monomials of top degree: the extension is not flat in degree order", s)
    U = V @ np.linalg.inv(V[piv])
    index = {tuple(row): i for i, row in enumerate(basis[:k].tolist())}
    nv = basis.shape[1]
    Ns = []
    for i in range(nv):
        rows = []
        for p in piv:
            e = basis[p].copy()
            e[i] += 1
            j = index.get(tuple(e.tolist()))
            if j is None:
                return fail("a product x_i b falls outside the basis", s)
            rows.append(U[j])
        Ns.append(np.array(rows))
    c = gen.standard_normal(nv)
    c /= np.linalg.norm(c)
    N = sum(ci * Ni for ci, Ni in zip(c, Ns))
    T, Z = sla.schur(N, output="real")
    if r > 1 and np.max(np.abs(np.tril(T, -1))) > np.sqrt(tol) * (1.0 + np.max(np.abs(T))):
        return fail("the combined multiplication matrix has complex eigenvalues (no real atoms)", s)
    points = np.array([[float(Z[:, j] @ Ni @ Z[:, j]) for Ni in Ns] for j in range(r)])
    # weights: sum_j w_j m_B(x_j) = y_B (y_B = first column of M at the pivot monomials / y_0 scale)
    mB = np.array([[float(np.prod(pt ** basis[p])) for p in piv] for pt in points]).T
    w, *_ = np.linalg.lstsq(mB, Ms[piv, 0], rcond=None)
    mons = np.array([[float(np.prod(pt ** basis[i])) for i in range(k)] for pt in points])
    Mrec = (mons.T * w) @ mons
    residual = float(np.linalg.norm(Mrec - Ms) / max(np.linalg.norm(Ms), 1e-300))
    feasible = True
    worst = 0.0
    for g in R.system.inequalities:
        vals = np.asarray(g.evaluate(points), dtype=float).ravel()
        worst = min(worst, float(np.min(vals)))
        feasible = feasible and bool(np.all(vals >= -tol))
    info = {"worst_inequality": worst, "pivots": [tuple(int(v) for v in basis[p]) for p in piv]}
    if residual > np.sqrt(tol) or np.any(w < -tol) or not feasible:
        return AtomResult(False, empty, np.zeros(0), ranks, svals, s, residual,
                          f"recomputed atoms do not reproduce the moments (relative error {residual:.2e}, "
                          f"min weight {float(np.min(w)):.2e}, worst inequality {worst:.2e})", info)
    return AtomResult(True, points, np.maximum(w, 0.0), ranks, svals, s, residual,
                      f"flat extension at degree {s}: {r} atom(s), reconstruction error {residual:.1e}", info)


__all__ = ["extract_atoms", "AtomResult", "numerical_rank"]
