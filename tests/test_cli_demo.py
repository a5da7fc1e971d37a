"""``sosproj demo --quick`` end to end, and its report folder."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from sosproj.cli import demo as cdemo
from sosproj.cli.main import main
from sosproj.errors import ProjectionError


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "report"
    rc = main(["demo", "--quick", "--out", str(out), "--quiet"])
    return rc, out


def test_demo_quick_writes_the_report_folder(quick_report):
    rc, out = quick_report
    assert rc == 0
    assert sorted(os.listdir(out)) == ["errors.png", "report.json", "report.md"]
    assert (out / "errors.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rep = json.loads((out / "report.json").read_text())
    assert rep["epsilon"] == 1.0 and rep["quick"] is True
    cos, mar = rep["cosine"], rep["marginals"]
    assert [r["method"] for r in cos["rows"]] == list(cdemo.QUICK.cosine_methods)
    assert [r["method"] for r in mar["rows"]] == list(cdemo.QUICK.marginal_methods)
    assert all(r["error"] > 0 for r in cos["rows"] + mar["rows"])
    status = {r["method"]: r["status"] for r in cos["rows"]}
    assert status["exact"] == "ok" and status["dykstra"] == "ok"
    assert "| exact |" in (out / "report.md").read_text()


def test_demo_table_marks_infeasible_outputs(quick_report):
    """The averaged projections (Algorithm 4) stop outside S: the table must not say ok."""
    _, out = quick_report
    rep = json.loads((out / "report.json").read_text())
    rows = {r["method"]: r for r in rep["cosine"]["rows"]}
    from sosproj.sets.bounded_diagonal_psd import BoundedDiagonalPSD

    for method in ("alternating", "gaussian"):
        r = rows[method]
        assert r["feasible"] is False and r["violation"] > cdemo.FEASIBILITY_TOL
        assert r["status"] == f"infeasible: outside S by {r['violation']:.3g}"
    assert rows["exact"]["feasible"] is True and rows["exact"]["violation"] <= cdemo.FEASIBILITY_TOL
    md = (out / "report.md").read_text()
    assert "| alternating | " in md and "infeasible: outside S by" in md
    # the violation measure is the set's own: an independent check on one released matrix
    from sosproj.data import load_dataset
    from sosproj.mechanisms.cosine import release_cosine_similarities

    V = np.asarray(load_dataset("digits-real")[0][: cdemo.QUICK.cosine_n], dtype=float)
    rel = release_cosine_similarities(V, epsilon=1.0, delta=1e-6, sensitivity=1.0, method="alternating",
                                      rng=np.random.default_rng(0))
    assert not BoundedDiagonalPSD(1.0).contains(rel.value, tol=1e-6)


def test_status_words():
    assert cdemo._status({"converged": True}, 1.25, "outside S by") == ("infeasible: outside S by 1.25", False)
    assert cdemo._status({"converged": False}, 0.0, "outside S by") == ("not converged", True)
    assert cdemo._status({}, 1e-9, "outside S by") == ("ok", True)


def test_demo_numbers_are_consistent(quick_report):
    _, out = quick_report
    rep = json.loads((out / "report.json").read_text())
    err = {r["method"]: r["error"] for r in rep["cosine"]["rows"]}
    first = {r["method"]: r["errors"][0] for r in rep["cosine"]["rows"]}
    # exact and Dykstra compute the same projection of the same (first) noise draw
    assert first["exact"] == pytest.approx(first["dykstra"], rel=1e-4)
    assert len(rep["cosine"]["rows"][0]["errors"]) == cdemo.QUICK.draws
    # projecting onto a set containing the truth never increases the error (firm non-expansiveness)
    assert err["exact"] < err["gaussian"] and err["alternating"] < err["gaussian"]
    for exp in (rep["cosine"], rep["marginals"]):
        base = next(r["error"] for r in exp["rows"] if r["method"] == exp["baseline"])
        base_errors = next(r["errors"] for r in exp["rows"] if r["method"] == exp["baseline"])
        assert base == pytest.approx(np.mean(base_errors))
        for r in exp["rows"]:
            assert r["error"] == pytest.approx(np.mean(r["errors"]))
            assert r["ratio"] == pytest.approx(r["error"] / np.mean(base_errors[:len(r["errors"])]))


def test_demo_is_reproducible_and_recomputes_the_truth(tmp_path):
    cfg = cdemo.DemoConfig(cosine_n=6, cosine_methods=("gaussian",), marginal_n=3,
                           marginal_methods=("gaussian",))
    from sosproj.cli.output import Console

    quiet = Console(quiet=True)
    a = cdemo.cosine_experiment(cfg, 3, quiet)
    b = cdemo.cosine_experiment(cfg, 3, quiet)
    assert a["rows"][0]["error"] == b["rows"][0]["error"]
    # independent recomputation of the Gaussian-mechanism error
    from sosproj.data import load_dataset
    from sosproj.mechanisms.cosine import release_cosine_similarities

    X, _ = load_dataset("digits-real")
    V = X[:6]
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    rel = release_cosine_similarities(V, epsilon=1.0, delta=1e-6, sensitivity=1.0, method="gaussian",
                                      rng=np.random.default_rng(3))
    assert a["rows"][0]["error"] == pytest.approx(np.mean((rel.value - U @ U.T) ** 2))
    m = cdemo.marginals_experiment(cfg, 3, quiet)
    assert m["n"] == 3 and m["m"] == 1797 and m["rows"][0]["error"] > 0


def test_demo_solver_failure_is_reported_and_exit_code_3(tmp_path, monkeypatch, capsys):
    import sosproj.mechanisms.cosine as cos

    real = cos.release_cosine_similarities

    def flaky(V, **kw):
        if kw.get("method") == "dykstra":
            raise ProjectionError("Dykstra did not converge", {"iterations": 1})
        return real(V, **kw)

    monkeypatch.setattr(cos, "release_cosine_similarities", flaky)
    monkeypatch.setattr(cdemo, "QUICK", cdemo.DemoConfig(
        cosine_n=8, cosine_methods=("gaussian", "dykstra"), marginal_n=3,
        marginal_methods=("gaussian", "symmetrize")))
    assert main(["demo", "--quick", "--out", str(tmp_path / "r")]) == 3
    out = capsys.readouterr().out
    assert "failed: ProjectionError" in out
    assert (tmp_path / "r" / "report.json").exists()


def test_demo_output_errors(tmp_path):
    (tmp_path / "file").write_text("x")
    assert main(["demo", "--quick", "--out", str(tmp_path / "file"), "-q"]) == 2
    assert main(["demo", "--quick", "--out", str(tmp_path / "file" / "sub"), "-q"]) == 2


def test_demo_interrupted_report_write_leaves_no_files(tmp_path, monkeypatch):
    monkeypatch.setattr(cdemo, "QUICK", cdemo.DemoConfig(
        cosine_n=6, cosine_methods=("gaussian",), marginal_n=3, marginal_methods=("gaussian",)))
    real_write_files = cdemo.write_files

    def write_files_killed_during_the_plot(writers, name):
        writers = dict(writers)
        key = next(k for k in writers if k.endswith("errors.png"))
        png_writer = writers[key]

        def dying(fh):
            png_writer(fh)          # the plot reaches the temporary file ...
            raise KeyboardInterrupt  # ... and the process is interrupted before the renames
        writers[key] = dying
        return real_write_files(writers, name=name)

    monkeypatch.setattr(cdemo, "write_files", write_files_killed_during_the_plot)
    assert main(["demo", "--quick", "--out", str(tmp_path / "r"), "-q"]) == 130
    assert os.listdir(tmp_path / "r") == []
