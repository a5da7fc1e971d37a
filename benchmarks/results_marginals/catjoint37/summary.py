"""Paired summary of catjoint37_proto.py rows: per (data, eps) the geometric mean over seeds of joint/default."""
import json
import math
import sys
from collections import defaultdict

rows = [json.loads(line) for f in sys.argv[1:] for line in open(f) if line.startswith("{")]
cells = defaultdict(list)
for r in rows:
    cells[(r["data"], r["eps"])].append(r)
print("data eps seeds measured_sets/dims 3way_tables_measured  L1_default  L1_joint+maxent  ratio_gm [min,max]  "
      "ratio_raw_gm  rel_gap_max  converged  cpu_default_s  cpu_joint_s  support")
for (d, e), rs in sorted(cells.items()):
    gm = math.exp(sum(math.log(r["ratio_maxent"]) for r in rs) / len(rs))
    gr = math.exp(sum(math.log(r["ratio_raw"]) for r in rs) / len(rs))
    lo, hi = min(r["ratio_maxent"] for r in rs), max(r["ratio_maxent"] for r in rs)
    print(f"{d} {e:g} {len(rs)} {rs[0]['n_measured_sets']}/{rs[0]['measured_dims']} {rs[0]['n_tables_measured']} "
          f"{sum(r['l1_default'] for r in rs) / len(rs):.4f} {sum(r['l1_joint_maxent'] for r in rs) / len(rs):.4f} "
          f"{gm:.4f} [{lo:.4f},{hi:.4f}] {gr:.3f} {max(r['rel_gap'] for r in rs):.2g} "
          f"{sum(r['converged'] for r in rs)}/{len(rs)} {max(r['cpu_default_s'] for r in rs):.2f} "
          f"{max(r['cpu_joint_s'] for r in rs):.0f} {max(r['support'] for r in rs)}")
