"""The replace-one sensitivity search's vectorized pieces (session 30, branch adult30) against the loops they
replaced: the symmetry classes (``_attribute_classes``), the difference patterns and the per-pattern values give
bit-identical sensitivities (the privacy calibration must not move by a single ulp)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import sosproj.mechanisms.marginals_pipeline as mp
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.privacy.spec import Adjacency


def _classes_reference(layout, s):
    """The loop of main ba2adb9: swap each class's first attribute with every other member."""
    sizes = layout.sizes
    wl = set(layout.workload)
    by_size: dict[int, list[int]] = {}
    for i, n_i in enumerate(sizes):
        by_size.setdefault(n_i, []).append(i)
    pos = layout.res_pos
    for cls_ in by_size.values():
        for j in cls_[1:]:
            perm = list(range(len(sizes)))
            perm[cls_[0]], perm[j] = j, cls_[0]
            if {tuple(sorted(perm[a] for a in w)) for w in wl} != wl:
                return None
            for A, i in pos.items():
                B = tuple(sorted(perm[a] for a in A))
                if not math.isclose(s[pos[B]], s[i], rel_tol=1e-9):
                    return None
    return list(by_size.values())


def _sensitivity_reference(layout, s):
    """Replace-one sensitivity by main ba2adb9's pattern loop and 3-d product (exact branches only)."""
    sets = layout.residual_sets
    sizes = np.array(layout.sizes, dtype=float)
    inv_s2 = 1.0 / np.asarray(s, dtype=float) ** 2
    p = np.array([math.prod((sizes[i] - 1) / sizes[i] for i in A) for A in sets])
    nonempty = [i for i, A in enumerate(sets) if A]
    kmax = max((len(A) for A in sets), default=0)
    idx = np.full((len(nonempty), max(kmax, 1)), -1, dtype=np.int64)
    for r, i in enumerate(nonempty):
        idx[r, :len(sets[i])] = sets[i]
    w = inv_s2[nonempty]
    pn = p[nonempty]
    valid = idx >= 0
    same = np.where(valid, 1.0 - 1.0 / sizes[np.maximum(idx, 0)], 1.0)
    diff = np.where(valid, -1.0 / sizes[np.maximum(idx, 0)], 1.0)

    def value(Dmask):
        inD = np.where(valid[None], Dmask[:, np.maximum(idx, 0)], False)
        prod = np.where(inD, diff[None], same[None]).prod(axis=2)
        return (2.0 * (pn[None] - prod)) @ w

    n = len(layout.sizes)
    classes = _classes_reference(layout, np.asarray(s))
    if classes is not None:
        counts = list(itertools.product(*[range(len(c) + 1) for c in classes]))
        patterns = np.zeros((len(counts), n), dtype=bool)
        for r, cnt in enumerate(counts):
            for c, q in zip(classes, cnt, strict=True):
                patterns[r, c[:q]] = True
    else:
        patterns = ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    best, arg = -1.0, 0
    for lo in range(0, len(patterns), 4096):
        vals = value(patterns[lo:lo + 4096])
        j = int(np.argmax(vals))
        if vals[j] > best:
            best, arg = float(vals[j]), lo + j
    return {"sensitivity": float(math.sqrt(max(best, 0.0))), "exact": True, "patterns": int(len(patterns)),
            "worst_pattern_size": int(patterns[arg].sum())}


LAYOUTS = [((2, 2, 2, 2), 2), ((3, 2, 3, 2, 3), 2), ((3, 2, 3, 2, 3), 3), ((2, 3, 4, 2, 3, 4), 3),
           ((4, 4, 4, 4, 4), 3), ((5, 3, 5, 3, 2, 2, 5), 1)]


@pytest.mark.parametrize(("sizes", "k"), LAYOUTS)
def test_sensitivity_bit_identical_to_the_loops(sizes, k):
    rng = np.random.default_rng(len(sizes) * 10 + k)
    lay = ResidualLayout(sizes, all_k_way(len(sizes), k))
    shapes = [np.asarray(mp.allocation_shape(lay, "auto", m=500, epsilon=1.0), dtype=float),
              rng.uniform(0.5, 2.0, len(lay.residual_sets))]
    dropped = shapes[0].copy()                     # a symmetric family with the top order unmeasured (s = inf)
    for i, A in enumerate(lay.residual_sets):
        if len(A) == k and k > 1:
            dropped[i] = np.inf
    near = shapes[0] * (1.0 + 1e-12 * rng.standard_normal(shapes[0].size))   # within isclose's 1e-9
    off = shapes[0].copy()                         # one set off by 1e-6: breaks the symmetry
    off[-1] *= 1.0 + 1e-6
    for s in (*shapes, dropped, near, off):
        assert mp._attribute_classes(lay, s) == _classes_reference(lay, s)
        assert mp.residual_sensitivity(lay, s, Adjacency.REPLACE_ONE) == _sensitivity_reference(lay, s)


def test_classes_cache_is_per_layout_and_reads_only_the_layout():
    """The swap maps are cached per layout object; a different layout of the same sizes gets its own, and a
    workload that is not symmetric under a swap gives no classes (the 2^n search)."""
    a = ResidualLayout((3, 3, 2), [(0, 1), (0, 2), (1, 2)])
    b = ResidualLayout((3, 3, 2), [(0, 2), (1, 2)])
    sa = np.ones(len(a.residual_sets))
    sb = np.ones(len(b.residual_sets))
    assert mp._attribute_classes(a, sa) == [[0, 1], [2]]
    assert mp._attribute_classes(b, sb) == [[0, 1], [2]]
    c = ResidualLayout((3, 3, 2), [(0, 1), (0, 2)])    # swapping 0 and 1 moves (0, 2) to (1, 2): not symmetric
    sc = np.ones(len(c.residual_sets))
    assert mp._attribute_classes(c, sc) is None and _classes_reference(c, sc) is None


def test_release_unchanged_with_the_reference_search(monkeypatch):
    """A default categorical release (Titanic, all 3-way, replace-one: the skip rule's rounds call the search) with
    the vectorized search and with main's loops: the same noise scales, the same tables bit for bit, both
    converged."""
    import sosproj as sp

    ds = sp.load_dataset("titanic")
    kw = dict(epsilon=1.0, delta=1e-9, rng=3)
    new = sp.release_marginals(ds, 3, **kw)
    orig = mp.residual_sensitivity

    def reference(layout, s, adjacency):
        return _sensitivity_reference(layout, s) if adjacency is Adjacency.REPLACE_ONE else orig(layout, s, adjacency)

    monkeypatch.setattr(mp, "residual_sensitivity", reference)
    ref = sp.release_marginals(ds, 3, **kw)
    assert new.info["reconstruction_info"]["converged"] and ref.info["reconstruction_info"]["converged"]
    n = len(ds.domain.sizes)
    for w in itertools.combinations(range(n), 3):
        assert np.array_equal(new.table(w), ref.table(w))
