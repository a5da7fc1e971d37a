"""Session 32 (lead): titanic, the default against every recorded AIM / MST run (their noise is not seeded: every
run an independent draw). Ratio of means with an approximate 95% interval (delta method, Welch standard errors),
as benchmarks/results_catrule/pubrule31/compare.py. Our rows: ``ours.py`` (labels below). Run from the repository
root: ``python benchmarks/results_peers/aim32/compare.py > benchmarks/results_peers/aim32/summary_compare.txt``"""

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
              Path("benchmarks/results_catrule/pubrule31/rows_aim1.jsonl"),
              R / "aim32/rows_aim1.jsonl"]
OURS = R / "aim32/ours.jsonl"


def peer_runs(meth: str, eps: float, files: list[Path]) -> list[float]:
    out = []
    for f in files:
        if f.exists():
            for ln in f.read_text().splitlines():
                r = json.loads(ln) if ln.strip() else {}
                if r.get("method") == meth and r.get("dataset") == "titanic" and r.get("epsilon") == eps \
                        and r.get("l1") is not None:
                    out.append(float(r["l1"]))
    return out


def ours(label: str, eps: float) -> list[float]:
    rows = [json.loads(ln) for ln in OURS.read_text().splitlines() if ln.strip()]
    return [r["l1"] for r in rows if r["label"] == label and r["epsilon"] == eps]


def ratio(a: list[float], b: list[float]) -> tuple[float, float, float]:
    ma, mb = float(np.mean(a)), float(np.mean(b))
    va = np.var(a, ddof=1) / len(a) if len(a) > 1 else 0.0
    vb = np.var(b, ddof=1) / len(b) if len(b) > 1 else 0.0
    r = ma / mb
    se = r * math.sqrt(va / ma ** 2 + vb / mb ** 2)
    return r, r - 1.96 * se, r + 1.96 * se


for eps in (0.3, 1.0, 3.0):
    for meth in ("aim", "mst"):
        old = peer_runs(meth, eps, PEER_FILES[:-1])
        new = peer_runs(meth, eps, PEER_FILES[-1:])
        if not old + new:
            continue
        mo, mn = (float(np.mean(x)) if x else float("nan") for x in (old, new))
        print(f"titanic epsilon {eps} {meth}: {len(old)} earlier runs (mean {mo:.4f}), "
              f"{len(new)} session-32 runs (mean {mn:.4f})")
        for label in ("main-640b3a4", "main-new"):
            o = ours(label, eps)
            if not o:
                continue
            for name, runs in (("all runs", old + new), ("earlier runs", old), ("session-32 runs", new)):
                if len(runs) >= 2:
                    r, lo, hi = ratio(o, runs)
                    print(f"  {label} ({len(o)} seeds, mean {np.mean(o):.4f}) / {meth} {name} ({len(runs)}): "
                          f"{r:.3f} [{lo:.3f}, {hi:.3f}]")
