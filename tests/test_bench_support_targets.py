"""Issue 15's targets block (benchmarks/support_targets.py): read from the stored records, current in the docs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import support_targets as st  # noqa: E402


def test_the_docs_block_is_what_the_records_give():
    """docs/bench_support.md holds exactly what the script writes (re-run it after pointing a target at a newer
    record)."""
    s = st.DOC.read_text()
    a, b = f"<!-- {st.TAG}:start -->", f"<!-- {st.TAG}:end -->"
    assert s[s.index(a) + len(a):s.index(b)] == "\n" + st.targets_block() + "\n"


def test_the_readers_judge_a_record_against_its_bar(tmp_path, monkeypatch):
    """A slower run misses, a failed or loose certificate never counts as met, and a missing line is an error."""
    monkeypatch.setattr(st, "ROOT", tmp_path)
    (tmp_path / "e2e.txt").write_text(
        "## n=64 tensor 0 rep 1 src NEW  00:00:00 load 0.1\n"
        "n=64 tensor 0: setup cpu 0.30s | total cpu 55.00s wall 55.0s | status solved gap 8.0e-07 upper 1 | x\n"
        "## n=64 tensor 0 rep 1 src BASE  00:01:00 load 0.1\n"
        "n=64 tensor 0: setup cpu 0.30s | total cpu 99.00s wall 99.0s | status solved gap 8.0e-07 upper 1 | x\n"
        "## n=64 tensor 1 rep 1 src NEW  00:02:00 load 0.1\n"
        "n=64 tensor 1: setup cpu 0.30s | total cpu 45.00s wall 45.0s | status solved gap 2.0e-05 upper 1 | x\n")
    r = st.e2e_cpu([("e2e.txt", "src NEW")], 64, 60.0)
    assert not r.met and "tensor 0: 55.00 s" in r.value and "tensor 1: inf s" in r.value   # gap 2e-5 > 1e-5
    assert st.e2e_cpu([("e2e.txt", "src BASE")], 64, 60.0).met is False                       # 99 s > 60 s
    (tmp_path / "ok.txt").write_text((tmp_path / "e2e.txt").read_text().replace("gap 2.0e-05", "gap 2.0e-06"))
    assert st.e2e_cpu([("ok.txt", "src NEW")], 64, 60.0).met
    # a second record adds its tensors (a header of another form: only "n=64 tensor T" and the source matter)
    (tmp_path / "more.txt").write_text(
        "## snapshot abc n=64 tensor 2 00:00:00 load 1\n"
        "n=64 tensor 2: setup cpu 0.30s | total cpu 36.00s wall 40.0s | status solved gap 1.0e-07 upper 1 | x\n")
    both = st.e2e_cpu([("ok.txt", "src NEW"), ("more.txt", "snapshot abc")], 64, 60.0)
    assert both.met and "tensor 2: 36.00 s" in both.value and both.record == "ok.txt, more.txt"
    with pytest.raises(ValueError, match="no n=64 run"):
        st.e2e_cpu([("ok.txt", "src OTHER")], 64, 60.0)
    (tmp_path / "s.txt").write_text("SUMMARY n=30 order=496 build=0.0s median times a 1s cpu 1s (max gap 6.4e-08), "
                                    "admm 9s cpu 9s (max gap 3.0e-07) | ratios vs a: admm 9.0x (cpu 9.5x) | load 1\n")
    assert not st.support_ratio("s.txt", 30, 10.0).met and st.support_ratio("s.txt", 30, 9.0).met
