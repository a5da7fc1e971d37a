"""Summary of ``lead39_select_study.py`` rows: per variant, the paired ratio variant / base per cell (shape x
epsilon; geometric mean over seeds), then over cells their geometric mean, worst and best; with ``--aim``, the mean
error per (data, epsilon) and its ratio to AIM's mean (dpmm rows, method "aim").

Usage: python benchmarks/lead39_select_summary.py FILE [FILE ...] [--aim]
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REF = "base"


def aim_means() -> dict[tuple[str, float], tuple[float, int]]:
    vals = collections.defaultdict(list)
    for f in glob.glob(str(ROOT / "benchmarks/results_peers/**/rows*.jsonl"), recursive=True):
        for line in open(f):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("method") == "aim" and r.get("l1") is not None:
                vals[(r["dataset"], float(r["epsilon"]))].append(float(r["l1"]))
    return {k: (sum(v) / len(v), len(v)) for k, v in vals.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--aim", action="store_true")
    ap.add_argument("--ref", default="base", help="the variant the others are paired against")
    args = ap.parse_args()
    global REF
    REF = args.ref
    err: dict[tuple[str, float, int, str], float] = {}
    for f in args.files:
        for line in open(f):
            p = line.split()
            if len(p) < 5 or p[0] == "data":
                continue
            err[(p[0], float(p[1]), int(p[2]), p[3])] = float(p[4])
    variants = sorted({k[3] for k in err}, key=lambda v: (v != REF, v))
    cells = sorted({(k[0], k[1]) for k in err})
    print(f"{len(cells)} cells; paired ratio variant / {REF} (geometric mean over seeds per cell)")
    print("variant cells geomean worst (cell) best (cell)")
    for v in variants:
        if v == REF:
            continue
        rs = []
        for c in cells:
            seeds = [k[2] for k in err if k[:2] == c and k[3] == REF and (c[0], c[1], k[2], v) in err]
            if seeds:
                rs.append((math.exp(sum(math.log(err[(*c, s, v)] / err[(*c, s, REF)]) for s in seeds) / len(seeds)),
                           c))
        if not rs:
            continue
        g = math.exp(sum(math.log(r) for r, _ in rs) / len(rs))
        w, b = max(rs), min(rs)
        print(f"{v} {len(rs)} {g:.4f} {w[0]:.4f} ({w[1][0]} {w[1][1]:g}) {b[0]:.4f} ({b[1][0]} {b[1][1]:g})")
    print("\nper cell (ratio to base)")
    print("cell " + " ".join(v for v in variants if v != REF))
    for c in cells:
        row = []
        for v in variants:
            if v == REF:
                continue
            seeds = [k[2] for k in err if k[:2] == c and k[3] == REF and (c[0], c[1], k[2], v) in err]
            logs = [math.log(err[(*c, s, v)] / err[(*c, s, REF)]) for s in seeds]
            row.append(f"{math.exp(sum(logs) / len(logs)):.3f}" if seeds else "-")
        print(f"{c[0]}@{c[1]:g} " + " ".join(row))
    if args.aim:
        aim = aim_means()
        print("\nmean L1 / m per (data, epsilon) and ratio to AIM's mean (dpmm rows)")
        for c in cells:
            a = aim.get(c)
            for v in variants:
                vals = [e for k, e in err.items() if k[:2] == c and k[3] == v]
                if vals:
                    m = sum(vals) / len(vals)
                    extra = f" / AIM {a[0]:.4f} ({a[1]} runs) = {m / a[0]:.3f}" if a else ""
                    print(f"{c[0]} {c[1]:g} {v}: {m:.4f} ({len(vals)} seeds){extra}")


if __name__ == "__main__":
    main()
