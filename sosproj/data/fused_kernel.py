r"""Compiled (numba) kernels for the LNN dual's normal map over all tables of a residual layout.

:meth:`sosproj.data.residuals.ResidualLayout.normal_apply` computes, in table space,

.. math:: \alpha y + \beta\,B\,\mathrm{diag}(w^{-1})\,P\,B^\top y + s ,

(``B`` the residual-to-tables map, ``P`` the projection onto the residual subspaces, ``s`` a shift). Its
numpy form makes a few calls per group of equal-shape tables (182 shapes on Adult's 455 3-way tables), and
after the fusion of session 28 that per-call overhead was ~2/3 of the map's time. Here the same operator is one
compiled loop over the tables, each table read twice and written once.

For a table :math:`W` of :math:`j \le 3` attributes (``T`` its block of ``y``) and every proper subset
:math:`K \subsetneq W` let :math:`\bar T_K` be the mean of ``T`` over the axes :math:`W\setminus K`
(the ``B^T`` marginal with its factor :math:`\prod_{i\in W\setminus K} 1/n_i`). Then

* ``B^T`` and ``P`` on the lower sets: :math:`u_K = \sum_{W\supsetneq K} P_K \bar T_K` (accumulated over the
  tables; :math:`P_K \bar T_K` by inclusion-exclusion of the means, e.g.
  :math:`P_{01}\bar T_{01} = \bar T_{01} - \bar T_0 - \bar T_1 + \bar T_\emptyset`), then :math:`v_K = u_K / w_K`;
* the table's own block (never shared with another table when the layout is
  :attr:`~sosproj.data.residuals.ResidualLayout.fused_normal`) is :math:`P_W T = \sum_{K\subseteq W}
  (-1)^{|W\setminus K|}\bar T_K` (broadcast), read straight back by ``B``;
* ``B`` on the lower sets: :math:`\sum_{K\subsetneq W} v_K / \prod_{i\in W\setminus K} n_i` (broadcast),

so table ``W`` of the result is

.. math:: s_W + (\alpha + \beta w_W^{-1})\,T + \beta \sum_{K\subsetneq W}\Bigl(
          \frac{v_K}{\prod_{W\setminus K} n_i} + w_W^{-1} (-1)^{|W\setminus K|}\bar T_K\Bigr),

the lower-dimensional terms folded into the ``j`` terms of size ``j - 1`` before the second pass. This is the
same operator as the numpy path (the composition ``forward(inv_w * adjoint(y))``), evaluated in another order:
equal up to round-off (tests: ``tests/test_fused_kernel.py``, 1e-12 relative on random layouts).

The rest of the dual's FISTA step (``mode=1``: projection onto :math:`\lambda\ge 0`, the restart test's
inner product, the momentum point) runs in the second pass over each table, cell by cell (one read of ``y``,
the shift and :math:`\lambda`, one write of the new multiplier and of the next momentum point: the step is
memory-bound, and the numpy loop made eleven table-sized passes where this makes six), and the stopping
trigger's minimum over the cells is one more mode of the same kernel (``mode=2``: nothing written).
``cache=True``: the first call of a process compiles (or loads from ``__pycache__``) once; :data:`HAVE_NUMBA` is
``False`` when numba is missing, and the callers then use numpy.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

#: Whether numba is installed (found without importing it: the import and the kernels' first load cost ~0.4 s
#: CPU per process, paid only by the callers that use them, :func:`kernels`).
HAVE_NUMBA = importlib.util.find_spec("numba") is not None

__all__ = ["HAVE_NUMBA", "MAX_ORDER", "available", "kernels", "fused_normal"]

#: Largest table order (attributes per table) the compiled kernel handles; layouts with larger tables use numpy.
MAX_ORDER = 3

_KERNELS: Any = None
#: The compiled building blocks (:func:`kernels` replaces these module names by their compiled versions).
_PASSES = ("_put", "_scratch3", "_means", "_lower_table", "_lower", "_second", "_sum_part")
_INLINE = ("_scratch3", "_means", "_lower_table", "_second")


def available() -> bool:
    """Whether the compiled kernel can be used: numba found AND importable and the kernel built (a broken numba
    install turns :data:`HAVE_NUMBA` off for the process instead of failing the caller, which then uses numpy)."""
    global HAVE_NUMBA
    if not HAVE_NUMBA:
        return False
    try:
        kernels()
    except Exception:  # noqa: BLE001 - any failure of the optional compiler means: use numpy
        HAVE_NUMBA = False
        return False
    return True


def kernels() -> Any:
    """The compiled :func:`fused_normal` (numba ``njit``, ``cache=True``), built on the first call of a
    process: numba is imported then, and the kernel is compiled (~2.4 s CPU, once per installation) or loaded
    from numba's cache in ``__pycache__`` (~0.2 s); ``benchmarks/results_marginals/lnn29/jit_cold.txt``."""
    global _KERNELS
    if _KERNELS is None:
        import numba

        jit = numba.njit(cache=True, nogil=True, error_model="numpy")
        g = globals()
        inline = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
        for name in _PASSES:                       # the kernels below call the compiled passes
            g[name] = (inline if name in _INLINE else jit)(g[name])
        _KERNELS = jit(fused_normal)
    return _KERNELS


