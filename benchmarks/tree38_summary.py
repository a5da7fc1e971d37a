"""Summary of ``tree38_study.py`` rows: per (data, selection, epsilon) the geometric mean over seeds of the paired
ratio err(prior) / err(uniform), with a 95% t-interval (over seeds, on the log ratios) when there are >= 3 seeds;
the mean errors and CPU per release; then per (data, selection) and overall the geometric means and worst cells.
Optionally AIM's mean error per (data, epsilon) from dpmm ``rows_aim_dpmm.jsonl`` files (method "aim").

Usage: python benchmarks/tree38_summary.py study_fit.txt [--aim rows1.jsonl rows2.jsonl]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict

import numpy as np
from scipy import stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--aim", nargs="*", default=[])
    args = ap.parse_args()
    rows = {}
    for f in args.files:
        for line in open(f):
            p = line.split()
            if not p or p[0] == "data":
                continue
            rows[(p[0], float(p[1]), int(p[2]), p[3], p[4])] = (float(p[5]), float(p[6]))
    aim = defaultdict(list)
    for f in args.aim:
        for line in open(f):
            d = json.loads(line)
            if d.get("method") == "aim" and d.get("l1") is not None:
                aim[(d["dataset"], float(d["epsilon"]))].append((int(d["seed"]), float(d["l1"])))
    priors = sorted({k[4] for k in rows} - {"uniform"})
    cells = sorted({(k[0], k[3], k[1]) for k in rows})
    print("data selection eps n_seeds err_uniform cpu_uniform " + " ".join(
        f"err_{p} ratio_{p} ci95_{p} cpu_{p}" for p in priors) + (" aim_mean" if aim else ""))
    per = defaultdict(list)
    for d, sel, eps in cells:
        seeds = sorted(k[2] for k in rows if k[0] == d and k[3] == sel and k[1] == eps and k[4] == "uniform")
        seeds = [s for s in seeds if all((d, eps, s, sel, p) in rows for p in priors)]
        if not seeds:
            continue
        u = np.array([rows[(d, eps, s, sel, "uniform")][0] for s in seeds])
        cu = np.mean([rows[(d, eps, s, sel, "uniform")][1] for s in seeds])
        out = [f"{d} {sel} {eps:g} {len(seeds)} {u.mean():.5f} {cu:.2f}"]
        for p in priors:
            e = np.array([rows[(d, eps, s, sel, p)][0] for s in seeds])
            c = np.mean([rows[(d, eps, s, sel, p)][1] for s in seeds])
            lr = np.log(e / u)
            g = math.exp(lr.mean())
            if len(seeds) >= 3:
                h = stats.t.ppf(0.975, len(seeds) - 1) * lr.std(ddof=1) / math.sqrt(len(seeds))
                ci = f"[{math.exp(lr.mean() - h):.4f},{math.exp(lr.mean() + h):.4f}]"
            else:
                ci = "-"
            out.append(f"{e.mean():.5f} {g:.4f} {ci} {c:.2f}")
            per[(p, d, sel)].append(g)
            per[(p, "ALL", sel)].append(g)
            per[(p, "ALL", "ALL")].append(g)
        if aim:
            a = aim.get((d, eps))
            if a:   # the mean over seeds of each seed's mean (repeats averaged)
                by = defaultdict(list)
                for sd, v in a:
                    by[sd].append(v)
                out.append(f"{np.mean([np.mean(v) for v in by.values()]):.5f}(seeds={len(by)})")
            else:
                out.append("-")
        print(" ".join(out))
    print("\nprior data selection n_cells geomean_ratio worst_cell best_cell")
    for (p, d, sel), gs in sorted(per.items()):
        print(f"{p} {d} {sel} {len(gs)} {math.exp(np.mean(np.log(gs))):.4f} {max(gs):.4f} {min(gs):.4f}")


if __name__ == "__main__":
    main()
