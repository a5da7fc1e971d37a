"""Information only (after set F): the share of empty cells in each shape's true 3-way tables (a property of the data,
not public: an explanation, never an input of a rule) next to the inf,inf / main ratio at epsilon 3 (fit and set F).
Usage: python benchmarks/results_catrule/stein32/info_sparsity.py > benchmarks/results_catrule/stein32/info_sparsity.txt
"""

import itertools
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from stein_higher import load  # noqa: E402

ratio: dict[str, float] = {}
for f in ("summary_fit.txt", "summary_F.txt"):
    lines = (HERE / f).read_text().splitlines()
    cols = lines[0].split()[2:lines[0].split().index("inf,inf") + 1]
    j = cols.index("inf,inf")
    for ln in lines[1:]:
        p = ln.split()
        if len(p) > 3 and p[1] == "3":
            ratio[p[0]] = float(p[2 + j].split("[")[0])
print("shape empty_share_3way mean_cells_3way ratio_inf,inf_at_eps3")
rows = []
for name, r in ratio.items():
    ds = load(name)
    tabs = [ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)]
    empty = float(np.mean([np.mean(t == 0) for t in tabs]))
    rows.append((r, name, empty, float(np.mean([t.size for t in tabs]))))
for r, name, empty, cells in sorted(rows):
    print(f"{name} {empty:.3f} {cells:.0f} {r:.3f}")
e, rr = np.array([x[2] for x in rows]), np.log([x[0] for x in rows])
print(f"# Spearman-free summary: Pearson correlation of empty share and log ratio {np.corrcoef(e, rr)[0, 1]:.2f} "
      f"over {len(rows)} shapes")