def _put(mode, i, v, y, out, lam, a_coef):
    """Pass 2's last step for one cell: ``out[i] = v`` (``mode`` 0, the normal map), or (``mode`` 1, the FISTA
    step with ``v = y - B c(y) / L``) ``out[i] = max(v, 0)`` (the new multiplier), ``y[i] <- out[i] + a_coef
    (out[i] - lam[i])`` (the momentum point, assuming no restart), returning the cell's term of the restart test
    ``(y - lam_new) . (lam_new - lam)`` (read before ``y[i]`` is overwritten)."""
    if mode == 0:
        out[i] = v
        return 0.0
    if mode == 2:
        return v * lam[i]
    x = v if v > 0.0 else 0.0
    li = lam[i]
    d = (y[i] - x) * (x - li)
    out[i] = x
    y[i] = (x - li) * a_coef + x
    return d


# --- the map's passes, over table ranges ---
#
# Pass 1: the means of each table (:func:`_means`, independent per table) and their terms on the lower sets ``u``
# (:func:`_lower_table`, the tables in order); pass 2 per table range (:func:`_second`). :func:`fused_normal` runs
# them on one thread, table by table (a table's means still in cache for its lower terms);
# :func:`fused_normal_threaded` runs the means and pass 2 over table ranges on several threads, the lower sums in this
# thread in table order, and writes the restart test's terms per table row (``part``, at ``poff[t]``) to sum them in
# the one-thread order (:func:`_sum_part`). Both make the same additions in the same order: the result is the same
# bit for bit, for any split of the tables and any number of threads (tests: ``tests/test_fused_kernel.py``).


def _scratch3(so, n0, n1, n2):
    """The scratch layout of a 3-way table of sizes ``n0 x n1 x n2`` from its offset ``so``: the starts of its
    2-way sums (01, 02, 12), of its 1-way means (0, 1, 2) and the position of its total's mean."""
    s02 = so + n0 * n1
    s12 = s02 + n0 * n2
    s0 = s12 + n1 * n2
    s1 = s0 + n0
    s2 = s1 + n1
    return so, s02, s12, s0, s1, s2, s2 + n2


