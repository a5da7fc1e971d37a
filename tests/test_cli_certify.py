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
    assert main(["certify", str(spec), "--out", str(out), "--quick"]) == 0
    assert "PASS" in capsys.readouterr().out
    rep = json.loads((out / "report.json").read_text())
    assert rep["suite"] == "cli-test" and rep["ok"] is True
    assert (out / "stability.png").exists()
    assert main(["--json", "certify", str(spec), "--out", str(out), "--quick"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["passed"] is True and doc["results"][0]["report"]["results"][0]["verdict"] == "pass"


def test_certify_failed_check_is_exit_code_1(tmp_path, monkeypatch):
    from sosproj.certificates import spec as cspec

    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    monkeypatch.setattr(cspec.Report, "ok", property(lambda self: False))
    assert main(["certify", str(spec), "--out", str(tmp_path / "r"), "--quick", "-q"]) == 1


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
