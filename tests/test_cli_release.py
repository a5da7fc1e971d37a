"""``sosproj release cosine|marginals`` end to end on temporary files."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import sosproj
from sosproj.cli import release as crel
from sosproj.cli.main import main
from sosproj.errors import ProjectionError
from sosproj.mechanisms.cosine import release_cosine_similarities
from sosproj.mechanisms.marginals import release_marginals

EPS = ["--epsilon", "1", "--delta", "1e-6"]
COS = [*EPS, "--sensitivity", "1"]


@pytest.fixture
def vectors(tmp_path):
    V = np.random.default_rng(7).standard_normal((12, 5)) * 3.0
    np.save(tmp_path / "secret_vectors.npy", V)
    return V, tmp_path / "secret_vectors.npy"


@pytest.fixture
def records(tmp_path):
    D = (np.random.default_rng(3).random((400, 5)) < 0.4).astype(np.uint8)
    np.savetxt(tmp_path / "records.csv", D, fmt="%d", delimiter=",",
               header=",".join(f"a{i}" for i in range(5)), comments="")
    return D, tmp_path / "records.csv"


def _run(*argv):
    return main([str(a) for a in argv])


def test_cosine_release_matches_the_library_and_writes_a_clean_sidecar(vectors, tmp_path, capsys):
    V, path = vectors
    out = tmp_path / "out" / "cos"
    out.parent.mkdir()
    assert _run("release", "cosine", path, *COS, "--seed", "5", "-o", out) == 0
    text = capsys.readouterr()
    assert "cos.npz" in text.out and "--seed" in text.err  # seeded noise is flagged
    assert sorted(os.listdir(out.parent)) == ["cos.json", "cos.npz"]
    value = np.load(out.parent / "cos.npz")["value"]
    ref = release_cosine_similarities(V, epsilon=1.0, delta=1e-6, sensitivity=1.0, method="exact", rng=5)
    np.testing.assert_array_equal(value, ref.value)
    side = json.loads((out.parent / "cos.json").read_text())
    assert side["sosproj_version"] == sosproj.__version__
    assert side["privacy"]["epsilon"] == 1.0 and side["privacy"]["delta"] == 1e-6
    assert side["privacy"]["sigma"] == pytest.approx(ref.sigma)
    assert side["privacy"]["calibration"] == "analytic" and "adjacency" in side["privacy"]
    assert side["method"] == "exact" and side["seeded_noise"] is True
    assert side["public_parameters"] == {"n": 12}
    assert side["diagnostics"]["projection"]["converged"] is True
    # nothing about the raw input beyond the release: no file name, no input dimension,
    # no arrays, no value of V
    raw = (out.parent / "cos.json").read_text()
    assert "secret_vectors" not in raw and str(tmp_path) not in raw
    assert f"{V[0, 0]:.6g}" not in raw and f"{np.linalg.norm(V[0]):.6g}" not in raw
    keys = set()

    def walk(x):
        if isinstance(x, dict):
            keys.update(x)
            for v in x.values():
                walk(v)
        assert not isinstance(x, list) or len(x) <= 64
    walk(side)
    assert not keys & {"dimension", "d", "input", "path", "file", "hash", "sha256", "shape"}


@pytest.mark.parametrize("fmt", ["npz", "csv"])
@pytest.mark.parametrize("method", ["gaussian", "alternating", "dykstra"])
def test_cosine_inputs_and_methods(vectors, tmp_path, fmt, method):
    V, _ = vectors
    if fmt == "npz":
        np.savez(tmp_path / "in.npz", other=np.zeros(3), V=V)
        extra = ["--key", "V"]
    else:
        np.savetxt(tmp_path / "in.csv", V, delimiter=",")
        extra = []
    out = tmp_path / f"r_{method}"
    assert _run("release", "cosine", tmp_path / f"in.{fmt}", *COS, "--method", method, "--seed", "1",
                "-o", out, "-q", *extra) == 0
    got = np.load(f"{out}.npz")["value"]
    ref = release_cosine_similarities(V, epsilon=1.0, delta=1e-6, sensitivity=1.0, method=method, rng=1)
    np.testing.assert_allclose(got, ref.value, rtol=1e-12, atol=1e-12)  # csv: 18-digit round trip
    assert json.loads(open(f"{out}.json").read())["method"] == method


def test_marginals_release_end_to_end(records, tmp_path, capsys):
    D, path = records
    out = tmp_path / "marg"
    assert _run("--json", "release", "marginals", path, "-k", "2", *EPS, "--method", "symmetrize",
                "--seed", "2", "--tensor", "-o", out) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sidecar"].endswith("marg.json") and doc["public_parameters"]["m"] == 400
    with np.load(f"{out}.npz") as z:
        moments, subsets, m, tensor = z["moments"], z["subsets"], int(z["m"]), z["tensor"]
    ref = release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="symmetrize", rng=2)
    np.testing.assert_array_equal(moments, ref.moments)
    assert m == 400 and subsets.shape == (len(ref.subsets), 2)
    for row, s in zip(subsets, ref.subsets):
        assert tuple(int(i) for i in row if i >= 0) == s
    np.testing.assert_allclose(tensor, ref.tensor())
    side = json.loads(open(f"{out}.json").read())
    assert side["public_parameters"]["m"] == 400 and "public" in side["public_parameters"]["m_source"]
    assert side["public_parameters"]["attributes"] == [f"a{i}" for i in range(5)]  # the CSV header names them
    assert side["privacy"]["sensitivity"] == pytest.approx(ref.sensitivity)
    assert "measured_cells" not in json.dumps(side)


def test_marginals_tables_and_cube_methods_run(records, tmp_path):
    _, path = records
    for method in ("tables", "cube"):
        out = tmp_path / method
        assert _run("release", "marginals", path, "-k", "2", *EPS, "--method", method, "--seed", "0",
                    "-o", out, "-q") == 0
        side = json.loads(open(f"{out}.json").read())
        assert side["method"] == method and side["diagnostics"]
        assert "measured_cells" not in side["diagnostics"]


def test_sparsity_policy_refusal_is_exit_code_4(tmp_path):
    D = np.zeros((50, 6), dtype=np.uint8)
    D[:, :3] = 1  # every row has 3 ones
    np.save(tmp_path / "d.npy", D)
    rc = _run("release", "marginals", tmp_path / "d.npy", "-k", "2", *EPS, "--method", "symmetrize",
              "--sparsity", "2", "--on-violation", "raise", "-o", tmp_path / "o")
    assert rc == 4
    assert os.listdir(tmp_path) == ["d.npy"]
    # the public truncation rule instead: released
    assert _run("release", "marginals", tmp_path / "d.npy", "-k", "2", *EPS, "--method", "symmetrize",
                "--sparsity", "2", "-o", tmp_path / "o", "-q") == 0


def test_missing_malformed_and_invalid_inputs_are_exit_code_2(vectors, tmp_path, capsys):
    _, path = vectors
    (tmp_path / "bad.csv").write_text("1,2\n3,abc\n")
    (tmp_path / "nonbinary.csv").write_text("0,1\n2,1\n")
    cases = [
        ["release", "cosine", tmp_path / "missing.npy", *COS, "-o", tmp_path / "o"],
        ["release", "cosine", tmp_path / "bad.csv", *COS, "-o", tmp_path / "o"],
        ["release", "cosine", path, "--epsilon", "0", "--delta", "1e-6", "--sensitivity", "1", "-o",
         tmp_path / "o"],
        ["release", "cosine", path, "--epsilon", "1", "--delta", "2", "--sensitivity", "1", "-o",
         tmp_path / "o"],
        ["release", "cosine", path, *EPS, "-o", tmp_path / "o"],  # no --sensitivity
        ["release", "cosine", path, *EPS, "--sensitivity", "-1", "-o", tmp_path / "o"],
        ["release", "cosine", path, *COS, "--method", "nope", "-o", tmp_path / "o"],
        ["release", "marginals", tmp_path / "nonbinary.csv", *EPS, "-k", "1", "-o", tmp_path / "o"],
        ["release", "marginals", path, *EPS, "-k", "0", "-o", tmp_path / "o"],
        ["release", "cosine", path, *COS],  # no -o
    ]
    for argv in cases:
        assert _run(*argv) == 2, argv
        assert "abc" not in capsys.readouterr().err
    assert not any(p.name.startswith("o") for p in tmp_path.iterdir())


def test_unwritable_and_existing_outputs_are_refused_before_any_work(vectors, tmp_path, monkeypatch):
    _, path = vectors
    calls = []
    monkeypatch.setattr("sosproj.mechanisms.cosine.release_cosine_similarities",
                        lambda *a, **k: calls.append(1))
    (tmp_path / "afile").write_text("x")
    assert _run("release", "cosine", path, *COS, "-o", tmp_path / "nodir" / "o") == 2
    assert _run("release", "cosine", path, *COS, "-o", tmp_path / "afile" / "o") == 2
    (tmp_path / "taken.json").write_text("{}")
    assert _run("release", "cosine", path, *COS, "-o", tmp_path / "taken") == 2
    assert calls == []


def test_force_overwrites(vectors, tmp_path):
    _, path = vectors
    out = tmp_path / "o"
    assert _run("release", "cosine", path, *COS, "--seed", "1", "-o", out, "-q") == 0
    assert _run("release", "cosine", path, *COS, "--seed", "1", "-o", out, "-q") == 2
    assert _run("release", "cosine", path, *COS, "--seed", "2", "-o", out, "-q", "--force") == 0
    assert json.loads(open(f"{out}.json").read())["seeded_noise"] is True


@pytest.mark.parametrize("exc, code", [(KeyboardInterrupt(), 130), (OSError(28, "No space left"), 1)])
def test_interrupted_write_leaves_no_partial_output(vectors, tmp_path, monkeypatch, exc, code):
    _, path = vectors
    real = np.savez_compressed

    def dying_savez(fh, **arrays):
        real(fh, **arrays)          # the archive is fully written to the temporary file ...
        fh.write(b"garbage")
        raise exc                   # ... and then the process is interrupted

    monkeypatch.setattr(np, "savez_compressed", dying_savez)
    out = tmp_path / "sub"
    out.mkdir()
    assert _run("release", "cosine", path, *COS, "--seed", "1", "-o", out / "r") == code
    assert os.listdir(out) == []  # neither the .npz, nor the sidecar, nor a temporary file


def test_interrupt_between_the_two_renames_removes_the_release(vectors, tmp_path, monkeypatch):
    _, path = vectors
    out = tmp_path / "sub"
    out.mkdir()
    real_replace = os.replace
    seen = []

    def replace_then_die(src, dst):
        seen.append(dst)
        real_replace(src, dst)
        if str(dst).endswith(".npz"):
            raise KeyboardInterrupt  # killed right after the first rename

    monkeypatch.setattr("sosproj.cli.io.os.replace", replace_then_die)
    assert _run("release", "cosine", path, *COS, "--seed", "1", "-o", out / "r") == 130
    assert seen and os.listdir(out) == []


def test_solver_failure_is_exit_code_3(vectors, tmp_path, monkeypatch, capsys):
    _, path = vectors

    def failing(*a, **k):
        raise ProjectionError("the projection did not converge; raise max_iter", {"iterations": 10})

    monkeypatch.setattr("sosproj.mechanisms.cosine.release_cosine_similarities", failing)
    assert _run("release", "cosine", path, *COS, "-o", tmp_path / "o") == 3
    assert "did not converge" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["secret_vectors.npy"]


def test_sanitize_diagnostics_drops_points_and_arrays():
    info = {"projection": {"iterations": 3, "value": [1.0], "extra": {"point": np.ones(3), "ok": True}},
            "measured_cells": np.ones(10), "workload": [(0, 1), (1, 2)], "history": [1.0, 0.5],
            "method": "exact"}
    assert crel.sanitize_diagnostics(info) == {
        "projection": {"iterations": 3, "extra": {"ok": True}}, "history": [1.0, 0.5], "method": "exact"}


def test_unconverged_projection_is_flagged_or_refused(vectors, tmp_path, monkeypatch, capsys):
    _, path = vectors
    real = release_cosine_similarities

    def unconverged(V, **kw):
        rel = real(V, **kw)
        info = dict(rel.info)
        info["projection"] = dict(info["projection"], converged=False)
        return type(rel)(**{**rel.__dict__, "info": info})

    monkeypatch.setattr("sosproj.mechanisms.cosine.release_cosine_similarities", unconverged)
    assert _run("release", "cosine", path, *COS, "-o", tmp_path / "strict", "--require-convergence") == 3
    assert not any(p.name.startswith("strict") for p in tmp_path.iterdir())
    capsys.readouterr()
    assert _run("release", "cosine", path, *COS, "-o", tmp_path / "lax") == 0
    assert "did not reach its tolerance" in capsys.readouterr().err
    side = json.loads((tmp_path / "lax.json").read_text())
    assert side["diagnostics"]["projection"]["converged"] is False


def test_cli_choices_match_the_library():
    from sosproj.mechanisms import cosine, marginals

    assert set(crel.COSINE_METHODS) == set(cosine.METHODS)
    assert set(crel.MARGINAL_METHODS) == set(marginals.METHODS)
    assert crel.MARGINAL_METHODS[0] == marginals.DEFAULT_METHOD == "auto"
    from sosproj.privacy.spec import CALIBRATIONS

    assert crel.CALIBRATIONS == marginals.CALIBRATIONS == CALIBRATIONS
    from sosproj.mechanisms.marginals_pipeline import RECONSTRUCTIONS

    assert set(crel.PIPELINE_RECONSTRUCTIONS) == set(RECONSTRUCTIONS)


def test_marginals_default_method_is_resolved_in_the_sidecar(records, tmp_path):
    _, path = records
    assert _run("release", "marginals", path, "-k", "2", *EPS, "--seed", "0", "-o", tmp_path / "a", "-q") == 0
    side = json.loads((tmp_path / "a.json").read_text())
    assert side["method"] == "auto/auto" and side["mechanism"] == "release_marginals[auto/auto]"
    assert _run("release", "marginals", path, "-k", "2", *EPS, "--seed", "0", "--method", "auto",
                "-o", tmp_path / "t", "-q") == 0
    assert json.loads((tmp_path / "t.json").read_text())["method"] == "tables"
    assert _run("release", "marginals", path, "-k", "2", *EPS, "--seed", "0", "--sparsity", "5",
                "-o", tmp_path / "b", "-q") == 0
    side = json.loads((tmp_path / "b.json").read_text())
    assert side["method"] == "cube" and side["public_parameters"]["sparsity"] == 5


@pytest.mark.parametrize("method", ["auto", "tables", "cube", "sos"])
def test_size_refusal_happens_before_the_input_is_read(tmp_path, monkeypatch, capsys, method):
    """50 x 400 binary records, k = 3: refused from the file header's sizes, the records never read."""
    import sosproj.cli.release as crel

    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", str(4 * 2**30))
    path = tmp_path / "wide.npy"
    np.save(path, (np.random.default_rng(0).random((50, 400)) < 0.3).astype(np.uint8))

    def no_read(*a, **k):
        raise AssertionError("the records were read before the size refusal")

    monkeypatch.setattr(crel, "read_array", no_read)
    code = main(["release", "marginals", str(path), "-k", "3", "--method", method, "--epsilon", "1",
                 "--delta", "1e-6", "-o", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    assert "needs an estimated" in err and "SOSPROJ_MEMORY_LIMIT" in err and "n=400" in err
    assert not list(tmp_path.glob("out*"))


@pytest.mark.parametrize("method", ["tables", "cube", "symmetrize"])
def test_api_size_refusal_happens_before_any_data_pass(monkeypatch, method):
    import sosproj.mechanisms.marginal_tables as mt
    import sosproj.mechanisms.marginals as mg
    from sosproj.errors import ResourceLimitError

    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", str(2**20))  # 1 MiB: the 400^3 tensor cannot fit either

    def no_pass(*a, **k):
        raise AssertionError("the data were touched before the size refusal")

    monkeypatch.setattr(mt, "check_binary_matrix", no_pass)
    monkeypatch.setattr(mg, "enforce_sparsity", no_pass)
    D = np.zeros((50, 400), dtype=np.uint8)
    with pytest.raises(ResourceLimitError, match="n=400"):
        mg.release_marginals(D, 3, epsilon=1.0, delta=1e-6, method=method, rng=0)
    with pytest.raises(ResourceLimitError):
        mt.release_tables(D, 3, epsilon=1.0, delta=1e-6, rng=0)


def test_cli_release_of_a_small_npy_still_works_with_the_size_check(tmp_path):
    path = tmp_path / "small.npy"
    np.save(path, (np.random.default_rng(1).random((40, 4)) < 0.5).astype(np.uint8))
    assert main(["release", "marginals", str(path), "-k", "2", "--method", "symmetrize", "--epsilon", "1",
                 "--delta", "1e-6", "-o", str(tmp_path / "m"), "-q"]) == 0


def test_cli_cosine_sensitivity_is_required_before_the_input_is_read(vectors, tmp_path, monkeypatch, capsys):
    _, path = vectors

    def no_read(*a, **k):
        raise AssertionError("the input was read before the missing sensitivity was refused")

    monkeypatch.setattr(crel, "read_array", no_read)
    assert _run("release", "cosine", path, *EPS, "-o", tmp_path / "o") == 2
    err = capsys.readouterr().err
    assert "--sensitivity is required" in err and "2*sqrt(2*(n-1))" in err and "docs/cosine.md" in err


def test_default_pipeline_size_refusal_happens_before_any_data_pass(monkeypatch):
    """The default residual pipeline (method=None) refuses from the sizes before the records are checked."""
    import sosproj.data.domain as dom
    import sosproj.mechanisms.marginals as mg
    from sosproj.errors import ResourceLimitError

    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", str(2**20))

    def no_pass(*a, **k):
        raise AssertionError("the records were checked before the size refusal")

    monkeypatch.setattr(dom, "as_dataset", no_pass)
    monkeypatch.setattr(dom, "_check_codes", no_pass)
    D = np.zeros((50, 400), dtype=np.uint8)
    with pytest.raises(ResourceLimitError, match="3-way tables"):
        mg.release_marginals(D, 3, epsilon=1.0, delta=1e-6, rng=0)
    with pytest.raises(ResourceLimitError, match="3-way tables"):
        mg.release_marginals(np.zeros((5, 30), dtype=np.uint8), 3, epsilon=1.0, delta=1e-6,
                             domain=[40] * 30, rng=0)


def test_cli_binary_default_is_the_library_default(records, tmp_path):
    """One rule: ``release marginals`` without --method releases what ``release_marginals`` without a
    method releases (the residual pipeline), same seed, same numbers; --tensor from the same moments."""
    from sosproj.data.moment_tensor import subsets_upto, tensor_from_subset_moments

    D, path = records
    assert _run("release", "marginals", path, "-k", "2", *EPS, "--seed", "4", "--tensor",
                "-o", tmp_path / "d", "-q") == 0
    out = np.load(tmp_path / "d.npz")
    lib = release_marginals(D, 2, epsilon=1.0, delta=1e-6, rng=4)
    assert lib.info["mechanism"] == "residual-marginals"
    subsets = subsets_upto(5, 2)
    want = np.array([lib.query(s) for s in subsets]) / 400
    assert np.array_equal(out["moments"], want) and int(out["m"]) == 400
    assert [tuple(int(a) for a in row if a >= 0) for row in out["subsets"]] == list(subsets)
    assert np.allclose(out["tensor"], tensor_from_subset_moments(want, 5, 2, scale=400.0))
    assert _run("release", "marginals", path, "-k", "2", *EPS, "--seed", "4", "--reconstruction", "blue",
                "-o", tmp_path / "b", "-q") == 0
    blue = release_marginals(D, 2, epsilon=1.0, delta=1e-6, rng=4, reconstruction="blue")
    assert np.allclose(np.load(tmp_path / "b.npz")["moments"], [blue.query(s) / 400 for s in subsets])
    assert _run("release", "marginals", path, "-k", "2", *EPS, "--seed", "4", "--reconstruction", "joint",
                "-o", tmp_path / "j", "-q") == 0
    joint = release_marginals(D, 2, epsilon=1.0, delta=1e-6, rng=4, reconstruction="joint")
    assert np.allclose(np.load(tmp_path / "j.npz")["moments"], [joint.query(s) / 400 for s in subsets])
    assert _run("release", "marginals", path, "-k", "2", *EPS, "--solver", "scs", "-o", tmp_path / "s", "-q") == 2