def _means(y, tinfo, scratch, t0, t1):
    """Pass 1's first half on the tables ``t0 <= t < t1``: each table's sums over its 2-way sub-blocks and its means
    over the 1-way ones and the total, into the table's part of ``scratch`` (independent per table)."""
    for t in range(t0, t1):
        j = tinfo[t, 0]
        n0 = tinfo[t, 1]
        n1 = tinfo[t, 2]
        n2 = tinfo[t, 3]
        off = tinfo[t, 4]
        so = tinfo[t, 5]
        if j == 3:
            s01, s02, s12, s0, s1, s2, se = _scratch3(so, n0, n1, n2)
            for i in range(s01, se + 1):
                scratch[i] = 0.0
            for a in range(n0):
                row02 = scratch[s02 + a * n2:s02 + (a + 1) * n2]
                for b in range(n1):
                    base = off + (a * n1 + b) * n2
                    yr = y[base:base + n2]
                    row12 = scratch[s12 + b * n2:s12 + (b + 1) * n2]
                    acc = 0.0
                    for c in range(n2):
                        x = yr[c]
                        acc += x
                        row02[c] += x
                        row12[c] += x
                    scratch[s01 + a * n1 + b] = acc
                    scratch[s0 + a] += acc
                    scratch[s1 + b] += acc
            tot = 0.0
            for a in range(n0):
                tot += scratch[s0 + a]
            for b in range(n1):
                row12 = scratch[s12 + b * n2:s12 + (b + 1) * n2]
                for c in range(n2):
                    scratch[s2 + c] += row12[c]
            f = 1.0 / (n1 * n2)
            for a in range(n0):
                scratch[s0 + a] *= f
            f = 1.0 / (n0 * n2)
            for b in range(n1):
                scratch[s1 + b] *= f
            f = 1.0 / (n0 * n1)
            for c in range(n2):
                scratch[s2 + c] *= f
            scratch[se] = tot / (n0 * n1 * n2)
        elif j == 2:
            s0 = so
            s1 = s0 + n0
            se = s1 + n1
            for i in range(s0, se + 1):
                scratch[i] = 0.0
            tot = 0.0
            for a in range(n0):
                base = off + a * n1
                acc = 0.0
                for b in range(n1):
                    x = y[base + b]
                    acc += x
                    scratch[s1 + b] += x
                scratch[s0 + a] = acc
                tot += acc
            f = 1.0 / n1
            for a in range(n0):
                scratch[s0 + a] *= f
            f = 1.0 / n0
            for b in range(n1):
                scratch[s1 + b] *= f
            scratch[se] = tot / (n0 * n1)
        else:
            tot = 0.0
            for a in range(n0):
                tot += y[off + a]
            scratch[so] = tot / n0


def _lower_table(t, tinfo, koff, scratch, u):
    """Table ``t``'s terms of ``B^T P`` onto the lower sets ``u`` (from its means in ``scratch``, :func:`_means`)."""
    j = tinfo[t, 0]
    n0 = tinfo[t, 1]
    n1 = tinfo[t, 2]
    n2 = tinfo[t, 3]
    so = tinfo[t, 5]
    if j == 3:
        s01, s02, s12, s0, s1, s2, se = _scratch3(so, n0, n1, n2)
        me = scratch[se]
        g01 = 1.0 / n2
        g02 = 1.0 / n1
        g12 = 1.0 / n0
        k = koff[t, 3]
        for a in range(n0):
            for b in range(n1):
                u[k + a * n1 + b] += scratch[s01 + a * n1 + b] * g01 - scratch[s0 + a] - scratch[s1 + b] + me
        k = koff[t, 5]
        for a in range(n0):
            for c in range(n2):
                u[k + a * n2 + c] += scratch[s02 + a * n2 + c] * g02 - scratch[s0 + a] - scratch[s2 + c] + me
        k = koff[t, 6]
        for b in range(n1):
            for c in range(n2):
                u[k + b * n2 + c] += scratch[s12 + b * n2 + c] * g12 - scratch[s1 + b] - scratch[s2 + c] + me
        k = koff[t, 1]
        for a in range(n0):
            u[k + a] += scratch[s0 + a] - me
        k = koff[t, 2]
        for b in range(n1):
            u[k + b] += scratch[s1 + b] - me
        k = koff[t, 4]
        for c in range(n2):
            u[k + c] += scratch[s2 + c] - me
        u[koff[t, 0]] += me
    elif j == 2:
        s0 = so
        s1 = s0 + n0
        se = s1 + n1
        me = scratch[se]
        k = koff[t, 1]
        for a in range(n0):
            u[k + a] += scratch[s0 + a] - me
        k = koff[t, 2]
        for b in range(n1):
            u[k + b] += scratch[s1 + b] - me
        u[koff[t, 0]] += me
    else:
        u[koff[t, 0]] += scratch[so]


