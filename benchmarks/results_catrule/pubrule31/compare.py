"""Titanic at epsilon 0.3 and 1: the new default (tau_1 = 2.5 + the 1-way shrinkage; eval_chosen_titanic.txt, seeds
0-4) and main's default (same file, same seeds) against every recorded AIM / MST run (their noise is not seeded:
every run an independent draw). Ratio of means with an approximate 95% interval (delta method, Welch standard
errors). Run from the worktree root:
``python benchmarks/results_catrule/pubrule31/compare.py > benchmarks/results_catrule/pubrule31/summary_compare.txt``"""

import json
import math
from pathlib import Path

import numpy as np

R = Path("benchmarks/results_peers")
PEER_FILES = [R / "runtime_v29_aim/rows.jsonl", R / "runtime_v9_aim/rows.jsonl", R / "titanic30/rows_aim.jsonl",
              R / "titanic30/rows_aim1.jsonl",
              R / "titanic30/rows_peers.jsonl", Path("benchmarks/results_catrule/cat29/rows_peers.jsonl"),
              R / "runtime_v8/rows_a.jsonl", R / "runtime_v8/rows_c.jsonl",
              Path("benchmarks/results_catrule/pubrule31/rows_peers.jsonl"),
              Path("benchmarks/results_catrule/pubrule31/rows_aim1.jsonl")]


def peer_runs(meth: str, eps: float) -> list[tuple[str, float]]:
    out = []
    for f in PEER_FILES:
        if f.exists():
            for ln in f.read_text().splitlines():
                r = json.loads(ln) if ln.strip() else {}
                if r.get("method") == meth and r.get("dataset") == "titanic" and r.get("epsilon") == eps \
                        and r.get("l1") is not None:
                    out.append((f.parent.name + "/" + f.name, float(r["l1"])))
    return out


def ours(eps: float) -> tuple[list[float], list[float]]:
    """(new default, main's default) per seed from the evaluation run."""
    new, old = [], []
    for ln in Path("benchmarks/results_catrule/pubrule31/eval_chosen_titanic.txt").read_text().splitlines()[1:]:
        p = ln.split()
        if p[0] == "titanic" and float(p[1]) == eps:
            old.append(float(p[3]))
            new.append(float(p[4]))
    return new, old


def ratio(a: list[float], b: list[float]) -> tuple[float, float, float]:
    ma, mb = float(np.mean(a)), float(np.mean(b))
    va = np.var(a, ddof=1) / len(a) if len(a) > 1 else 0.0
    vb = np.var(b, ddof=1) / len(b) if len(b) > 1 else 0.0
    r = ma / mb
    se = r * math.sqrt(va / ma ** 2 + vb / mb ** 2)
    return r, r - 1.96 * se, r + 1.96 * se


for eps in (0.3, 1.0):
    new, old = ours(eps)
    print(f"titanic epsilon {eps}: new default mean {np.mean(new):.4f} {[round(x, 4) for x in new]}; main's default "
          f"{np.mean(old):.4f} {[round(x, 4) for x in old]}")
    for meth in ("aim", "mst"):
        runs = peer_runs(meth, eps)
        if not runs:
            continue
        vals = [v for _, v in runs]
        r, lo, hi = ratio(new, vals)
        r0, lo0, hi0 = ratio(old, vals)
        print(f"  {meth}: {len(vals)} runs, mean {np.mean(vals):.4f} (range {min(vals):.4f}-{max(vals):.4f}); ratio of "
              f"means new / {meth} {r:.3f} [{lo:.3f}, {hi:.3f}] (main's default {r0:.3f} [{lo0:.3f}, {hi0:.3f}]); "
              f"new below every run: {max(new) < min(vals)}; mean below {sum(np.mean(new) < v for v in vals)} of "
              f"{len(vals)}")
