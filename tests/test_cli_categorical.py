"""``sosproj release marginals`` on categorical CSV input: ``--domain FILE`` and ``--infer-domain``."""

from __future__ import annotations

import itertools
import json
import os

import numpy as np
import pytest

from sosproj.cli import release as crel
from sosproj.cli.main import main
from sosproj.data.domain import Dataset, Domain
from sosproj.testing import noise_disabled

EPS = ["--epsilon", "1", "--delta", "1e-6"]
SIZES = {"colour": 3, "size": 2, "shape": 4}          # domain JSON order
HEADER = ["shape", "colour", "size"]                  # CSV header order (matched by name)


def _write_csv(path, header, rows) -> None:
    path.write_text(",".join(header) + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows))


@pytest.fixture
def data(tmp_path):
    """40 records over SIZES; the largest code of 'shape' is 2, so the inferred domain differs (3 < 4)."""
    g = np.random.default_rng(11)
    X = np.column_stack([g.integers(0, 3, 40), g.integers(0, 2, 40), g.integers(0, 3, 40)])  # domain order
    X[0] = [2, 1, 2]
    csv = tmp_path / "private.csv"
    _write_csv(csv, HEADER, X[:, [2, 0, 1]].tolist())
    dom = tmp_path / "domain.json"
    dom.write_text(json.dumps(SIZES))
    return X, csv, dom


def _run(*argv) -> int:
    return main([str(a) for a in argv])


def _tables(out) -> tuple[dict, dict]:
    side = json.loads(out.with_suffix(".json").read_text())
    with np.load(out.with_suffix(".npz")) as z:
        arrays = {k: z[k] for k in z.files}
    return side, arrays


def test_domain_file_release_names_the_attributes_and_is_exact_without_noise(data, tmp_path, capsys, measure_every_set):
    X, csv, dom = data
    out = tmp_path / "rel"
    with noise_disabled():
        assert _run("release", "marginals", csv, "--domain", dom, "-k", "2", *EPS, "-o", out, "--quiet") == 0
    assert "WARNING" not in capsys.readouterr().err
    side, arrays = _tables(out)
    truth = Dataset(X, Domain.from_mapping(SIZES))
    pub = side["public_parameters"]
    assert pub["domain"] == SIZES and pub["domain_source"].startswith("public")
    assert pub["workload"] == [list(w) for w in itertools.combinations(SIZES, 2)]
    names = list(SIZES)
    for i, w in enumerate(pub["workload"]):
        assert side["outputs"][f"table_{i}"] == f"private counts over ({', '.join(w)})"
        np.testing.assert_allclose(arrays[f"table_{i}"], truth.marginal([names.index(a) for a in w]), atol=1e-6)
    # the privacy claim names the neighbours of categorical records (any record of the domain), not 0/1 rows
    assert side["privacy"]["adjacency"] == crel.ADJACENCY["marginals-domain"]
    assert "0/1" not in side["privacy"]["adjacency"] and "record of the domain" in side["privacy"]["adjacency"]
    assert side["diagnostics"]["adjacency"] == "replace-one"


def test_inferred_domain_warns_even_under_quiet_and_json(data, tmp_path, capsys, measure_every_set):
    X, csv, _ = data
    for i, mode in enumerate(("--quiet", "--json")):
        out = tmp_path / f"inf{i}"
        with noise_disabled():
            assert _run("release", "marginals", csv, "--infer-domain", "-k", "2", *EPS, "-o", out, mode) == 0
        text = capsys.readouterr()
        assert "WARNING" in text.err and "INFERRED FROM THE PRIVATE RECORDS" in text.err
        if mode == "--json":
            assert json.loads(text.out)["public_parameters"]["domain_source"].startswith("INFERRED")
        side, arrays = _tables(out)
        inferred = {"shape": 3, "colour": 3, "size": 2}  # largest code + 1, CSV header order
        assert side["public_parameters"]["domain"] == inferred
        assert side["public_parameters"]["domain_source"].startswith("INFERRED")
        truth = Dataset(X[:, [2, 0, 1]], Domain.from_mapping(inferred))
        for j, w in enumerate(side["public_parameters"]["workload"]):
            idx = [HEADER.index(a) for a in w]
            np.testing.assert_allclose(arrays[f"table_{j}"], truth.marginal(idx), atol=1e-6)


