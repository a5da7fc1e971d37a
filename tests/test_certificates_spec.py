"""TOML suites: parsing, running, the recorded report (JSON + PNG) and the module entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sosproj.certificates import Report, Spec, run_spec
from sosproj.certificates.__main__ import main
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError

REPO = Path(__file__).resolve().parents[1]

TINY = """
[suite]
name = "tiny"
seed = 3
quick = true

[[checks]]
name = "stability"
params = { n = 3, sets = ["box", "spectraplex"], sigmas = [0.3, 1.0], trials = 20, n_boot = 100 }

[[checks]]
name = "injective_norm"
params = { ns = [3, 4], trials = 3, n_boot = 100, power_starts = 2 }
"""


@pytest.fixture()
def tiny_spec(tmp_path):
    p = tmp_path / "tiny.toml"
    p.write_text(TINY)
    return p


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """The tiny suite, run once for the module: (report, out_dir, spec path)."""
    base = tmp_path_factory.mktemp("suite")
    spec = base / "tiny.toml"
    spec.write_text(TINY)
    out = base / "out"
    return run_spec(spec, out_dir=out, progress=False), out, spec


def test_run_spec_writes_json_and_plots(tiny_run):
    report, out, _ = tiny_run
    assert [r.name for r in report.results] == ["stability", "injective_norm"]
    assert report.quick and report.ok
    data = json.loads((out / "report.json").read_text())
    assert data["suite"] == "tiny" and data["counts"]
    assert "constant" in data["results"][0]["measured"]
    for name, fname in report.files.items():
        png = out / fname
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    again = Report.load(out / "report.json")
    assert again.results[1].measured == json.loads(report.to_json())["results"][1]["measured"]
    assert "stability" in report.summary()


def test_same_seed_gives_the_same_report_and_checks_are_independent(tiny_run, tmp_path):
    b, _, spec = tiny_run
    a = run_spec(spec, out_dir=tmp_path / "a", progress=False, only=["injective_norm"])
    # a check's stream depends on the seed and its name only, not on the checks run before it
    assert a.results[0].measured["constant"] == b.results[1].measured["constant"]


def test_default_out_dir_is_a_new_folder_not_next_to_the_spec(tiny_spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report = run_spec(tiny_spec, quick=True, progress=False, only=["stability"])
    out = Path(report.out_dir)
    assert out.parent == tmp_path / "sosproj-certify" and out.name.startswith("tiny-")
    assert (out / "report.json").exists()
    assert not (tiny_spec.parent / "reports").exists()


def test_spec_validation_errors(tmp_path):
    def write(text):
        p = tmp_path / "s.toml"
        p.write_text(text)
        return p

    with pytest.raises(InvalidInputError, match="does not exist"):
        run_spec(tmp_path / "missing.toml")
    with pytest.raises(InvalidInputError, match="TOML"):
        Spec.load(write("[suite\nname="))
    with pytest.raises(InvalidParameterError, match="no check named"):
        Spec.load(write('[[checks]]\nname = "bogus"\n'))
    with pytest.raises(InvalidParameterError, match="no parameter"):
        Spec.load(write('[[checks]]\nname = "stability"\nparams = { trails = 3 }\n'))
    with pytest.raises(InvalidInputError, match="unknown"):
        Spec.load(write('[suite]\nnme = "x"\n[[checks]]\nname = "stability"\n'))
    with pytest.raises(InvalidInputError, match="at least one"):
        Spec.load(write('[suite]\nname = "x"\n'))
    with pytest.raises(InputTypeError):
        run_spec(write('[[checks]]\nname = "stability"\n'), quick="yes")
    with pytest.raises(InvalidParameterError, match="not in the spec"):
        run_spec(write('[[checks]]\nname = "stability"\n'), only=["injective_norm"])


def test_repository_specs_list_every_registered_check():
    from sosproj.certificates import list_checks

    for name in ("quick.toml", "full.toml"):
        spec = Spec.load(REPO / "certificates" / name)
        assert {e.name for e in spec.checks} == set(list_checks())
    assert Spec.load(REPO / "certificates" / "quick.toml").quick


def test_module_entry_point(tiny_spec, tmp_path, capsys):
    code = main([str(tiny_spec), "--out", str(tmp_path / "cli"), "--no-progress", "--only", "stability"])
    assert code == 0
    assert "stability" in capsys.readouterr().out
    assert (tmp_path / "cli" / "report.json").exists()
