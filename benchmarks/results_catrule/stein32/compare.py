"""Titanic at epsilon 1 (and 0.3): main's default and the bands (``eval.txt``, seeds 0-4, rng = seed) against every
recorded AIM / MST run (pubrule31's list of peer files and its ratio of means with a delta-method 95% interval).
Run from the worktree root: ``python benchmarks/results_catrule/stein32/compare.py > .../summary_compare.txt``"""

import contextlib
import io
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "benchmarks/results_catrule/pubrule31")
with contextlib.redirect_stdout(io.StringIO()):      # compare.py prints pubrule31's own summary on import
    from compare import peer_runs, ratio  # noqa: E402


def ours(eps: float) -> tuple[list[float], list[float]]:
    """(bands, main) per seed from the evaluation run."""
    new, old = [], []
    for ln in Path("benchmarks/results_catrule/stein32/eval.txt").read_text().splitlines():
        p = ln.split()
        if p and p[0] == "titanic" and float(p[1]) == eps:
            old.append(float(p[3]))
            new.append(float(p[4]))
    return new, old


for eps in (0.3, 1.0):
    new, old = ours(eps)
    if not new:
        print(f"titanic epsilon {eps}: the bands shrink nothing here (public check in eval.txt): identical to main")
        continue
    print(f"titanic epsilon {eps}: bands mean {np.mean(new):.4f} {[round(x, 4) for x in new]}; main "
          f"{np.mean(old):.4f} {[round(x, 4) for x in old]}")
    for meth in ("aim", "mst"):
        vals = [v for _, v in peer_runs(meth, eps)]
        if not vals:
            continue
        r, lo, hi = ratio(new, vals)
        r0, lo0, hi0 = ratio(old, vals)
        print(f"  {meth}: {len(vals)} runs, mean {np.mean(vals):.4f} (range {min(vals):.4f}-{max(vals):.4f}); ratio of "
              f"means bands / {meth} {r:.3f} [{lo:.3f}, {hi:.3f}] (main {r0:.3f} [{lo0:.3f}, {hi0:.3f}]); bands below "
              f"every run: {max(new) < min(vals)}; mean below {sum(np.mean(new) < v for v in vals)} of {len(vals)}")