def test_workload_option_inline_and_json_file(data, tmp_path):
    _, csv, dom = data
    spec = tmp_path / "wl.json"
    spec.write_text(json.dumps([["size", "shape"], ["colour"]]))
    for i, wl in enumerate(("size, shape; colour", spec)):
        out = tmp_path / f"w{i}"
        assert _run("release", "marginals", csv, "--domain", dom, "--workload", wl, *EPS, "-o", out,
                    "--quiet") == 0
        side, arrays = _tables(out)
        assert side["public_parameters"]["workload"] == [["size", "shape"], ["colour"]]
        assert side["public_parameters"]["k"] == 2          # the largest set, -k not given
        assert arrays["table_0"].shape == (2, 4) and arrays["table_1"].shape == (3,)


def _bad_cases(tmp_path, csv, dom):
    """(name, extra CLI args, expected message fragment); files prepared on the fly."""
    counter = itertools.count()

    def csv_with(rows, header=HEADER):
        p = tmp_path / f"bad{next(counter)}.csv"
        _write_csv(p, header, rows)
        return p

    def json_file(text):
        p = tmp_path / f"bad{next(counter)}.json"
        p.write_text(text)
        return p

    return [
        ("code outside the domain", [csv_with([[4, 0, 1], [0, 1, 0]]), "--domain", dom], "outside its domain"),
        ("header vs domain JSON", [csv_with([[0, 0, 1]], header=["shape", "colour", "weight"]), "--domain", dom],
         "header and domain disagree"),
        ("domain JSON missing an attribute", [csv, "--domain", json_file('{"colour": 3, "size": 2}')],
         "header and domain disagree"),
        ("negative code", [csv_with([[0, -1, 1]]), "--domain", dom], "negative"),
        ("negative code, inferred", [csv_with([[0, -1, 1]]), "--infer-domain"], "negative"),
        ("non-integer code", [csv_with([[0, 1.5, 1]]), "--domain", dom], "non-integer"),
        ("non-integer code, inferred", [csv_with([[0, 1.5, 1]]), "--infer-domain"], "non-integer"),
        # a non-numeric column is now inferred as a label set (tests/test_cli_labels.py); an empty cell is refused
        ("empty cell, inferred", [csv_with([[0, "", 1], [1, 1, 0]]), "--infer-domain"], "empty cells"),
        ("unknown workload attribute", [csv, "--domain", dom, "--workload", "colour,weight"],
         "unknown attribute 'weight'"),
        ("unknown workload attribute, inferred", [csv, "--infer-domain", "--workload", "colour;weight"],
         "unknown attribute 'weight'"),
        ("malformed domain JSON", [csv, "--domain", json_file('{"colour": 3,')], "not valid JSON"),
        ("domain JSON not an object", [csv, "--domain", json_file("[3, 2, 4]")], "JSON object"),
        ("missing domain file", [csv, "--domain", tmp_path / "nope.json"], "not found"),
        ("headerless CSV, inferred", [csv_with([[1, 0, 1]], header=["0", "2", "1"]), "--infer-domain"],
         "header row"),
        ("empty workload set", [csv, "--domain", dom, "--workload", "colour,;size"], "non-empty"),
        ("workload without a domain", [csv, "--workload", "colour"], "--workload needs categorical input"),
        ("both --domain and --infer-domain", [csv, "--domain", dom, "--infer-domain"], "not allowed with"),
        ("--method with a domain", [csv, "--domain", dom, "--method", "cube"], "drop --method"),
    ]


def test_bad_input_is_a_clear_error_and_nothing_is_written(data, tmp_path, capsys):
    _, csv, dom = data
    outdir = tmp_path / "out"
    outdir.mkdir()
    for name, extra, fragment in _bad_cases(tmp_path, csv, dom):
        code = _run("release", "marginals", extra[0], *extra[1:], "-k", "2", *EPS, "-o", outdir / "r", "--quiet")
        err = capsys.readouterr().err
        assert code == 2, name
        assert fragment in err, (name, err)
        assert os.listdir(outdir) == [], name


