"""The recorded black-box audit (``benchmarks/results_audit/*.jsonl``), read once for the tests and docs.

``benchmarks/audit_report.py`` appends one JSON line per audit, with the audit's event-selection rule
(``selection``, ``quantiles``). Three rule versions, newest first (``sosproj/audit/blackbox.py``,
"Selection rule"):

* ``"split"`` (shipped): scores at the calibration size, 19 thresholds, atom sets defined on one half
  of the calibration runs and scored on the other;
* ``"calibration"`` (previous): the same, but atom sets scored on the runs that define them, which
  over-fits on lattice outputs (``tables[discrete]``, the zero and grid controls): those rows were
  re-recorded with ``"split"``;
* ``"rescaled"`` (former; rows without the field): counts rescaled to the hold-out size, 199 thresholds.

Every rule is a valid test (the event is chosen on the calibration runs only), so a row of an earlier
rule that passed is still a valid audit of its claim. Which row counts (the *effective* record): for
each (part, mechanism, claim, control, factor), the last row of the newest rule that has one. A power
search is never mixed across rules: only the rows of the newest rule with any power row of that
mechanism count.

    python benchmarks/audit_record.py      # prints the effective rows, one line each
"""

from __future__ import annotations

import json
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "results_audit"
SHIPPED = "split"
PREVIOUS = "calibration"
FORMER = "rescaled"
#: rule versions, newest first
RULES = (SHIPPED, PREVIOUS, FORMER)


def load(folder: Path = FOLDER) -> tuple[list[dict], list[dict]]:
    """All rows (with ``selection`` filled in: ``"rescaled"`` where absent) and all headers/footers."""
    rows, other = [], []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if "mechanism" in rec:
                rec.setdefault("selection", FORMER)
                rec["file"] = path.name
                rows.append(rec)
            else:
                rec["file"] = path.name
                other.append(rec)
    return rows, other


def find(rows: list[dict], part: str, name: str, eps: float, control: str | None = None,
         factor: float | None = None) -> dict | None:
    """The effective row (module docstring) or None."""
    hits = [r for r in rows if r["part"] == part and r["mechanism"] == name and r["epsilon"] == eps
            and r["control"] == control and (factor is None or r["factor"] == factor)]
    if part == "power":
        used = {r["selection"] for r in rows if r["part"] == "power" and r["mechanism"] == name}
        newest = next((rule for rule in RULES if rule in used), None)
        hits = [r for r in hits if r["selection"] == newest]
    for rule in RULES:
        of_rule = [r for r in hits if r["selection"] == rule]
        if of_rule:
            return of_rule[-1]
    return None


def effective(rows: list[dict], claims: list[tuple[float, float]], kinds: list[str] | tuple[str, ...],
              factors: list[float], control_mechanisms: list[str], names: list[str]) -> list[dict]:
    """Every effective row of the grid (claims, controls, power), in the grid's order."""
    out: list[dict] = []
    for name in names:
        out += [r for e, _ in claims if (r := find(rows, "claims", name, e))]
        if name in control_mechanisms:
            out += [r for k in kinds if (r := find(rows, "controls", name, 1.0, k))]
        out += [r for f in factors if (r := find(rows, "power", name, 1.0, "scale", f))]
    return out


if __name__ == "__main__":  # pragma: no cover
    import importlib.util

    spec = importlib.util.spec_from_file_location("audit_report", Path(__file__).parent / "audit_report.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    all_rows, _ = load()
    for r in effective(all_rows, bench.CLAIMS, bench.KINDS, bench.FACTORS, bench.CONTROL_MECHANISMS,
                       list(bench.MECHANISMS)):
        print(r["part"], r["mechanism"], r["epsilon"], r["control"], r["factor"], r["trials"], r["selection"],
              "pass" if r["passed"] else "FAIL", f"{r['mu_lower_bound']:.3f}", r["seconds"], r["file"])
