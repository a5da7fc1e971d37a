"""Fit of the cube rule t(snr) to the fine-grid rows of benchmarks/binlow35_study.py (session 35).

Per (shape, snr) cell: mean error over the paired seeds at every t of the grid, the best grid t, the
error at main's cube rule t = 1/(1 + snr/15) (a row of its own, ``--current``), and for a candidate rule
``t = t_max / (1 + (snr/snr0)^power)`` its error read off the cell's curve (piecewise-linear in t between
measured points; clipped to the grid's ends). Regret = error / best grid error - 1. Prints the cell table
and the best candidate rules by mean regret (worst-cell regret as the tie-break).

Usage: python benchmarks/binlow35_fit.py benchmarks/results_allocation/binlow35/raw_*.txt [--exclude SHAPE ...]
"""

from __future__ import annotations

import argparse
import itertools
from collections import defaultdict

import numpy as np


def cube_rule(snr: float, t_max: float = 1.0, snr0: float = 15.0, power: float = 1.0, snr_lo: float = 0.0,
              power_lo: float = 1.0) -> float:
    """``t_max / (1 + (snr/snr0)^power)``, times the fall-off ``1 / (1 + (snr_lo/snr)^power_lo)`` if ``snr_lo > 0``
    (the form of sosproj.mechanisms.marginals_pipeline.auto_mix)."""
    t = t_max / (1.0 + (snr / snr0) ** power)
    return t / (1.0 + (snr_lo / snr) ** power_lo) if snr_lo > 0 else t


#: the t values of the study's grids (the rows of main's rule and of a candidate rule are extra points)
GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.4, 1.7, 2.0)


def load(paths: list[str], exclude: set[str]) -> dict:
    cells: dict = defaultdict(lambda: defaultdict(dict))   # (shape, snr) -> t -> seed -> err
    for p in paths:
        for line in open(p):
            f = line.split()
            if not f or f[0] == "shape" or f[0] in exclude:
                continue
            cells[(f[0], round(float(f[3]), 3))][float(f[2])][int(f[4])] = float(f[5])
    return cells


def curves(cells: dict) -> dict:
    """(shape, snr) -> (ts, mean errors) over the seeds present at every t of the cell."""
    out = {}
    for key, by_t in cells.items():
        seeds = set.intersection(*(set(v) for v in by_t.values()))
        if len(seeds) < 2:
            continue
        ts = np.array(sorted(by_t))
        errs = np.array([np.mean([by_t[t][s] for s in sorted(seeds)]) for t in ts])
        out[key] = (ts, errs, len(seeds))
    return out


def err_at(curve: tuple, t: float) -> float:
    ts, errs, _ = curve
    return float(np.interp(t, ts, errs))


def _gm_ci(x: np.ndarray) -> tuple[float, float, float]:
    """Geometric mean of per-seed ratios with a 95% Student-t interval on the log-ratios."""
    from scipy.stats import t as student

    lg = np.log(x)
    h = float(student.ppf(0.975, len(lg) - 1) * lg.std(ddof=1) / np.sqrt(len(lg))) if len(lg) > 1 else np.inf
    return float(np.exp(lg.mean())), float(np.exp(lg.mean() - h)), float(np.exp(lg.mean() + h))


def _main_row(by_t: dict, tc: float, tol: float = 2e-4) -> float | None:
    """The cell's row of main's rule: the measured ``t`` nearest ``tc`` within ``tol`` (the rows print the
    SNR to 4 digits, so ``tc`` recomputed from it can be off by ~1e-4 at snr ~10)."""
    t = min(by_t, key=lambda x: abs(x - tc))
    return t if abs(t - tc) < tol else None


def paired_cells(cells: dict):
    """Per cell with main's rule's row and a ``t = 1`` row, paired over the seeds present at every grid ``t``:
    ``(key, seeds, main's t, its rows, best grid t, main / t=1, main / best t)``, the ratios as geometric means
    with 95% intervals (:func:`_gm_ci`)."""
    for key in sorted(cells, key=lambda k: (k[0], k[1])):
        by_t = cells[key]
        tc = cube_rule(key[1])
        find = _main_row(by_t, tc)
        if find is None or 1.0 not in by_t:
            continue
        main_t = by_t[find]
        grid = [t for t in by_t if any(abs(t - g) < 1e-9 for g in GRID)]
        seeds = sorted(set(main_t).intersection(*(set(by_t[t]) for t in grid)))
        if len(seeds) < 2:
            continue
        tb = min(grid, key=lambda t: np.mean([by_t[t][s] for s in seeds]))
        r1 = _gm_ci(np.array([main_t[s] / by_t[1.0][s] for s in seeds]))
        rb = _gm_ci(np.array([main_t[s] / by_t[tb][s] for s in seeds]))
        yield key, seeds, tc, main_t, tb, r1, rb


