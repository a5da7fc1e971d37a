"""The recorded research-suite report and the numbers the docs quote from it."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "certificates/reports/research/report.json"


def _check() -> dict:
    return json.loads(REPORT.read_text())["results"][0]


def test_recorded_research_run_is_certified_and_tight_where_the_docs_say():
    c = _check()
    assert c["verdict"] == "pass"
    assert c["measured"]["certified_ns"] == [8, 12, 16, 24, 32, 48, 64]
    for row in c["table"]:
        assert row["certified"] and row["max_certified_relative_gap"] <= 1e-5
        assert row["tight_fraction"] == 1.0
        assert row["best_point_mean"] <= row["G_sos"] * (1 + 1e-9)
        assert row["injective_lower_estimate"] <= row["G_sos"] * (1 + 1e-9)
    assert sum(row["trials"] for row in c["table"]) == 208


def test_docs_quote_the_recorded_exponents():
    m = _check()["measured"]
    text = (ROOT / "docs/certificates.md").read_text() + (ROOT / "certificates/reports/research/README.md").read_text()
    lo, hi = m["exponent_ci"]
    assert f"{m['exponent']:.3f} [{lo:.3f}, {hi:.3f}]" in text
    first, last = m["local_exponents"][0], m["local_exponents"][-1]
    assert f"{first['exponent']:.3f} (8-16)" in text
    assert re.search(rf"{last['exponent']:.3f} \(32-64, interval width\s+{last['width']:.3f}\)", text)
