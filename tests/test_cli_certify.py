"""``sosproj certify`` end to end on temporary specs: progress, summary, output folder, reference."""

from __future__ import annotations

import json
import os
import time

import pytest

from sosproj.certificates import registry
from sosproj.certificates.registry import Check, Curve, Outcome
from sosproj.cli.main import main

SPEC = """
[suite]
name = "cli-test"
seed = 1
[[checks]]
name = "stability"
params = { n = 3, sets = ["box"], sigmas = [0.3], trials = 20 }
"""


def _fake(verdict: str, sleep: float = 0.0):
    def func(params, gen, progress):
        time.sleep(sleep)
        if verdict == "error":
            raise RuntimeError("boom")
        return Outcome(verdict, f"fake {verdict}", measured={"constant": float(params["c"])},
                       curves=[Curve("G", [1.0, 2.0], [1.0, 2.0])])
    return func


@pytest.fixture
def fake_checks(monkeypatch):
    """Four fake registered checks, one per verdict (one of them slow enough for a heartbeat)."""
    registry._load()
    for verdict, sleep in (("pass", 0.0), ("inconclusive", 0.0), ("fail", 0.0), ("error", 0.0),
                           ("slow", 0.35)):
        name = f"fake_{verdict}"
        func = _fake("pass" if verdict == "slow" else verdict, sleep)
        monkeypatch.setitem(registry.REGISTRY, name, Check(name, name, "claim", "ref", func, {"c": 1.0}, {}))