def paired_table(cells: dict, rule: list[float]) -> None:
    """Per cell, paired over seeds: main's rule / t = 1, main's rule / best grid t, and (if given and measured)
    the rule / main's rule (geometric means with 95% intervals)."""
    print("\n| shape | snr | main / t=1 | main / best grid t (t) | rule / main (rule's t) |")
    print("|---|---|---|---|---|")
    for key, seeds, tc, main_t, tb, r1, rb in paired_cells(cells):
        txt = "-"
        if rule:
            tr = cube_rule(key[1], *rule)
            fr = [t for t in cells[key] if abs(t - tr) < 1e-5]
            if fr and abs(tr - tc) > 1e-5:
                rr = _gm_ci(np.array([cells[key][fr[0]][s] / main_t[s] for s in seeds]))
                txt = f"{rr[0]:.4f} [{rr[1]:.4f}, {rr[2]:.4f}] ({tr:.2f})"
        print(f"| {key[0]} | {key[1]:g} | {r1[0]:.4f} [{r1[1]:.4f}, {r1[2]:.4f}] | "
              f"{rb[0]:.4f} [{rb[1]:.4f}, {rb[2]:.4f}] ({tb:g}) | {txt} |")


def doc_rows(cells: dict, suffix: str = "") -> list[str]:
    """The rows of docs/bench_allocation.md's table "Binary data at low SNR (session 35)": per cell, the paired
    seeds, the best grid ``t`` (lowest mean error over those seeds), main's ``t``, and the paired geometric means
    main / best ``t`` and main / ``t = 1`` with 95% intervals (``tests/test_binlow35_record.py`` checks the doc)."""
    return [f"| {key[0]}{suffix} | {key[1]:g} | {len(seeds)} | {tb:g} | {tc:.2f} | "
            f"{rb[0]:.4f} [{rb[1]:.4f}, {rb[2]:.4f}] | {r1[0]:.4f} [{r1[1]:.4f}, {r1[2]:.4f}] |"
            for key, seeds, tc, _, tb, r1, rb in paired_cells(cells)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--exclude", nargs="*", default=[])
    ap.add_argument("--paired", type=float, nargs="*", default=None,
                    help="paired table: main's rule against t = 1, the best grid t and a rule (t_max snr0 power "
                         "[snr_lo power_lo]) measured as its own row (--rule of the study)")
    ap.add_argument("--doc", default=None, metavar="SUFFIX",
                    help="print only the doc table's rows (doc_rows), the shape names followed by SUFFIX")
    a = ap.parse_args()
    if a.doc is not None:
        print("\n".join(doc_rows(load(a.paths, set(a.exclude)), a.doc)))
        return
    cv = curves(load(a.paths, set(a.exclude)))
    grid = GRID
    print("| shape | snr | seeds | best grid t | err best | err t=1 | err main rule (t) | main / best | t=1 / best |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in sorted(cv, key=lambda k: (k[0], k[1])):
        ts, errs, ns = cv[key]
        on = [i for i, t in enumerate(ts) if any(abs(t - g) < 1e-9 for g in grid)]
        ib = on[int(np.argmin(errs[on]))]
        tc = cube_rule(key[1])
        ec = err_at(cv[key], tc)
        e1 = err_at(cv[key], 1.0)
        print(f"| {key[0]} | {key[1]:g} | {ns} | {ts[ib]:g} | {errs[ib]:.5f} | {e1:.5f} | {ec:.5f} ({tc:.2f}) | "
              f"{ec / errs[ib]:.4f} | {e1 / errs[ib]:.4f} |")

    if a.paired:
        paired_table(load(a.paths, set(a.exclude)), a.paired)

    def regrets(rule) -> np.ndarray:
        r = []
        for key, c in cv.items():
            ts, errs, _ = c
            best = errs.min()
            r.append(err_at(c, rule(key[1])) / best - 1.0)
        return np.array(r)

    if a.paired:
        print("\ncandidate rule / main's rule, read off the cells' curves (interpolated where not measured):")
        for key in sorted(cv, key=lambda k: (k[0], k[1])):
            tr, tc = cube_rule(key[1], *a.paired), cube_rule(key[1])
            if abs(tr - tc) > 1e-3:
                print(f"  {key[0]} snr {key[1]:g}: t {tc:.3f} -> {tr:.3f}: "
                      f"{err_at(cv[key], tr) / err_at(cv[key], tc):.4f}")
    base = regrets(cube_rule)
    print(f"\nmain's rule (1, 15, 1): mean regret {base.mean():.4%}, worst {base.max():.4%} over {len(base)} cells")
    res = []
    for tmax, snr0, power, lo, plo in itertools.product([0.9, 1.0, 1.1, 1.2], [5, 7.5, 10, 15, 20, 25, 30, 40, 50],
                                                        [1.0, 1.5, 2.0, 3.0], [0.0, 0.1, 0.2, 0.3, 0.5],
                                                        [2.0, 3.0, 6.0]):
        if lo == 0.0 and plo != 2.0:
            continue
        r = regrets(lambda s, a=tmax, b=snr0, c=power, d=lo, e=plo: cube_rule(s, a, b, c, d, e))
        res.append((r.mean(), r.max(), tmax, snr0, power, lo, plo))
    res.sort()
    print("best candidates (t_max, snr0, power, snr_lo, power_lo): mean regret, worst cell")
    for mr, wr, *par in res[:15]:
        print(f"  {tuple(par)}: {mr:.4%}, worst {wr:.4%}")
    print("best without the fall-off (snr_lo = 0):")
    for mr, wr, *par in [r for r in res if r[5] == 0.0][:5]:
        print(f"  {tuple(par)}: {mr:.4%}, worst {wr:.4%}")


if __name__ == "__main__":
    main()