def test_domain_and_workload_are_checked_before_any_record_is_read(data, tmp_path, monkeypatch, capsys):
    _, csv, dom = data

    def no_read(*args, **kwargs):
        raise AssertionError("the records were read")

    monkeypatch.setattr(Dataset, "from_csv", no_read)
    for extra, fragment in (([dom, "--workload", "colour,weight"], "unknown attribute 'weight'"),
                            ([tmp_path / "missing.json"], "not found")):
        assert _run("release", "marginals", csv, "--domain", *extra, *EPS, "-o", tmp_path / "r", "--quiet") == 2
        assert fragment in capsys.readouterr().err


def test_parse_workload_spec_rejects_malformed_json(tmp_path):
    p = tmp_path / "w.json"
    p.write_text(json.dumps({"sets": [["a"]]}))
    with pytest.raises(crel.InvalidInputError, match="list of lists"):
        crel.parse_workload_spec(str(p))
    assert crel.parse_workload_spec(None) is None


def test_docs_titanic_example_of_the_inferred_domain_leak():
    """docs/cli.md quotes Titanic's Fare: 30 values inferred from the records, 32 in the public domain."""
    from pathlib import Path

    import sosproj as sp

    ds = sp.load_dataset("titanic")
    j = ds.domain.index("Fare")
    assert ds.domain.sizes[j] == 32 and int(ds.records[:, j].max()) + 1 == 30
    text = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "`Fare` 30 values where the public domain has 32" in text


def test_a_domain_too_large_for_memory_is_refused_with_the_estimate(tmp_path, monkeypatch, capsys):
    names = [f"c{i}" for i in range(30)]
    (tmp_path / "big-domain.json").write_text(json.dumps({a: 40 for a in names}))
    _write_csv(tmp_path / "big.csv", names, [[1] * 30])
    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", str(10**9))
    out = tmp_path / "out"
    out.mkdir()
    assert _run("release", "marginals", tmp_path / "big.csv", "--domain", tmp_path / "big-domain.json", *EPS,
                "-o", out / "r", "--quiet") == 2
    err = capsys.readouterr().err
    assert "4,060 3-way tables" in err and "GiB" in err and "SOSPROJ_MEMORY_LIMIT" in err
    assert os.listdir(out) == []


def test_selection_flag_reaches_the_release_and_is_recorded(tmp_path, capsys, monkeypatch):
    """``--selection one-way`` runs the private 1-way selection (a concentrated 40-value attribute the public rule
    skips is tested); the default ``none`` does not; the sidecar records the choice. Session 29's public rule
    (``tau_1 = 5``, no shrinkage) is pinned: since session 31 the default rule measures the 40-value attribute here, so
    the selection would have no candidate."""
    from sosproj.mechanisms import marginals_pipeline as mp
    monkeypatch.setattr(mp, "AUTO_SKIP_SNR", (5.0, 5.0, 8.0))
    monkeypatch.setattr(mp, "ONE_WAY_SHRINK", 0.0)
    g = np.random.default_rng(0)
    m = 1500
    z = g.integers(0, 3, size=m)
    X = np.column_stack([(z + g.integers(0, 2, size=m)) % 3, (z > 0).astype(int),
                         np.minimum(g.geometric(0.6, size=m) - 1 + (z == 2), 39), g.integers(0, 4, size=m),
                         g.integers(0, 30, size=m), (z + g.integers(0, 2, size=m)) % 3])
    names = ["a", "b", "fare", "c", "d", "e"]
    csv = tmp_path / "wide.csv"
    _write_csv(csv, names, X.tolist())
    dom = tmp_path / "wide.json"
    dom.write_text(json.dumps(dict(zip(names, (3, 2, 40, 4, 30, 3), strict=True))))
    tables = {}
    for sel in ("none", "one-way"):
        out = tmp_path / f"rel_{sel}"
        assert _run("release", "marginals", csv, "--domain", dom, "-k", "3", "--epsilon", "0.5", "--delta", "1e-9",
                    "--seed", "1", "--selection", sel, "-o", out, "--quiet") == 0
        side, tables[sel] = _tables(out)
        assert side["public_parameters"]["selection"] == sel
    # the same seed: the selection changed the measurement (the concentrated attribute is measured after all)
    assert any(not np.allclose(tables["none"][key], tables["one-way"][key]) for key in tables["none"])
    assert _run("release", "marginals", csv, "--domain", dom, "-k", "2", "--epsilon", "0.3", "--delta", "1e-9",
                "--selection", "two-way", "-o", tmp_path / "bad", "--quiet") == 2
    assert "invalid choice: 'two-way'" in capsys.readouterr().err
    assert not (tmp_path / "bad.npz").exists()


