"""``sosproj release marginals --domain FILE`` with a public code book, and ``--infer-domain`` on text columns."""

from __future__ import annotations

import csv
import json
import os

import numpy as np
import pytest

from sosproj.cli.main import main
from sosproj.data.domain import Dataset
from sosproj.testing import noise_disabled

EPS = ["--epsilon", "1", "--delta", "1e-6"]
DOMAIN = {"sex": ["Female", "Male"], "class": {"labels": ["1st", "2nd"], "other": "other"},
          "age": {"bins": [0, 18, 40, 120]}, "fare": {"bins": [0, 10, 50], "clip": True}}
SECRET = "Atlantis-7"


def _run(*argv) -> int:
    return main([str(a) for a in argv])


@pytest.fixture
def labeled(tmp_path):
    """60 records with strings and raw numbers, columns in another order than the domain."""
    g = np.random.default_rng(5)
    m = 60
    rows = list(zip(g.uniform(0, 119, m).round(2), g.choice(["Female", "Male"], m),
                    g.choice(["1st", "2nd", "3rd", "crew"], m), g.normal(20, 25, m).round(2), strict=True))
    path = tmp_path / "people.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["age", "sex", "class", "fare"])
        w.writerows(rows)
    dom = tmp_path / "codebook.json"
    dom.write_text(json.dumps(DOMAIN))
    return path, dom, m


def _long_csv(path) -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8") as fh:
        lines = list(csv.reader(fh))
    return lines[0], lines[1:]


def test_labeled_csv_end_to_end_long_tables_name_the_values_and_sum_to_m(labeled, tmp_path, measure_every_set):
    path, dom, m = labeled
    truth = Dataset.from_csv(path, dom)
    for noisy in (False, True):
        out = tmp_path / f"rel{int(noisy)}"
        args = ("release", "marginals", path, "--domain", dom, "-k", "2", *EPS, "-o", out, "--quiet",
                "--seed", "3")
        if noisy:
            assert _run(*args) == 0
        else:
            with noise_disabled():
                assert _run(*args) == 0
        side = json.loads(out.with_suffix(".json").read_text())
        pub = side["public_parameters"]
        assert pub["domain"] == truth.domain.as_dict() == DOMAIN and pub["domain_source"].startswith("public")
        assert pub["attribute_order"] == list(truth.domain.names)            # the sidecar's keys are sorted
        from sosproj.data.domain import Domain
        assert Domain.from_mapping({a: pub["domain"][a] for a in pub["attribute_order"]}) == truth.domain
        assert "table_<i>.csv" in side["outputs"]
        with np.load(out.with_suffix(".npz")) as z:
            arrays = {k: z[k] for k in z.files}
        for i, w in enumerate(pub["workload"]):
            header, rows = _long_csv(f"{out}.table_{i}.csv")
            assert header == [*w, "count"]
            counts = np.array([float(r[-1]) for r in rows])
            assert abs(counts.sum() - m) < 1e-6
            assert np.array_equal(counts, arrays[f"table_{i}"].ravel())       # the npz, unchanged, in C order
            values = [truth.domain.values(a) for a in w]
            assert [tuple(r[:-1]) for r in rows] == [(u, v) for u in values[0] for v in values[1]]
            if not noisy:
                np.testing.assert_allclose(counts, truth.marginal([truth.domain.index(a) for a in w]).ravel(),
                                           atol=1e-6)
    # the values appear as labels: the other bucket and the bins
    _, rows = _long_csv(f"{tmp_path / 'rel0'}.table_0.csv")
    assert {r[1] for r in rows} == {"1st", "2nd", "other"} and {r[0] for r in rows} == {"Female", "Male"}
    assert len(os.listdir(tmp_path)) == 2 + 2 * (2 + 6)


def test_sizes_only_domains_write_no_long_csv(tmp_path):
    path = tmp_path / "codes.csv"
    path.write_text("a,b\n0,1\n1,2\n1,0\n")
    (tmp_path / "d.json").write_text('{"a": 2, "b": 3}')
    assert _run("release", "marginals", path, "--domain", tmp_path / "d.json", "-k", "2", *EPS, "-o",
                tmp_path / "r", "--quiet") == 0
    assert sorted(os.listdir(tmp_path)) == ["codes.csv", "d.json", "r.json", "r.npz"]


