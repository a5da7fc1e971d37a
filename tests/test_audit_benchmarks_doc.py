"""Every row of docs/benchmarks.md's target table names its stored raw output, and the numbers that come
from files in ``benchmarks/results_*`` are recomputed here from those files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"


def _table() -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    block = text.split("## Targets at a glance", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in block.splitlines() if line.startswith("| ") and not line.startswith("| area")]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in rows]


def _row(area: str, target_start: str) -> list[str]:
    hits = [r for r in _table() if r[0] == area and r[1].startswith(target_start)]
    assert len(hits) == 1, (area, target_start)
    return hits[0]


def test_every_row_names_an_existing_raw_output() -> None:
    rows = _table()
    assert len(rows) >= 19
    for r in rows:
        assert len(r) == 5 and r[4], r
        files = re.findall(r"`(benchmarks/[^`]+)`", r[4])
        pages = re.findall(r"\]\(([a-z_]+\.md)", r[4])
        assert files or pages, r
        for f in files:
            assert list(ROOT.glob(f)), f
        # sibling names written without the folder (`n64_tol1e-3.txt`) live in the first file's folder
        if files:
            folder = (ROOT / files[0]).parent
            for f in re.findall(r"`([^`/]+\.(?:txt|json|jsonl))`", r[4]):
                assert (folder / f).exists(), f
        for p in pages:  # the page shows the script's command and its printed table or output
            page = (ROOT / "docs" / p).read_text(encoding="utf-8")
            assert "benchmarks/" in page and ("```" in page or "|---" in page), p


def _errors(path: Path) -> dict[tuple[int, float], dict[str, float]]:
    out = {}
    for line in path.read_text().splitlines():
        m = re.match(r"# planted m=\d+ n=(\d+) eps=([\d.]+): (.*?);", line)
        if not m:
            continue
        cols = dict(re.findall(r"([\w+ ]+): ([\d.e+]+) \(", m.group(3)))
        out[(int(m.group(1)), float(m.group(2)))] = {k.strip(): float(v) for k, v in cols.items()}
    return out


def test_tables_ratios_and_time_recomputed_from_the_stored_runs() -> None:
    res = {**_errors(ROOT / "benchmarks/results_tables/n24_32.txt"),
           **_errors(ROOT / "benchmarks/results_tables/n64_tol1e-3.txt")}
    ratio = {key: v["tables+cube"] / min(x for k, x in v.items() if k != "tables+cube") for key, v in res.items()}
    big = [r for (n, _), r in ratio.items() if n in (32, 64)]
    small = [r for (n, _), r in ratio.items() if n == 24]
    row = _row("tables", "n = 32, 64")[2]
    assert f"{min(big):.3f}-{max(big):.3f}x" in row and f"({min(small):.3f}-{max(small):.3f}x at n = 24)" in row
    for run in ("n64_tol1e-3.txt", "n64_quiet39.txt"):       # the contended run and the quiet box's
        wall = float(re.search(r"tables\+cube: [\d.e+]+ \(([\d.]+)s\)",
                               (ROOT / "benchmarks/results_tables" / run).read_text()).group(1))
        assert f"{wall:,.0f} s wall" in row, run


@pytest.mark.parametrize("run", ["demo_time_quiet39.txt", "demo_time.txt"])
def test_demo_time_recomputed_from_the_stored_run(run: str) -> None:
    text = (ROOT / "benchmarks/results_demo" / run).read_text()
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\d+):([\d.]+)", text)
    wall = 60 * int(m.group(1)) + float(m.group(2))
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", text))
    load = re.search(r"load average at start: ([\d.]+)", text).group(1)
    row = _row("demo", "`sosproj demo`")[2]
    assert f"{wall:.0f} s wall" in row and f"{cpu:.0f} s CPU" in row and f"load {load}" in row


def audit_summary() -> str:
    """The audit row, from the effective record (benchmarks/audit_record.py: the row of the newest
    selection rule that recorded each audit)."""
    import importlib.util

    from sosproj.audit import KINDS, MECHANISMS

    mods = {}
    for name in ("audit_report", "audit_record"):
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        mods[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[name])
    bench, record = mods["audit_report"], mods["audit_record"]
    rows, other = record.load()
    eff = record.effective(rows, bench.CLAIMS, KINDS, bench.FACTORS, bench.CONTROL_MECHANISMS, list(MECHANISMS))
    files = {r["file"] for r in eff}
    jobs = sorted({int(m.group(1)) for h in other if "header" in h and h["file"] in files
                   and (m := re.search(r"--n-jobs (\d+)", h["header"]["command"]))})
    claims = [r for r in eff if r["part"] == "claims"]
    controls = [r for r in eff if r["part"] == "controls"]
    n = {rule: sum(r["selection"] == rule for r in claims) for rule in record.RULES}
    return (f"{sum(r['passed'] for r in claims)} of {len(claims)} mechanism-claim audits pass "
            f"({n[record.SHIPPED]} recorded with the shipped selection rule `{record.SHIPPED}`, "
            f"{n[record.PREVIOUS]} with the previous `{record.PREVIOUS}`, {n[record.FORMER]} with the former "
            f"`{record.FORMER}`); "
            f"{sum(not r['passed'] for r in controls)} of {len(controls)} negative-control audits fail; "
            f"{sum(r['seconds'] for r in eff):,.0f} s wall summed over the {len(eff)} audits "
            f"({' or '.join(str(k) for k in jobs)} joblib worker{'s' if jobs != [1] else ''} each, shared box)")


def test_audit_row_recomputed_from_the_record() -> None:
    assert _row("audit", "black-box audit")[2] == audit_summary()


if __name__ == "__main__":  # pragma: no cover
    import sys

    if "--write" in sys.argv:  # refresh the audit row from the record
        lines = DOC.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            if line.startswith("| audit | black-box audit"):
                cells = line.split(" | ")
                cells[2] = audit_summary()
                lines[i] = " | ".join(cells)
        DOC.write_text("\n".join(lines), encoding="utf-8")
    print(audit_summary())
