"""CLI entry point: parsing, exit codes, --json/--quiet, info, python -m sosproj."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import sosproj
import sosproj.cli.main as cmain
from sosproj.cli import info as cinfo
from sosproj.cli.io import OutputError
from sosproj.cli.main import main
from sosproj.cli.output import Console, format_table
from sosproj.errors import (
    DataPolicyError,
    InputTypeError,
    InvalidInputError,
    InvalidParameterError,
    PrivacyBudgetError,
    ProjectionError,
    ResourceLimitError,
    SolverNotAvailableError,
    SosprojError,
)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("exc, code", [
    (InvalidInputError("x"), 2), (InvalidParameterError("x"), 2), (InputTypeError("x"), 2),
    (OutputError("x"), 2), (ResourceLimitError("x"), 2),
    (ProjectionError("x", {}), 3), (SolverNotAvailableError("x"), 3),
    (PrivacyBudgetError("x"), 4), (DataPolicyError("x"), 4),
    (SosprojError("x"), 1), (RuntimeError("x"), 1), (KeyboardInterrupt(), 130),
])
def test_exit_code_mapping(exc, code):
    assert cmain.exit_code_for(exc) == code


def test_version_help_and_usage_errors(capsys):
    assert main(["--version"]) == 0
    assert sosproj.__version__ in capsys.readouterr().out
    assert main(["--help"]) == 0
    assert "demo" in capsys.readouterr().out
    assert main([]) == 2
    assert main(["frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err
    assert main(["info", "--no-such-option"]) == 2
    assert main(["release"]) == 2
    assert "cosine or marginals" in capsys.readouterr().err
    assert main(["release", "cosine", "x.npy", "--epsilon", "one", "--delta", "1e-6", "-o", "o"]) == 2


def test_usage_error_in_json_mode_is_a_json_document(capsys):
    assert main(["--json", "release", "cosine"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"]["exit_code"] == 2 and doc["error"]["type"] == "UsageError"


def _fake_verb(exc):
    def run(args, console):
        raise exc
    return run


@pytest.mark.parametrize("exc, code", [
    (ProjectionError("projection did not converge", {"iterations": 5}), 3),
    (PrivacyBudgetError("budget exhausted"), 4),
    (InvalidInputError("bad input"), 2),
    (KeyboardInterrupt(), 130),
])
def test_verb_errors_become_exit_codes_and_messages(monkeypatch, capsys, exc, code):
    monkeypatch.setattr(cinfo, "run", _fake_verb(exc))
    assert main(["info"]) == code
    err = capsys.readouterr().err
    assert err.startswith("sosproj: error:")
    assert main(["info", "--json"]) == code
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"]["exit_code"] == code and doc["error"]["type"] == type(exc).__name__


def test_unexpected_errors_do_not_print_their_message(monkeypatch, capsys):
    monkeypatch.setattr(cinfo, "run", _fake_verb(ValueError("secret data value 42.125")))
    assert main(["info"]) == 1
    err = capsys.readouterr().err
    assert "ValueError" in err and "42.125" not in err
    with pytest.raises(ValueError):
        main(["info", "--debug"])


def test_info_text_and_json(capsys):
    assert main(["info", "--no-mosek-check"]) == 0
    out = capsys.readouterr().out
    for word in ("sosproj", "scs", "clarabel", "cvxpy", "mosek", "MOSEK licence", "BLAS"):
        assert word in out
    assert main(["--json", "info", "--no-mosek-check"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sosproj"] == sosproj.__version__
    assert doc["solvers"]["scs"]["installed"] is True
    assert doc["threads"]["cpu_count"] >= 1
    assert main(["info", "--quiet", "--no-mosek-check"]) == 0
    assert capsys.readouterr().out == ""


def test_mosek_licence_check_never_raises(monkeypatch):
    st = cinfo.mosek_licence_status(timeout=20)
    assert st["licence"] in {"ok", "missing or invalid", "check timed out", "not installed"}
    # a licence probe that hangs is cut off by the timeout
    monkeypatch.setattr(cinfo.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(cinfo, "_MOSEK_PROBE", "import time; time.sleep(30)")
    st = cinfo.mosek_licence_status(timeout=0.5)
    assert st == {"installed": True, "licence": "check timed out", "detail": "no answer within 0.5 s"}
    monkeypatch.setattr(cinfo, "_MOSEK_PROBE", "raise SystemExit('licence expired')")
    st = cinfo.mosek_licence_status(timeout=20)
    assert st["licence"] == "missing or invalid" and "expired" in st["detail"]


def test_console_modes_and_table():
    import io

    out, err = io.StringIO(), io.StringIO()
    c = Console(stdout=out, stderr=err)
    c.print("result")
    c.note("note")
    assert out.getvalue() == "result\n" and err.getvalue() == "note\n"
    assert not c.progress_enabled()  # StringIO is not a TTY: progress bars silent
    assert list(c.progress(range(3), desc="x")) == [0, 1, 2]
    assert err.getvalue() == "note\n"
    q = Console(quiet=True, stdout=out, stderr=err)
    q.print("hidden")
    q.error("shown")
    assert "hidden" not in out.getvalue() and "sosproj: error: shown" in err.getvalue()
    table = format_table(["a", "b"], [["x", 1e-7], ["yy", 12345.678]])
    assert table.splitlines()[2].split() == ["x", "1.000e-07"]


def _run_module(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "sosproj", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=REPO)


def test_python_dash_m_banner_and_passthrough():
    proc = _run_module()
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"sosproj {sosproj.__version__}"
    assert lines[1].startswith("solvers found:") and "scs" in lines[1]
    assert lines[2].startswith("self-check: ok")
    proc = _run_module("info", "--json", "--no-mosek-check")
    assert proc.returncode == 0 and json.loads(proc.stdout)["sosproj"] == sosproj.__version__
    proc = _run_module("release", "cosine", "/nonexistent/x.npy", "--epsilon", "1", "--delta", "1e-6",
                       "--sensitivity", "1", "-o", "/nonexistent/out")
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_self_check_reports_failure_instead_of_raising(monkeypatch):
    from sosproj import __main__ as entry
    from sosproj.privacy import calibration

    monkeypatch.setattr(calibration, "gaussian_sigma", lambda *a, **k: 1.0)
    res = entry.run_self_check()
    assert res["ok"] is False and "closed form" in res["detail"]


def test_closed_stdout_pipe_is_not_a_crash(monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdout", io.StringIO())  # restored by monkeypatch afterwards

    def broken(self, *parts):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(Console, "print", broken)
    assert main(["info", "--no-mosek-check"]) == 1
    assert sys.stdout.name == os.devnull
