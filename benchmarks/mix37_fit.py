"""Fit of the exact-polytope allocation rule t(snr) to the rows of benchmarks/mix37_study.py (issue 14, session 37).

Per (shape, epsilon) cell: the mean error over the seeds present in every row of the cell at each grid ``t`` and at
the shipped rule's ``t`` (row ``ref``, the current default, an extra point of the curve); a candidate rule
``t = t_max / (1 + (snr/snr0)^power)`` (the form of ``marginals_pipeline.auto_mix``) gets its error read off the
cell's curve (piecewise-linear in ``t``, clipped to the grid's ends). Regret = error / best measured error - 1.
Prints the per-cell table (best grid t, the shipped rule's t and regret, the top-order multipliers ``g`` as
ratios to ``ref``), then the best candidate rules by mean regret, with their ratio to the shipped rule per cell
(geometric mean, worst).

Usage: python benchmarks/mix37_fit.py benchmarks/results_marginals/mix37/synthetic_seed0.jsonl \
           benchmarks/results_marginals/mix37/synthetic_seeds12.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections import defaultdict

import numpy as np


def rule(snr: float, t_max: float, snr0: float, power: float) -> float:
    return t_max / (1.0 + (snr / snr0) ** power)


def load(paths: list[str]) -> tuple[dict, dict, dict]:
    rows: dict = defaultdict(lambda: defaultdict(dict))   # (data, eps) -> key -> seed -> l1
    snr, tref = {}, {}
    for line in (ln for p in paths for ln in open(p)):
        r = json.loads(line)
        cell = (r["data"], r["eps"])
        snr[cell] = r["snr"]
        if r["kind"] == "ref":
            key = ("t", round(r["t"], 6))
            tref[cell] = r["t"]
            rows[cell]["ref"][r["seed"]] = r["l1"]
        elif r["kind"] == "t":
            key = ("t", round(r["t"], 6))
        else:
            key = ("g", r["g"])
        rows[cell][key][r["seed"]] = r["l1"]
    return rows, snr, tref


def curves(rows: dict) -> dict:
    out = {}
    for cell, by in rows.items():
        tkeys = [k for k in by if k == "ref" or k[0] == "t"]
        seeds = sorted(set.intersection(*(set(by[k]) for k in tkeys)))
        if not seeds:
            continue
        ts = sorted({k[1] for k in tkeys if k != "ref"})
        if len(ts) < 3:   # a cell cut off before its grid (the first run was stopped mid-cell): left out
            continue
        errs = np.array([np.mean([by[("t", t)][s] for s in seeds]) for t in ts])
        ref = np.mean([by["ref"][s] for s in seeds])
        g = {}   # the top-order multiplier: its own seeds (the g rows may cover fewer seeds than the t rows)
        for k in by:
            if k != "ref" and k[0] == "g":
                gs = sorted(set(by[k]) & set(by["ref"]))
                g[k[1]] = np.mean([by[k][s] for s in gs]) / np.mean([by["ref"][s] for s in gs])
        out[cell] = (np.array(ts), errs, ref, g, len(seeds))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    rows, snr, tref = load(args.paths)
    cv = curves(rows)
    print("data eps snr seeds best_t best/ref ref_t ref_regret  g-ratios (g: err/ref)")
    for cell, (ts, es, ref, g, ns) in sorted(cv.items()):
        b = int(np.argmin(es))
        best = min(es.min(), ref)
        gs = " ".join(f"{k:g}:{v:.4f}" for k, v in sorted(g.items()))
        print(f"{cell[0]} {cell[1]:g} {snr[cell]:.2f} {ns} {ts[b]:g} {es[b] / ref:.4f} {tref[cell]:.3f} "
              f"{ref / best - 1:.4f}  {gs}")
    gm = defaultdict(list)
    for (_, _, _, g, _) in cv.values():
        for k, v in g.items():
            gm[k].append(np.log(v))
    print("top-order multiplier g at the shipped t: geometric mean over cells of err/ref, worst, best:",
          {k: (round(float(np.exp(np.mean(v))), 4), round(float(np.exp(max(v))), 4),
               round(float(np.exp(min(v))), 4)) for k, v in sorted(gm.items())})

    def evaluate(params):
        reg, rat = [], []
        for cell, (ts, es, ref, _, _) in cv.items():
            best = min(es.min(), ref)
            e = float(np.interp(rule(snr[cell], *params), ts, es))
            reg.append(e / best - 1)
            rat.append(e / ref)
        return float(np.mean(reg)), float(np.max(reg)), float(np.exp(np.mean(np.log(rat)))), float(np.max(rat))

    shipped = evaluate((1.0, 15.0, 1.0))
    print(f"shipped cube rule (1, 15, 1) read off the curves: mean regret {shipped[0]:.4f} worst {shipped[1]:.4f}")
    ref_reg = [cv[c][2] / min(cv[c][1].min(), cv[c][2]) - 1 for c in cv]
    print(f"shipped rule, measured (ref rows): mean regret {np.mean(ref_reg):.4f} worst {np.max(ref_reg):.4f}")
    cands = []
    for t_max, snr0, power in itertools.product((0.6, 0.8, 1.0, 1.2, 1.4, 1.7, 2.0),
                                                (5, 7, 10, 15, 20, 30, 40, 60, 80, 120, 200),
                                                (0.5, 0.75, 1.0, 1.5, 2.0)):
        cands.append(((t_max, snr0, power), evaluate((t_max, snr0, power))))
    cands.sort(key=lambda c: (c[1][0], c[1][1]))
    print("best rules: (t_max, snr0, power) mean_regret worst_regret geo_mean(rule/ref) worst(rule/ref)")
    for p, (mr, wr, gmr, wrat) in cands[:15]:
        print(p, f"{mr:.4f} {wr:.4f} {gmr:.4f} {wrat:.4f}")
    best = cands[0][0]
    print("per cell for the best rule", best)
    for cell, (ts, es, ref, _, _) in sorted(cv.items()):
        t = rule(snr[cell], *best)
        print(f"  {cell[0]} {cell[1]:g} t={t:.3f} interp/ref={float(np.interp(t, ts, es)) / ref:.4f}")


if __name__ == "__main__":
    main()