def _lower(tinfo, koff, scratch, u, iw_low):
    """``u`` = the lower sets' ``B^T P`` over all tables, in table order, times ``1 / w`` (after :func:`_means`)."""
    for i in range(u.size):
        u[i] = 0.0
    for t in range(tinfo.shape[0]):
        _lower_table(t, tinfo, koff, scratch, u)
    for i in range(u.size):
        u[i] *= iw_low[i]


def _second(y, tinfo, koff, iw_tab, alpha, beta, shift, has_shift, out, u, scratch,  # noqa: C901
            mode, lam, a_coef, stop, part, poff, t0, t1):
    """:func:`fused_normal`'s pass 2 on the tables ``t0 <= t < t1`` (after pass 1: :func:`_means`,
    :func:`_lower_table`); ``mode=1``: the restart test's terms go to ``part`` per table row when ``part`` is not
    empty (the threads' form), else their sum is returned; ``mode=2``: the running minimum is returned, stopping at
    the first row below ``stop``."""
    qmin = np.inf
    dot = 0.0
    to_part = part.size > 0
    # pass 2: fold every lower term into the (j - 1)-dimensional ones, then one pass over the table
    for t in range(t0, t1):
        j = tinfo[t, 0]
        n0 = tinfo[t, 1]
        n1 = tinfo[t, 2]
        n2 = tinfo[t, 3]
        off = tinfo[t, 4]
        so = tinfo[t, 5]
        iw = iw_tab[t]
        coef = alpha + beta * iw
        p = poff[t] if to_part else 0
        if j == 3:
            s01, s02, s12, s0, s1, s2, se = _scratch3(so, n0, n1, n2)
            me = scratch[se]
            ve = u[koff[t, 0]] / (n0 * n1 * n2)
            k01 = koff[t, 3]
            k0 = koff[t, 1]
            f01 = 1.0 / n2
            f0 = 1.0 / (n1 * n2)
            for a in range(n0):
                for b in range(n1):
                    i = s01 + a * n1 + b
                    scratch[i] = beta * (u[k01 + a * n1 + b] * f01 + u[k0 + a] * f0 + ve
                                         + iw * (scratch[s0 + a] - scratch[i] * f01 - me))
            k02 = koff[t, 5]
            k2 = koff[t, 4]
            f02 = 1.0 / n1
            f2 = 1.0 / (n0 * n1)
            for a in range(n0):
                for c in range(n2):
                    i = s02 + a * n2 + c
                    scratch[i] = beta * (u[k02 + a * n2 + c] * f02 + u[k2 + c] * f2
                                         + iw * (scratch[s2 + c] - scratch[i] * f02))
            k12 = koff[t, 6]
            k1 = koff[t, 2]
            f12 = 1.0 / n0
            f1 = 1.0 / (n0 * n2)
            for b in range(n1):
                for c in range(n2):
                    i = s12 + b * n2 + c
                    scratch[i] = beta * (u[k12 + b * n2 + c] * f12 + u[k1 + b] * f1
                                         + iw * (scratch[s1 + b] - scratch[i] * f12))
            for a in range(n0):
                row02 = scratch[s02 + a * n2:s02 + (a + 1) * n2]
                for b in range(n1):
                    base = off + (a * n1 + b) * n2
                    h = scratch[s01 + a * n1 + b]
                    row12 = scratch[s12 + b * n2:s12 + (b + 1) * n2]
                    yr = y[base:base + n2]
                    outr = out[base:base + n2]
                    if mode == 1:                              # the FISTA step, cell by cell (as _put)
                        shr = shift[base:base + n2]
                        lr = lam[base:base + n2]
                        d0 = 0.0
                        d1 = 0.0
                        for c in range(n2):
                            yi = yr[c]
                            v = shr[c] + coef * yi + (h + row02[c] + row12[c])
                            x = v if v > 0.0 else 0.0
                            li = lr[c]
                            dd = (yi - x) * (x - li)
                            if c & 1:                          # two partial sums: no serial add chain
                                d1 += dd
                            else:
                                d0 += dd
                            outr[c] = x
                            yr[c] = (x - li) * a_coef + x
                        if to_part:
                            part[p + a * n1 + b] = d0 + d1     # the row's term, summed in order later
                        else:
                            dot += d0 + d1
                    elif mode == 2:                            # the trigger's min of v * lam, nothing written
                        shr = shift[base:base + n2]
                        lr = lam[base:base + n2]
                        for c in range(n2):
                            q = (shr[c] + coef * yr[c] + (h + row02[c] + row12[c])) * lr[c]
                            if q < qmin:
                                qmin = q
                        if qmin < stop:                        # the answer is known: below stop
                            return qmin
                    elif has_shift:
                        shr = shift[base:base + n2]
                        for c in range(n2):
                            outr[c] = shr[c] + coef * yr[c] + (h + row02[c] + row12[c])
                    else:
                        for c in range(n2):
                            outr[c] = coef * yr[c] + (h + row02[c] + row12[c])
        elif j == 2:
            s0 = so
            s1 = s0 + n0
            me = scratch[s1 + n1]
            ve = u[koff[t, 0]] / (n0 * n1)
            k0 = koff[t, 1]
            k1 = koff[t, 2]
            f0 = 1.0 / n1
            f1 = 1.0 / n0
            for a in range(n0):
                scratch[s0 + a] = beta * (u[k0 + a] * f0 + ve + iw * (me - scratch[s0 + a]))
            for b in range(n1):
                scratch[s1 + b] = beta * (u[k1 + b] * f1 - iw * scratch[s1 + b])
            for a in range(n0):
                base = off + a * n1
                h = scratch[s0 + a]
                for b in range(n1):
                    v = coef * y[base + b] + (h + scratch[s1 + b])
                    if has_shift:
                        v += shift[base + b]
                    r = _put(mode, base + b, v, y, out, lam, a_coef)
                    if mode == 2:
                        qmin = min(qmin, r)
                    elif to_part:
                        part[p + a * n1 + b] = r
                    else:
                        dot += r
                if mode == 2 and qmin < stop:
                    return qmin
        else:
            h = beta * (u[koff[t, 0]] / n0 - iw * scratch[so])
            for a in range(n0):
                v = coef * y[off + a] + h
                if has_shift:
                    v += shift[off + a]
                r = _put(mode, off + a, v, y, out, lam, a_coef)
                if mode == 2:
                    qmin = min(qmin, r)
                elif to_part:
                    part[p + a] = r
                else:
                    dot += r
            if mode == 2 and qmin < stop:
                return qmin
    return qmin if mode == 2 else dot


