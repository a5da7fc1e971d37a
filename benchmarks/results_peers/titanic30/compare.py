"""Titanic at epsilon 0.3: the branch's default against every recorded AIM / MST run (their noise is not seeded:
every run an independent draw). Ratio of means with an approximate 95% interval (delta method, Welch standard
errors), and the per-run ratios against the mean of ours. Run from the worktree root:
``python benchmarks/results_peers/titanic30/compare.py > benchmarks/results_peers/titanic30/summary_compare.txt``"""

import json
import math
from pathlib import Path

import numpy as np

R = Path("benchmarks/results_peers")
PEER_FILES = [R / "runtime_v29_aim/rows.jsonl", R / "titanic30/rows_aim.jsonl", R / "titanic30/rows_peers.jsonl",
              Path("benchmarks/results_catrule/cat29/rows_peers.jsonl"), R / "runtime_v8/rows_a.jsonl",
              R / "runtime_v8/rows_c.jsonl"]


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
    """(with, without) per seed from the evaluation run (select_eval.py, seeds 0-4)."""
    w, wo = [], []
    for ln in (R / "titanic30/eval_select.txt").read_text().splitlines()[1:]:
        p = ln.split()
        if p[0] == "titanic" and float(p[1]) == eps and p[2] != "all":
            wo.append(float(p[3]))
            w.append(float(p[4]))
    return w, wo


def ratio(a: list[float], b: list[float]) -> tuple[float, float, float]:
    ma, mb = float(np.mean(a)), float(np.mean(b))
    va = np.var(a, ddof=1) / len(a) if len(a) > 1 else 0.0
    vb = np.var(b, ddof=1) / len(b) if len(b) > 1 else 0.0
    r = ma / mb
    se = r * math.sqrt(va / ma ** 2 + vb / mb ** 2)
    return r, r - 1.96 * se, r + 1.96 * se


for eps in (0.3,):
    w, wo = ours(eps)
    print(f"titanic epsilon {eps}: ours (the private 1-way selection on) mean {np.mean(w):.4f} over seeds 0-4 "
          f"{[round(x, 4) for x in w]}; without it {np.mean(wo):.4f} {[round(x, 4) for x in wo]}")
    for meth in ("aim", "mst"):
        runs = peer_runs(meth, eps)
        vals = [v for _, v in runs]
        r, lo, hi = ratio(w, vals)
        r0, lo0, hi0 = ratio(wo, vals)
        print(f"  {meth}: {len(vals)} runs, mean {np.mean(vals):.4f} (range {min(vals):.4f}-{max(vals):.4f}); "
              f"ratio of means ours / {meth} {r:.3f} [{lo:.3f}, {hi:.3f}] (without the step {r0:.3f} "
              f"[{lo0:.3f}, {hi0:.3f}]); ours below every run: {max(w) < min(vals)}")
        for src, v in runs:
            print(f"    {src}: {v:.4f} -> ratio {np.mean(w) / v:.3f}")
