"""``sosproj certify`` end to end on a temporary spec."""

from __future__ import annotations

import json

from sosproj.cli.main import main

SPEC = """
[suite]
name = "cli-test"
seed = 1
[[checks]]
name = "stability"
params = { n = 3, sets = ["box"], sigmas = [0.3], trials = 20 }
"""


def test_certify_runs_a_spec_and_writes_its_report(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    out = tmp_path / "reports"
    assert main(["--json", "certify", str(spec), "--out", str(out), "--quick"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["passed"] is True and doc["results"][0]["report"]["results"][0]["verdict"] == "pass"
    rep = json.loads((out / "report.json").read_text())
    assert rep["suite"] == "cli-test" and rep["ok"] is True
    assert (out / "stability.png").exists()


class _FakeReport:
    def __init__(self, ok, out_dir):
        self.ok, self.out_dir = ok, out_dir

    def to_dict(self):
        return {"ok": self.ok}

    def summary(self):
        return "suite 'fake': fail=1" if not self.ok else "suite 'fake': pass=1"


def test_certify_exit_codes_follow_the_verdict(tmp_path, monkeypatch, capsys):
    import sosproj.certificates as certs

    calls = []

    def fake_run_spec(path, out_dir=None, quick=None, progress=None, only=None):
        calls.append((path, out_dir, quick, only))
        return _FakeReport("bad" not in str(path), out_dir)

    monkeypatch.setattr(certs, "run_spec", fake_run_spec)
    for name in ("good.toml", "bad.toml"):
        (tmp_path / name).write_text(SPEC)
    assert main(["certify", str(tmp_path / "good.toml"), "--only", "stability", "--full"]) == 0
    assert calls[-1][1:] == (None, False, ["stability"])
    assert main(["certify", str(tmp_path / "good.toml"), str(tmp_path / "bad.toml"),
                 "--out", str(tmp_path / "r")]) == 1
    assert [c[1] for c in calls[-2:]] == [str(tmp_path / "r" / "good"), str(tmp_path / "r" / "bad")]
    assert "FAIL" in capsys.readouterr().out
    # without SPEC: every *.toml in ./certificates
    monkeypatch.chdir(tmp_path)
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