def _spec(tmp_path, *checks: str, name: str = "fake", folder: str = "") -> str:
    text = f'[suite]\nname = "{name}"\nseed = 3\n' + "".join(
        f'[[checks]]\nname = "{c}"\n' for c in checks)
    path = tmp_path / folder / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def test_certify_runs_a_spec_and_writes_its_report(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    out = tmp_path / "reports"
    assert main(["--json", "certify", str(spec), "--out", str(out), "--quick"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "PASS" and doc["passed"] is True
    assert doc["results"][0]["report"]["results"][0]["verdict"] == "pass"
    rep = json.loads((out / "report.json").read_text())
    assert rep["suite"] == "cli-test" and rep["ok"] is True and rep["verdict"] == "PASS"
    assert (out / "stability.png").exists()


@pytest.mark.parametrize("checks, verdict, code", [
    (("fake_pass",), "PASS", 0),
    (("fake_pass", "fake_inconclusive"), "INCONCLUSIVE", 0),   # never PASS with an inconclusive check
    (("fake_pass", "fake_inconclusive", "fake_fail"), "FAIL", 1),
    (("fake_pass", "fake_error"), "FAIL", 1),                   # a check that raised fails the run
])
def test_summary_counts_every_verdict_and_the_exit_code_follows(tmp_path, capsys, fake_checks, checks,
                                                                verdict, code):
    spec = _spec(tmp_path, *checks)
    assert main(["certify", spec, "--out", str(tmp_path / "r")]) == code
    out = capsys.readouterr().out
    counts = {v: sum(c == f"fake_{v}" for c in checks) for v in ("pass", "fail", "inconclusive", "error")}
    expected = ", ".join(f"{k} {v}" for k, v in counts.items())
    assert f"suite 'fake' (full): {verdict} -- {expected}" in out
    assert f"{spec}: {verdict} ({expected})" in out


def test_progress_lines_with_estimates_and_heartbeat(tmp_path, capsys, fake_checks):
    spec = _spec(tmp_path, "fake_pass", "fake_slow", "fake_inconclusive")
    assert main(["certify", spec, "--out", str(tmp_path / "a"), "--interval", "0.1"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[1] == "[1/3] fake_pass: running"                      # no recorded report: no estimate
    assert any(line.startswith("[2/3] fake_slow: still running,") for line in err)   # heartbeat
    assert any(line.startswith("[3/3] fake_inconclusive: inconclusive in ") for line in err)
    # a recorded report gives every check an estimate and the run an estimate of the time left
    ref = str(tmp_path / "a" / "report.json")
    assert main(["certify", spec, "--out", str(tmp_path / "b"), "--reference", ref]) == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert err[1].startswith("[1/3] fake_pass: running (recorded ")
    assert any("[1/3] fake_pass: pass in" in line and "left" in line for line in err)
    assert "against the recorded report" in captured.out and "fake_slow" in captured.out


def test_reference_comparison_flags_changed_verdicts_and_moved_numbers(tmp_path, capsys, fake_checks,
                                                                         monkeypatch):
    spec = _spec(tmp_path, "fake_pass")
    assert main(["certify", spec, "--out", str(tmp_path / "a"), "-q"]) == 0
    monkeypatch.setitem(registry.REGISTRY, "fake_pass", Check(
        "fake_pass", "x", "claim", "ref", _fake("fail"), {"c": 3.0}, {}))
    assert main(["--json", "certify", spec, "--out", str(tmp_path / "b"),
                 "--reference", str(tmp_path / "a")]) == 1
    doc = json.loads(capsys.readouterr().out)
    (row,) = doc["results"][0]["comparison"]["checks"]
    assert row["verdict"] == "fail" and row["reference_verdict"] == "pass" and row["changed"] is True
    assert row["moved"] == {"constant": [3.0, 1.0]}
    assert main(["certify", spec, "--reference", str(tmp_path / "nothing.json"), "-q"]) == 2


def test_default_output_is_a_new_folder_never_the_recorded_reports(tmp_path, monkeypatch, fake_checks):
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path, "fake_pass", name="quick", folder="certificates")
    recorded = tmp_path / "certificates" / "reports" / "quick"
    recorded.mkdir(parents=True)
    (recorded / "report.json").write_text('{"recorded": true}')
    (recorded / "fake_pass.png").write_bytes(b"old")
    before = {p: p.read_bytes() for p in recorded.iterdir()}
    assert main(["certify", spec, "-q"]) == 0
    assert main(["certify", spec, "-q"]) == 0
    assert {p: p.read_bytes() for p in recorded.iterdir()} == before   # the recorded report is untouched
    runs = sorted(os.listdir(tmp_path / "sosproj-certify"))
    assert len(runs) == 2 and all(r.startswith("quick-") for r in runs)  # one new folder per run
    for r in runs:
        assert json.loads((tmp_path / "sosproj-certify" / r / "report.json").read_text())["suite"] == "quick"


def test_non_empty_out_needs_force_and_force_removes_stale_plots(tmp_path, fake_checks):
    both = _spec(tmp_path, "fake_pass", "fake_inconclusive", name="both")
    out = tmp_path / "r"
    assert main(["certify", both, "--out", str(out), "-q"]) == 0
    assert (out / "fake_inconclusive.png").exists()
    one = _spec(tmp_path, "fake_pass", name="one")
    assert main(["certify", one, "--out", str(out), "-q"]) == 2           # not empty: refused
    assert main(["certify", one, "--out", str(out), "--force", "-q"]) == 0
    assert sorted(os.listdir(out)) == ["fake_pass.png", "report.json"]   # no stale plot left


class _FakeReport:
    def __init__(self, ok, out_dir):
        self.ok, self.out_dir = ok, out_dir
        self.verdict = "PASS" if ok else "FAIL"

    def counts(self):
        return {"pass": int(self.ok), "fail": int(not self.ok), "inconclusive": 0, "error": 0}

    def to_dict(self):
        return {"ok": self.ok}

    def summary(self):
        return f"suite 'fake': {self.verdict}"


def test_certify_passes_its_options_and_runs_every_spec(tmp_path, monkeypatch, capsys):
    import sosproj.certificates.spec as spec_mod

    calls = []

    def fake_run_spec(path, out_dir=None, quick=None, progress=None, only=None, **kw):
        calls.append((path, out_dir, quick, only))
        return _FakeReport("bad" not in str(path), out_dir)

    monkeypatch.setattr(spec_mod, "run_spec", fake_run_spec)
    for name in ("good.toml", "bad.toml"):
        (tmp_path / name).write_text(SPEC.replace("cli-test", name[:-5]))
    monkeypatch.chdir(tmp_path)
    assert main(["certify", "good.toml", "--only", "stability", "--full"]) == 0
    assert calls[-1][2:] == (False, ["stability"])
    assert os.path.dirname(calls[-1][1]) == os.path.join(str(tmp_path), "sosproj-certify")
    assert main(["certify", "good.toml", "bad.toml", "--out", str(tmp_path / "r")]) == 1
    assert [c[1] for c in calls[-2:]] == [str(tmp_path / "r" / "good"), str(tmp_path / "r" / "bad")]
    assert "FAIL" in capsys.readouterr().out
    # without SPEC: every *.toml in ./certificates
    (tmp_path / "certificates").mkdir()
    (tmp_path / "certificates" / "a.toml").write_text(SPEC)
    (tmp_path / "certificates" / "notes.txt").write_text("x")
    assert main(["certify", "-q"]) == 0
    assert calls[-1][0] == "certificates/a.toml" and calls[-1][2] is None


def test_certify_bad_specs_and_outputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["certify"]) == 2                       # no spec, no ./certificates folder
    assert main(["certify", "missing.toml"]) == 2
    (tmp_path / "bad.toml").write_text("[suite\nname=")
    assert main(["certify", "bad.toml", "--out", "r"]) == 2
    (tmp_path / "unknown.toml").write_text('[suite]\nname="x"\n[[checks]]\nname="no-such-check"\n')
    assert main(["certify", "unknown.toml", "--out", "r"]) == 2
    (tmp_path / "ok.toml").write_text(SPEC)
    (tmp_path / "afile").write_text("x")
    assert main(["certify", "ok.toml", "--out", "afile"]) == 2
    assert main(["certify", "ok.toml", "--quick", "--full"]) == 2
    assert main(["certify", "ok.toml", "--interval", "0"]) == 2
    assert not os.path.exists(tmp_path / "sosproj-certify")  # refused before any run
