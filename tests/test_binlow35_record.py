"""Session 35's study of the binary cube rule at low SNR is reproducible from its stored rows (issue 14).

docs/bench_allocation.md, "Binary data at low SNR (session 35)", prints a per-cell table; every row must be what
``benchmarks/binlow35_fit.py`` computes from the rows in ``benchmarks/results_allocation/binlow35/``, and the
"main's rule" the study measured (its extra row per cell) must be the library's cube rule.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

from sosproj.mechanisms import marginals_pipeline as mp

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "benchmarks/results_allocation/binlow35"
SEEN = sorted(RES.glob("raw_*.txt")) + sorted(RES.glob("info_*_low_t.txt")) + [
    RES / "info_prodskew16-m10k_high_t.txt"]
HELD_OUT = [RES / "heldout_markov16-m8k.txt"]


def _fit():
    spec = importlib.util.spec_from_file_location("binlow35_fit", ROOT / "benchmarks/binlow35_fit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _section() -> str:
    doc = (ROOT / "docs/bench_allocation.md").read_text()
    start = doc.index("## Binary data at low SNR (session 35)")
    end = doc.index("\n## ", start + 1)
    return doc[start:end]


def test_doc_table_is_the_fit_of_the_stored_rows():
    fit = _fit()
    rows = fit.doc_rows(fit.load([str(p) for p in SEEN], set())) + \
        fit.doc_rows(fit.load([str(p) for p in HELD_OUT], set()), " (held out)")
    assert len(rows) >= 30
    section = _section()
    table = [line for line in section.splitlines() if line.startswith("| ") and "-m" in line.split("|")[1]]
    assert table == rows
    nltcs = fit.doc_rows(fit.load([str(RES / "info_nltcs_after_decision.txt")], set()), " (after the decision)")
    assert len(nltcs) == 2
    assert [line for line in section.splitlines() if line.startswith("| nltcs")] == nltcs


def test_doc_rows_follow_the_rows():
    """The table is computed, not copied: halving main's errors in one cell moves that cell's ratios."""
    fit = _fit()
    cells = fit.load([str(RES / "raw_binary16-m5k.txt")], set())
    before = fit.doc_rows(cells)
    key = ("binary16-m5k", 3.5)
    tc = fit.cube_rule(3.5)
    t_main = next(t for t in cells[key] if abs(t - tc) < 1e-5)
    cells[key][t_main] = {s: e / 2 for s, e in cells[key][t_main].items()}
    after = fit.doc_rows(cells)
    changed = [a for a, b in zip(before, after) if a != b]
    assert len(changed) == 1 and "| 3.5 |" in changed[0]


@pytest.mark.parametrize("snr", [0.3, 1.0, 3.42, 10.0, 30.0])
def test_the_study_measured_the_library_cube_rule(snr):
    fit = _fit()
    assert math.isclose(fit.cube_rule(snr), mp.auto_mix(snr, rule="cube"), rel_tol=1e-12)


def test_main_rule_rows_are_the_rule_at_the_cells_snr():
    """Every cell's extra row sits at t = auto_mix(snr, 'cube') (to the 6 digits the rows print)."""
    fit = _fit()
    cells = fit.load([str(p) for p in SEEN + HELD_OUT], set())
    for (shape, snr), by_t in cells.items():
        want = mp.auto_mix(snr, rule="cube")
        assert any(abs(t - want) < 1e-5 for t in by_t), (shape, snr)