def test_selection_choices_are_the_pipelines(tmp_path, capsys):
    """The CLI's ``--selection`` choices are the pipeline's :data:`SELECTIONS` (spelled out in the parser, which does
    not import the pipeline at start-up); ``--selection pairs`` reaches the release and is recorded."""
    import re

    from sosproj.mechanisms.marginals_pipeline import SELECTIONS

    g = np.random.default_rng(1)
    m = 4000
    a = g.integers(0, 6, size=m)
    X = np.column_stack([a, np.where(g.random(m) < 0.8, a, g.integers(0, 6, size=m)), g.integers(0, 5, size=m),
                         g.integers(0, 4, size=m), g.integers(0, 3, size=m)])
    names = ["a", "b", "c", "d", "e"]
    csv = tmp_path / "dep.csv"
    _write_csv(csv, names, X.tolist())
    dom = tmp_path / "dep.json"
    dom.write_text(json.dumps(dict(zip(names, (6, 6, 5, 4, 3), strict=True))))
    assert _run("release", "marginals", csv, "--domain", dom, "-k", "3", "--epsilon", "1", "--delta", "1e-9",
                "--selection", "bogus", "-o", tmp_path / "bad", "--quiet") == 2
    listed = re.search(r"choose from ([^)]*)\)", capsys.readouterr().err).group(1)
    assert tuple(x.strip(" '") for x in listed.split(",")) == SELECTIONS
    out = tmp_path / "rel_pairs"
    assert _run("release", "marginals", csv, "--domain", dom, "-k", "3", "--epsilon", "1", "--delta", "1e-9",
                "--seed", "1", "--selection", "pairs", "-o", out, "--quiet") == 0
    side, _ = _tables(out)
    assert side["public_parameters"]["selection"] == "pairs"


def test_extrapolation_flag_reaches_the_release_and_is_recorded(tmp_path, capsys):
    """``--extrapolation``'s choices are the pipeline's :data:`EXTRAPOLATION_PRIORS`; ``tree`` with ``--selection
    pairs`` gives the library's release with ``project_options={"extrapolation": "tree"}`` (same seed, same tables)
    and the sidecar records it."""
    import re

    from sosproj.mechanisms.extrapolation import EXTRAPOLATION_PRIORS

    g = np.random.default_rng(2)
    m = 4000
    a = g.integers(0, 6, size=m)
    b = np.where(g.random(m) < 0.8, a, g.integers(0, 6, size=m))
    X = np.column_stack([a, b, np.where(g.random(m) < 0.8, b % 5, g.integers(0, 5, size=m)),
                         g.integers(0, 4, size=m), g.integers(0, 3, size=m)])
    names = ["a", "b", "c", "d", "e"]
    csv = tmp_path / "dep.csv"
    _write_csv(csv, names, X.tolist())
    dom = tmp_path / "dep.json"
    sizes = (6, 6, 5, 4, 3)
    dom.write_text(json.dumps(dict(zip(names, sizes, strict=True))))
    assert _run("release", "marginals", csv, "--domain", dom, "-k", "3", "--epsilon", "1", "--delta", "1e-9",
                "--extrapolation", "bogus", "-o", tmp_path / "bad", "--quiet") == 2
    listed = re.search(r"choose from ([^)]*)\)", capsys.readouterr().err).group(1)
    assert tuple(x.strip(" '") for x in listed.split(",")) == EXTRAPOLATION_PRIORS
    out = tmp_path / "rel_tree"
    assert _run("release", "marginals", csv, "--domain", dom, "-k", "3", "--epsilon", "1", "--delta", "1e-9",
                "--seed", "3", "--selection", "pairs", "--extrapolation", "tree", "-o", out, "--quiet") == 0
    side, tables = _tables(out)
    assert side["public_parameters"]["extrapolation"] == "tree"
    import sosproj as sp

    lib = sp.release_marginals(X, 3, domain=list(sizes), epsilon=1.0, delta=1e-9, rng=3, selection="pairs",
                               project_options={"extrapolation": "tree"})
    assert lib.info["reconstruction_info"]["tree_prior"]["prior_sets"] > 0      # the prior did start some tables
    uniform = sp.release_marginals(X, 3, domain=list(sizes), epsilon=1.0, delta=1e-9, rng=3, selection="pairs",
                                   project_options={"extrapolation": "uniform"})
    assert max(np.abs(lib.table(w) - uniform.table(w)).max() for w in lib.workload) > 1e-3
    for i, w in enumerate(lib.workload):
        np.testing.assert_allclose(tables[f"table_{i}"], lib.table(w), rtol=1e-9, atol=1e-6)
    # without the flag: the tree with --selection pairs (the pipeline's SELECT_PAIRS_EXTRAPOLATION), uniform without
    out = tmp_path / "rel_default"
    assert _run("release", "marginals", csv, "--domain", dom, "-k", "3", "--epsilon", "1", "--delta", "1e-9",
                "--seed", "3", "--selection", "pairs", "-o", out, "--quiet") == 0
    side, tables = _tables(out)
    assert side["public_parameters"]["extrapolation"] == "tree"
    for i, w in enumerate(lib.workload):
        np.testing.assert_allclose(tables[f"table_{i}"], lib.table(w), rtol=1e-9, atol=1e-6)
    out = tmp_path / "rel_none"
    assert _run("release", "marginals", csv, "--domain", dom, "-k", "3", "--epsilon", "1", "--delta", "1e-9",
                "--seed", "3", "-o", out, "--quiet") == 0
    assert _tables(out)[0]["public_parameters"]["extrapolation"] == "uniform"


