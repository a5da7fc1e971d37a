"""The recorded black-box audit (``benchmarks/results_audit/*.jsonl``), read once for the tests and docs.

``benchmarks/audit_report.py`` appends one JSON line per audit. Rows recorded since the shipped
event-selection rule carry ``"selection": "calibration"`` (and ``"quantiles"``); rows without that
field were recorded with the former rule (``selection="rescaled"``, 199 thresholds), a valid but
less powerful test, so a former-rule row that passed is still a valid audit of its claim.

Which row counts (the *effective* record): for each (part, mechanism, claim, control, factor), the
last row of the shipped rule if there is one, else the last former-rule row. A power search is
never mixed across rules: where a mechanism has any shipped-rule power row, only those count.

    python benchmarks/audit_record.py      # prints the effective rows, one line each
"""

from __future__ import annotations

import json
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "results_audit"
SHIPPED = "calibration"
FORMER = "rescaled"


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
    if part == "power" and any(r["part"] == "power" and r["mechanism"] == name and r["selection"] == SHIPPED
                               for r in rows):
        hits = [r for r in hits if r["selection"] == SHIPPED]
    shipped = [r for r in hits if r["selection"] == SHIPPED]
    hits = shipped or hits
    return hits[-1] if hits else None


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