def _sum_part(part):
    """The restart test's value: ``part`` summed from the first entry on (fused_normal's running sum, same order)."""
    dot = 0.0
    for i in range(part.size):
        dot += part[i]
    return dot


def fused_normal(y, iw_low, tinfo, koff, iw_tab, alpha, beta, shift, has_shift, out, u, scratch,
                 mode, lam, a_coef, stop):
    r"""``out = alpha y + beta B diag(1/w) P B^T y (+ shift)`` (module docstring). ``tinfo[t]`` = (order ``j``,
    ``n0, n1, n2``, table offset, scratch offset); ``koff[t, mask]`` the offset in the lower-set vector ``u``
    of the subset of the table's axes with bit ``p`` of ``mask`` set for axis ``p``; ``iw_low``: ``1 / w`` on
    the lower-set entries (0 on the empty set); ``iw_tab[t]``: ``1 / w`` of table ``t``'s own set.

    ``mode=1``: the whole FISTA step of the LNN dual in the same pass (:func:`_put`; ``out`` is the new
    multiplier, ``y`` becomes the next momentum point unless the returned restart-test value is positive, in which
    case the caller sets ``y = out``). Returns the restart-test value (0 for ``mode=0``).

    ``mode=2`` (needs ``has_shift``): nothing is written; returns :math:`\min_i v_i\,\mathrm{lam}_i` over the cells of
    ``v = alpha y + beta N y + shift`` (the dual's stopping trigger, ``lam`` = the reciprocal uniform tables);
    it returns early, at the end of the first table row where the running minimum is below ``stop``, that running
    minimum (a cell's value below ``stop``: what a caller that only asks "is the minimum below ``stop``?" needs;
    ``stop = -inf``: the full minimum). ``stop`` is not used by the other modes."""
    ntab = tinfo.shape[0]
    for i in range(u.size):
        u[i] = 0.0
    for t in range(ntab):                              # pass 1, table by table while its means are in cache
        _means(y, tinfo, scratch, t, t + 1)
        _lower_table(t, tinfo, koff, scratch, u)
    for i in range(u.size):
        u[i] *= iw_low[i]
    return _second(y, tinfo, koff, iw_tab, alpha, beta, shift, has_shift, out, u, scratch, mode, lam, a_coef,
                   stop, np.empty(0), np.empty(0, dtype=np.int64), 0, ntab)