def test_add_remove_adjacency_states_a_private_m_and_matches_the_library(data, tmp_path, measure_every_set):
    """``--adjacency add-remove``: the sidecar says the number of records is private (the released total is noisy),
    records the declared ``--public-m``, and the release is the library's ``adjacency="add-remove"`` one."""
    X, csv, dom = data
    out = tmp_path / "ar"
    argv = ["release", "marginals", csv, "--domain", dom, "-k", "2", *EPS, "-o", out, "--quiet",
            "--adjacency", "add-remove", "--public-m", "50", "--seed", "5"]
    assert _run(*argv) == 0
    side, arrays = _tables(out)
    assert side["privacy"]["adjacency"] == crel.ADJACENCY["marginals-domain-add-remove"]
    assert "added or removed" in side["privacy"]["adjacency"] and side["diagnostics"]["adjacency"] == "add-remove"
    pub = side["public_parameters"]
    assert pub["public_m"] == 50 and pub["m_source"].startswith("the release's noisy total")
    import sosproj as sp

    ref = sp.release_marginals(Dataset(X, Domain.from_mapping(SIZES)), 2, epsilon=1, delta=1e-6, rng=5,
                               adjacency="add-remove", public_m=50)
    assert side["privacy"]["sensitivity"] == pytest.approx(ref.sensitivity)
    assert pub["m"] == int(ref.m)
    for i, w in enumerate(ref.workload):
        np.testing.assert_allclose(arrays[f"table_{i}"], ref.table(w))


@pytest.mark.parametrize("extra, message", [
    (["--adjacency", "add-remove"], "needs --public-m"),
    (["--public-m", "40"], "--public-m applies to --adjacency add-remove"),
    (["--adjacency", "add-remove", "--public-m", "0"], "--public-m must be >= 1"),
])
def test_add_remove_options_are_checked_before_any_record_is_read(data, tmp_path, capsys, extra, message):
    X, csv, dom = data
    out = tmp_path / "bad"
    assert _run("release", "marginals", csv, "--domain", dom, *EPS, "-o", out, *extra) == 2
    assert message in capsys.readouterr().err
    assert not out.with_suffix(".json").exists() and not out.with_suffix(".npz").exists()


def test_add_remove_on_binary_input_without_a_domain_is_refused(tmp_path, capsys):
    D = tmp_path / "D.npy"
    np.save(D, np.eye(5, dtype=np.uint8))
    assert _run("release", "marginals", D, *EPS, "-o", tmp_path / "b", "--adjacency", "add-remove") == 2
    assert "pass --domain FILE" in capsys.readouterr().err