def test_inferred_labels_warn_and_are_recorded(tmp_path, capsys):
    path = tmp_path / "x.csv"
    path.write_text("colour,n\nred,0\n blue,2\ngreen ,1\nred,1\n")
    out = tmp_path / "inf"
    assert _run("release", "marginals", path, "--infer-domain", "-k", "2", *EPS, "-o", out, "--quiet") == 0
    err = capsys.readouterr().err
    assert "WARNING" in err and "INFERRED FROM THE PRIVATE RECORDS" in err and "distinct values" in err
    pub = json.loads(out.with_suffix(".json").read_text())["public_parameters"]
    assert pub["domain"] == {"colour": ["blue", "green", "red"], "n": 3}
    assert pub["domain_source"].startswith("INFERRED") and "['colour']" in pub["domain_source"]
    header, rows = _long_csv(f"{out}.table_0.csv")
    assert header == ["colour", "n", "count"] and rows[0][:2] == ["blue", "0"]


def test_a_bad_value_is_one_clear_error_without_the_value_and_nothing_is_written(labeled, tmp_path, capsys):
    path, dom, _ = labeled
    text = path.read_text().splitlines()
    text[5] = f"30,{SECRET},1st,5"
    text[9] = "-3,Male,1st,5"
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(text) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    assert _run("release", "marginals", bad, "--domain", dom, *EPS, "-o", out / "r", "--quiet") == 2
    err = capsys.readouterr().err
    assert "column 'sex': 1 record with values not in the code book" in err
    assert "column 'age': 1 record with values below the first bin edge 0" in err
    assert SECRET not in err and "-3" not in err and " 5" not in err and " 9" not in err
    assert os.listdir(out) == []


def test_a_bad_code_book_is_refused_before_the_records_are_read(labeled, tmp_path, monkeypatch, capsys):
    path, _, _ = labeled

    def no_read(*args, **kwargs):
        raise AssertionError("the records were read")

    monkeypatch.setattr(Dataset, "from_csv", no_read)
    out = tmp_path / "out"
    out.mkdir()
    for entry, fragment in (({"bins": [0, 50, 40]}, "strictly increasing"), (["a", "a"], "distinct"),
                            ({"bins": [0, float("inf")]}, "finite")):
        (tmp_path / "bad.json").write_text(json.dumps({**DOMAIN, "age": entry}))
        assert _run("release", "marginals", path, "--domain", tmp_path / "bad.json", *EPS, "-o", out / "r",
                    "--quiet") == 2
        assert fragment in capsys.readouterr().err
    assert os.listdir(out) == []


def test_existing_table_csvs_are_not_overwritten_without_force(labeled, tmp_path, capsys):
    path, dom, _ = labeled
    out = tmp_path / "o"
    out.mkdir()
    (out / "r.table_3.csv").write_text("keep")
    assert _run("release", "marginals", path, "--domain", dom, "-k", "2", *EPS, "-o", out / "r", "--quiet") == 2
    assert "r.table_3.csv already exists" in capsys.readouterr().err
    assert sorted(os.listdir(out)) == ["r.table_3.csv"] and (out / "r.table_3.csv").read_text() == "keep"
    assert _run("release", "marginals", path, "--domain", dom, "-k", "2", *EPS, "-o", out / "r", "--quiet",
                "--force") == 0
    assert (out / "r.table_3.csv").read_text().startswith("class,age,count")   # sets in domain order


def test_a_forced_rewrite_leaves_no_table_csv_of_an_earlier_release(labeled, tmp_path):
    """--force with fewer workload tables (k = 1 after k = 2) removes the earlier run's extra OUT.table_<i>.csv: every
    table CSV beside OUT then belongs to the sidecar that lists it."""
    path, dom, _ = labeled
    out = tmp_path / "r"
    assert _run("release", "marginals", path, "--domain", dom, "-k", "2", *EPS, "-o", out, "--quiet") == 0
    n2 = len([f for f in os.listdir(tmp_path) if f.startswith("r.table_")])
    assert _run("release", "marginals", path, "--domain", dom, "-k", "1", *EPS, "-o", out, "--quiet",
                "--force") == 0
    side = json.loads(out.with_suffix(".json").read_text())
    n1 = len(side["public_parameters"]["workload"])
    assert n1 < n2
    kept = sorted(f for f in os.listdir(tmp_path) if f.startswith("r.table_"))
    assert kept == [f"r.table_{i}.csv" for i in range(n1)]