_PHASES: Any = None


def phase_kernels() -> Any:
    """The compiled passes (:func:`_means`, :func:`_lower`, :func:`_second`, :func:`_sum_part`; numba ``njit``,
    ``cache=True``, ``nogil=True``: they run in several Python threads at once), compiled with :func:`kernels`."""
    global _PHASES
    if _PHASES is None:
        import types

        kernels()                                      # compiles the passes (module names rebound)
        g = globals()
        _PHASES = types.SimpleNamespace(means=g["_means"], lower=g["_lower"], second=g["_second"],
                                        sum_part=g["_sum_part"])
    return _PHASES


def fused_normal_threaded(pool: Any, bounds: np.ndarray, part: np.ndarray, poff: np.ndarray, y, iw_low, tinfo, koff,
                          iw_tab, alpha, beta, shift, has_shift, out, u, scratch, mode, lam, a_coef, stop, *,
                          threads: int = 2) -> float:
    """:func:`fused_normal` (its arguments after the first four; the same result bit for bit) with the tables split
    in the ranges ``bounds[i] <= t < bounds[i + 1]`` (``bounds[0] = 0``, ``bounds[-1]`` = the number of tables;
    more ranges than threads), run by ``threads`` threads at once: this one and ``threads - 1`` tasks of ``pool`` (a
    ``concurrent.futures`` executor), each taking the next range not yet taken until none is left (a thread the
    machine delays takes fewer ranges; which thread runs a range changes no number: every range writes its own
    tables, scratch and ``part`` entries). The means and the second passes run so; the sum onto the lower sets and
    the restart test's sum run in this thread, in fused_normal's order. ``part`` / ``poff``: a buffer of one entry
    per table row (1-way and 2-way tables: per cell) and each table's offset in it."""
    import itertools

    K = phase_kernels()
    nr = bounds.size - 1
    b = [int(v) for v in bounds]

    def each(f, *args, scan=False):
        res = [np.inf] * nr
        taken = itertools.count()                     # next() is atomic under the GIL: each range taken once

        def work():
            while True:
                i = next(taken)
                if i >= nr:
                    return
                if scan and any(res[q] < stop for q in range(i)):
                    continue                          # an earlier range already answers the trigger's question
                res[i] = f(*args, b[i], b[i + 1])

        futs = [pool.submit(work) for _ in range(max(int(threads), 1) - 1)]
        work()
        for fu in futs:
            fu.result()
        return res

    each(K.means, y, tinfo, scratch)
    K.lower(tinfo, koff, scratch, u, iw_low)
    q = each(K.second, y, tinfo, koff, iw_tab, alpha, beta, shift, has_shift, out, u, scratch, mode, lam, a_coef,
             stop, part, poff, scan=mode == 2)
    if mode == 1:
        return float(K.sum_part(part))
    if mode == 2:                                      # the serial scan's answer: the first range below stop
        qmin = np.inf
        for v in q:
            qmin = min(qmin, v)
            if qmin < stop:
                break
        return float(qmin)
    return 0.0
