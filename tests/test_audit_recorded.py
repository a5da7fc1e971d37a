"""The recorded black-box audit (benchmarks/results_audit/*.jsonl) meets the acceptance and matches the docs.

``benchmarks/audit_report.py`` audits every registered mechanism end to end (minutes of CPU);
its JSON lines are committed. This test checks, from that record, that

* every mechanism of :data:`sosproj.audit.MECHANISMS` was audited at (0.5, 1e-5), (1, 1e-6) and
  (2, 1e-6) with its registered number of runs, and passed;
* every negative control failed on perturb_and_project and cosine (gaussian and exact), and the
  zero, uniform and grid controls on every mechanism they were applied to;
* the power search (sigma x 0.7, 0.5, 0.3 until caught) ran for every mechanism but the three SDP
  ones (cut short), and its detectable factor (the largest factor caught) is the one
  ``docs/privacy.md`` states: the docs table is generated from the
  record (``python tests/test_audit_recorded.py --write``) and must stay in sync.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from sosproj.audit import KINDS, MECHANISMS

ROOT = Path(__file__).resolve().parents[1]
RECORDS = sorted((ROOT / "benchmarks" / "results_audit").glob("*.jsonl"))  # one file per run of the script
_spec = importlib.util.spec_from_file_location("audit_report", ROOT / "benchmarks" / "audit_report.py")
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)
CLAIMS, FACTORS, CONTROL_MECHANISMS = _bench.CLAIMS, _bench.FACTORS, _bench.CONTROL_MECHANISMS
BEGIN, END = "<!-- BEGIN AUDIT TABLE -->", "<!-- END AUDIT TABLE -->"


def load() -> tuple[list[dict], list[dict]]:
    rows, headers = [], []
    for path in RECORDS:
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if "mechanism" in rec:
                rows.append(rec)
            else:
                headers.append(rec)
    return rows, headers


def _find(rows: list[dict], part: str, name: str, eps: float, control: str | None = None,
          factor: float | None = None) -> dict | None:
    hits = [r for r in rows if r["part"] == part and r["mechanism"] == name and r["epsilon"] == eps
            and r["control"] == control and (factor is None or r["factor"] == factor)]
    return hits[-1] if hits else None


# the SDP-projection mechanisms cost 10-100 ms per run on the shared box: their power search was cut
# short in the recorded run (the factors run are shown in the table)
POWER_PARTIAL = ["marginals[sos]", "marginals[cube]", "marginals[sos-sparse]"]
# the controls patch the continuous Gaussian sampler and calibration; the discrete Gaussian sampler of
# release_tables(noise="discrete") is not patched, so sigma x f does not change that mechanism
POWER_NOT_APPLICABLE = ["tables[discrete]"]


def detectable_factor(rows: list[dict], name: str) -> float | None:
    caught = [f for f in FACTORS if (r := _find(rows, "power", name, 1.0, "scale", f)) and not r["passed"]]
    return max(caught) if caught else None


def power_text(rows: list[dict], name: str) -> str:
    if name in POWER_NOT_APPLICABLE:
        return "n/a (discrete sampler not patched by the controls)"
    f = detectable_factor(rows, name)
    if f is not None:
        return f"sigma x {f:g}"
    tried = [g for g in FACTORS if _find(rows, "power", name, 1.0, "scale", g)]
    if not tried:
        return "not run"
    return "missed sigma x " + ", ".join(f"{g:g}" for g in tried) + (
        "" if len(tried) == len(FACTORS) else " (smaller factors not run)")


def markdown_table(rows: list[dict], headers: list[dict]) -> str:
    out = ["| mechanism | runs per input | mu lower bound at (0.5, 1e-5) / (1, 1e-6) / (2, 1e-6) "
           "(claimed 0.142 / 0.237 / 0.448) | verdicts | detectable factor at (1, 1e-6) | "
           "negative controls (zero, uniform, sigma x 0.7, sensitivity x 0.7, grid) | CPU-shared wall s |",
           "|---|---|---|---|---|---|---|"]
    total = 0.0
    for name, case in MECHANISMS.items():
        recs = [_find(rows, "claims", name, e) for e, _ in CLAIMS]
        bounds = " / ".join("-" if r is None else f"{r['mu_lower_bound']:.3f}" for r in recs)
        verdicts = " ".join("-" if r is None else ("pass" if r["passed"] else "FAIL") for r in recs)
        ctrl = "-"
        if name in CONTROL_MECHANISMS:
            cs = [_find(rows, "controls", name, 1.0, k) for k in KINDS]
            ctrl = " ".join("-" if c is None else ("caught" if not c["passed"] else "missed") for c in cs)
        secs = sum(r["seconds"] for r in rows if r["mechanism"] == name)
        total += secs
        out.append(f"| `{name}` | {case.trials:,} | {bounds} | {verdicts} | "
                   f"{power_text(rows, name)} | {ctrl} | {secs:.0f} |")
    loads = ", ".join(h["header"]["machine"] for h in headers if "header" in h)
    out.append("")
    out.append(f"All audits together: {total:.0f} s of wall time summed over the audits (runs in parallel, 2 joblib "
               f"workers each; {loads}).")
    return "\n".join(out) + "\n"


ROWS, HEADERS = load()


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_every_mechanism_passes_every_claim(name: str) -> None:
    for eps, delta in CLAIMS:
        r = _find(ROWS, "claims", name, eps)
        assert r is not None, f"{name} not audited at ({eps}, {delta}); rerun benchmarks/audit_report.py"
        assert r["delta"] == delta and r["trials"] == MECHANISMS[name].trials
        assert r["passed"] and r["mu_lower_bound"] <= r["mu_claimed"], r


# the mechanisms on which every control, sigma x 0.7 included, must fail at the registered runs; on the
# others the under-scaled controls are below the audit's power there (docs/privacy.md, table: "missed")
ALL_CONTROLS_CAUGHT = ["perturb_and_project[box]", "cosine[gaussian]", "cosine[exact]"]


@pytest.mark.parametrize("name", CONTROL_MECHANISMS)
def test_every_negative_control_fails(name: str) -> None:
    for kind in KINDS:
        r = _find(ROWS, "controls", name, 1.0, kind)
        assert r is not None, f"{name}/{kind} not recorded"
        assert r["trials"] == MECHANISMS[name].trials
        if kind in ("zero", "uniform", "grid") or name in ALL_CONTROLS_CAUGHT:
            assert not r["passed"] and r["mu_lower_bound"] > r["mu_claimed"], r


@pytest.mark.parametrize("name", [n for n in MECHANISMS if n not in POWER_PARTIAL + POWER_NOT_APPLICABLE])
def test_power_search_is_complete(name: str) -> None:
    """sigma x f for f = 0.7, 0.5, 0.3 until caught, at the registered runs: the docs state the result."""
    f = detectable_factor(ROWS, name)
    for g in FACTORS:
        r = _find(ROWS, "power", name, 1.0, "scale", g)
        if f is None or g >= f:
            assert r is not None and r["trials"] == MECHANISMS[name].trials, (name, g)
        if f is not None and g > f:
            assert r["passed"]


def test_docs_table_in_sync() -> None:
    text = (ROOT / "docs" / "privacy.md").read_text(encoding="utf-8")
    m = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), text, re.S)
    assert m, "docs/privacy.md lacks the audit-table markers"
    assert m.group(1) == markdown_table(ROWS, HEADERS), "regenerate: python tests/test_audit_recorded.py --write"


if __name__ == "__main__":  # pragma: no cover
    table = markdown_table(ROWS, HEADERS)
    if "--write" in sys.argv:
        doc = ROOT / "docs" / "privacy.md"
        text = doc.read_text(encoding="utf-8")
        doc.write_text(re.sub(re.escape(BEGIN) + r"\n.*?" + re.escape(END), lambda _: f"{BEGIN}\n{table}{END}",
                              text, flags=re.S), encoding="utf-8")
    else:
        print(table)
