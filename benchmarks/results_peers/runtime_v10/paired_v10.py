"""nltcs paired L1 ratios of the v10 default rows (v10_nltcs.jsonl) against GReM-LNN and against the rows
report.py reads today (v4-v9 prefixes), with report.py's own loader and paired_ratio (issue 14, branch cube).
Run from the repository root: python benchmarks/results_peers/runtime_v10/paired_v10.py"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "peers"))
import report  # noqa: E402

R = Path(__file__).resolve().parents[1]
old = report.load_rows(R)
new = report.load_rows(R, (*report.PREFIXES, "v10_"))
old_s = [{**r, "method": "sosproj_old"} for r in old if r["dataset"] == "nltcs" and r["method"] == "sosproj"]
rows = new + old_s
print("(at eps 0.03 / 0.1 the v10 file holds seeds 0-4; older files hold 100 seeds, so the other 95 rows there")
print(" are the older ones: the v10/before ratio is 1 on them by construction)")
print("dataset eps | v10 / GReM-LNN | before (v4-v9 rows) / GReM-LNN | v10 / before | converged (v10)")
for eps in sorted({float(r["epsilon"]) for r in new if r["dataset"] == "nltcs" and r["method"] == "sosproj"}):
    conv = [r.get("converged") for r in new if r["dataset"] == "nltcs" and r["method"] == "sosproj"
            and float(r["epsilon"]) == eps and r.get("converged") is not None]
    print(f"nltcs {eps:g} | {report.fmt_paired(report.paired_ratio(rows, 'nltcs', eps, 'sosproj', 'grem_lnn'))} | "
          f"{report.fmt_paired(report.paired_ratio(rows, 'nltcs', eps, 'sosproj_old', 'grem_lnn'))} | "
          f"{report.fmt_paired(report.paired_ratio(rows, 'nltcs', eps, 'sosproj', 'sosproj_old'))} | "
          f"{sum(bool(c) for c in conv)}/{len(conv)}")
