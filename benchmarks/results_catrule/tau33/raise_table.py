"""Round 3's table (notes.md): per variant over the union of the cells of ``ci_raise_all.txt`` (a cell a variant
leaves unchanged counts as 1.000): geometric mean, over the changed cells only, worst, best, cells > 1.02 / > 1.
Run from the worktree root: python benchmarks/results_catrule/tau33/raise_table.py"""

import math
from collections import defaultdict

cur = None
d: dict = defaultdict(dict)
for ln in open("benchmarks/results_catrule/tau33/ci_raise_all.txt"):
    p = ln.split()
    if p[0] == "shape":
        cur = p[6][1:]
        continue
    d[cur][p[0], p[1]] = float(p[3])
cells = set().union(*[set(x) for x in d.values()])
for v in ("5,10", "5,11", "5,12"):
    r = [d[v].get(c, 1.0) for c in cells]
    ch = [x for x in r if x != 1.0]
    print(f"{v}: {len(r)} cells, {len(ch)} changed, geometric mean {math.exp(sum(map(math.log, r)) / len(r)):.4f} "
          f"(changed only {math.exp(sum(map(math.log, ch)) / len(ch)):.4f}), worst {max(r):.4f}, best {min(r):.4f}, "
          f"> 1.02: {sum(x > 1.02 for x in r)}, > 1: {sum(x > 1.0 for x in r)}")
