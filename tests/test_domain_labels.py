"""Public code books in the Domain: labels, the 'other' bucket, numeric bins; encoding at the door; labeled output.

Every refusal is checked with its message, and the messages are checked to carry no raw value and no row
number (the values are private; errors and logs travel).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import sosproj as sp
from sosproj.data.codebook import Codebook, LabeledTable, encode_column
from sosproj.data.domain import Dataset, Domain, csv_memory_estimate
from sosproj.errors import InvalidInputError, InvalidParameterError, ResourceLimitError
from sosproj.testing import noise_disabled

#: a code book of each kind, and a sizes-only attribute
SPEC = {
    "sex": ["Female", "Male"],
    "job": {"labels": ["Private", "Self-emp", "Gov"], "other": "Other"},
    "age": {"bins": [0, 18, 30, 65, 120]},
    "fare": {"bins": [0, 10, 50], "clip": True},
    "pclass": 3,
}

CSV_TEXT = """pclass,sex,job,age,fare
0, Male ,Private,37,7.25
2,Female,Gov,18,60
1,Male,Lawyer,0,10
2,Female,Self-emp,64.99,-1
0,Male,Other,119.5,49.999
"""

#: the same records, coded by hand (domain order: sex, job, age, fare, pclass)
CODES = [
    [1, 0, 2, 0, 0],
    [0, 2, 1, 1, 2],   # age 18 -> [18, 30); fare 60 >= 50 clipped to the last bin
    [1, 3, 0, 1, 1],   # 'Lawyer' is not listed -> Other; fare 10 -> [10, 50)
    [0, 1, 2, 0, 2],   # fare -1 < 0 clipped to the first bin
    [1, 3, 3, 1, 0],   # the label 'Other' itself is the bucket
]


def _csv(tmp_path: Path, text: str, name: str = "d.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _numbers(msg: str) -> set[str]:
    return set(re.findall(r"\d+(?:\.\d+)?", msg))


# ----------------------------------------------------------------------------- the domain


def test_domain_carries_the_code_books_and_round_trips_through_json(tmp_path):
    dom = Domain.from_mapping(SPEC)
    assert dom.names == tuple(SPEC) and dom.sizes == (2, 4, 4, 2, 3) and dom.has_labels
    assert dom.values("job") == ("Private", "Self-emp", "Gov", "Other")
    assert dom.values("age") == ("[0, 18)", "[18, 30)", "[30, 65)", "[65, 120)")
    assert dom.values("fare") == ("(-inf, 10)", "[10, inf)")
    assert dom.values("pclass") == ("0", "1", "2") and dom.codebook("pclass") is None
    assert dom.as_dict() == {**SPEC, "job": {"labels": ["Private", "Self-emp", "Gov"], "other": "Other"}}
    path = tmp_path / "dom.json"
    dom.to_json(path)
    back = Domain.from_json(path)
    assert back == dom and hash(back) == hash(dom) and len({dom, back}) == 1
    assert json.loads(path.read_text()) == dom.as_dict()
    # a different code book is a different domain (same sizes)
    other = Domain.from_mapping({**SPEC, "sex": ["F", "M"]})
    assert other != dom and other.sizes == dom.sizes
    # integers written as labels are their text
    assert Domain.from_mapping({"age": [17, 18]}).values("age") == ("17", "18")


def test_sizes_only_domains_are_unchanged():
    dom = Domain.from_mapping({"a": 2, "b": 3})
    assert dom.labels is None and not dom.has_labels and dom.as_dict() == {"a": 2, "b": 3}
    assert Domain(("a", "b"), (2, 3), (None, None)) == dom == Domain(("a", "b"), (2, 3))
    assert hash(Domain(("a", "b"), (2, 3), (None, None))) == hash(dom)
    for name in ("nltcs", "adult", "titanic"):
        ds = sp.load_dataset(name)
        assert ds.domain.labels is None and all(isinstance(v, int) for v in ds.domain.as_dict().values())


@pytest.mark.parametrize("entry, fragment", [
    (["a", "a"], "distinct"),
    ([], "empty"),
    ([" a", "b"], "whitespace"),
    (["", "b"], "non-empty"),
    ([1.5, 2], "strings"),
    ([True, False], "strings"),
    ({"labels": ["a", "b"], "other": "a"}, "must not be in the list"),
    ({"labels": ["a"], "colour": 1}, "only the keys"),
    ({"bins": [0, 10, 10]}, "strictly increasing"),
    ({"bins": [10, 0]}, "strictly increasing"),
    ({"bins": [0, float("inf")]}, "finite"),
    ({"bins": [0, float("nan")]}, "finite"),
    ({"bins": [0]}, "at least two edges"),
    ({"bins": [0, "10"]}, "numbers"),
    ({"bins": [0, 1], "clip": "yes"}, "clip"),
    ({"bins": [0, 1], "other": "x"}, "only the keys"),
    ("abc", "number of values, a list of labels"),
])
def test_bad_code_books_are_refused_at_construction(entry, fragment):
    with pytest.raises(InvalidParameterError, match=re.escape(fragment)) as err:
        Domain.from_mapping({"a": 2, "zz": entry})
    assert "'zz'" in str(err.value)


def test_sizes_must_match_the_code_books():
    with pytest.raises(InvalidParameterError, match="is 3 but its code book has 2 values"):
        Domain(("a",), (3,), (Codebook.parse(["x", "y"]),))
    with pytest.raises(InvalidParameterError, match="one entry"):
        Domain(("a", "b"), (2, 2), (None,))
    assert Domain(("a",), (2,), (["x", "y"],)).values("a") == ("x", "y")


# ----------------------------------------------------------------------------- encoding


def test_csv_encoding_equals_the_hand_made_code_table(tmp_path):
    ds = Dataset.from_csv(_csv(tmp_path, CSV_TEXT), SPEC)
    assert ds.domain == Domain.from_mapping(SPEC)
    assert ds.records.tolist() == CODES


def test_from_columns_lists_and_arrays_encode_like_the_csv(tmp_path):
    cols = {"pclass": np.array([0, 2, 1, 2, 0]), "sex": ["Male", "Female", "Male", "Female", "Male"],
            "job": np.array(["Private", "Gov", "Lawyer", "Self-emp", "Other"]),
            "age": np.array([37, 18, 0, 64.99, 119.5]), "fare": [7.25, 60, 10, -1, 49.999]}
    ds = Dataset.from_columns(cols, SPEC)
    assert ds.records.tolist() == CODES
    # numbers match the label with their text
    num = Dataset.from_columns({"age": np.array([37, 40, 37])}, {"age": ["37", "40"]})
    assert num.records[:, 0].tolist() == [0, 1, 0]


def test_bins_edges_are_half_open_and_out_of_range_values_refused_without_clip():
    cb = Codebook.parse({"bins": [0, 18, 65]})
    codes, problems = encode_column(["0", "17.999", "18", "64.9", "65", "-0.1", "1e9"], cb)
    assert codes[:4].tolist() == [0, 0, 1, 1] and problems == {
        "values at or above the last bin edge 65": 2, "values below the first bin edge 0": 1}
    clip = Codebook.parse({"bins": [0, 18, 65], "clip": True})
    codes, problems = encode_column(["0", "17.999", "18", "64.9", "65", "-0.1", "1e9"], clip)
    assert codes.tolist() == [0, 0, 1, 1, 1, 0, 1] and problems == {}
    # NaN, infinities and text are refused even with clip
    _, problems = encode_column(["nan", "inf", "-inf", "abc", ""], clip)
    assert problems == {"empty cells": 1, "non-numeric values": 1, "NaN or infinite values": 3}
    # the only bin with clip is everything finite
    assert Codebook.parse({"bins": [0, 1], "clip": True}).labels == ("(-inf, inf)",)


def test_the_other_bucket_takes_every_unlisted_value():
    cb = Codebook.parse({"labels": ["a", "b"], "other": "rest"})
    codes, problems = encode_column(["a", "zz", "b", "rest", "A", " b "], cb)
    assert codes.tolist() == [0, 2, 1, 2, 2, 1] and problems == {}
    _, problems = encode_column(["a", "", None, float("nan")], cb)
    assert problems == {"empty cells": 3}      # a missing value is not a value: refused, not bucketed
    assert cb.as_json() == {"labels": ["a", "b"], "other": "rest"}


SECRET_TEXT = "Zanzibar-Secret"
SECRET_AGE = "123456.789"


@pytest.mark.parametrize("column, cells, fragment, count", [
    ("sex", [SECRET_TEXT, "Male", SECRET_TEXT + "x"], "values not in the code book", 2),
    ("sex", ["", "Male", "Female"], "empty cells", 1),
    ("age", [SECRET_AGE, "1", "2"], "values at or above the last bin edge 120", 1),
    ("age", ["-" + SECRET_AGE, "1", "-" + SECRET_AGE], "values below the first bin edge 0", 2),
    ("age", [SECRET_TEXT, "1", "2"], "non-numeric values", 1),
    ("age", ["nan", "inf", "2"], "NaN or infinite values", 2),
    ("fare", [SECRET_TEXT, "1", "2"], "non-numeric values", 1),
    ("pclass", ["7", "1", "0"], "codes outside its domain 0..2", 1),
    ("pclass", [SECRET_TEXT, "1", "0"], "non-numeric values (integer codes expected)", 1),
    ("pclass", ["-1", "1", "1.5"], "negative codes", 1),
])
def test_bad_values_are_one_error_per_column_with_counts_and_no_value(tmp_path, column, cells, fragment, count):
    good = {"pclass": "0", "sex": "Male", "job": "Gov", "age": "30", "fare": "5"}
    rows = [",".join(cell if a == column else good[a] for a in good) for cell in cells]
    # pad with good rows so that a bad record's row number (2..4, or 9 / 10 here) would be visible
    rows += [",".join(good.values())] * 6
    rows.insert(1, ",".join(good.values()))
    path = _csv(tmp_path, ",".join(good) + "\n" + "\n".join(rows) + "\n")
    with pytest.raises(InvalidInputError) as err:
        Dataset.from_csv(path, SPEC)
    msg = str(err.value)
    assert f"column {column!r}" in msg and fragment in msg
    assert f"{count} record{'s' if count > 1 else ''} with {fragment}" in msg
    for cell in cells:
        if cell not in ("", "1", "2", "0", "Male", "Female") and cell.lower() not in fragment.lower():
            assert cell not in msg
    assert SECRET_TEXT not in msg and SECRET_AGE not in msg
    # the only numbers in the message: the count and the public domain (edges, code range)
    assert _numbers(msg) <= {str(count), "0", "120", "2", "0..2"} | _numbers(fragment)
    # the same refusal from in-memory columns
    cols = {a: [good[a]] * (len(cells) + 7) for a in good}
    cols[column] = list(cells) + [good[column]] * 7
    with pytest.raises(InvalidInputError) as err2:
        Dataset.from_columns(cols, SPEC)
    assert fragment in str(err2.value) and SECRET_TEXT not in str(err2.value)


def test_several_bad_columns_are_one_error_naming_each(tmp_path):
    text = "pclass,sex,job,age,fare\n9,Nobody,Gov,-5,1\n0,Male,Gov,30,1\n9,Male,Gov,30,1\n"
    with pytest.raises(InvalidInputError) as err:
        Dataset.from_csv(_csv(tmp_path, text), SPEC)
    msg = str(err.value)
    assert "column 'sex': 1 record with values not in the code book" in msg
    assert "column 'age': 1 record with values below the first bin edge 0" in msg
    assert "column 'pclass': 2 records with codes outside its domain 0..2" in msg
    assert "Nobody" not in msg and "-5" not in msg and "9" not in msg


def test_structural_problems_of_the_csv(tmp_path):
    with pytest.raises(InvalidInputError, match="disagree"):
        Dataset.from_csv(_csv(tmp_path, "sex,jobb\nMale,Gov\n"), {"sex": ["Male"], "job": ["Gov"]})
    with pytest.raises(InvalidInputError, match=r"one value per header column \(1 record do"):
        Dataset.from_csv(_csv(tmp_path, "sex,job\nMale,Gov\nMale\n"), {"sex": ["Male"], "job": ["Gov"]})
    with pytest.raises(InvalidInputError, match="at least one row"):
        Dataset.from_csv(_csv(tmp_path, "sex,job\n\n"), {"sex": ["Male"], "job": ["Gov"]})
    # blank lines are skipped, whitespace around a cell is stripped
    ds = Dataset.from_csv(_csv(tmp_path, "sex,job\n\nMale , Gov\n\n"), {"sex": ["Male"], "job": ["Gov"]})
    assert ds.records.tolist() == [[0, 0]]
    with pytest.raises(InvalidInputError, match="different lengths"):
        Dataset.from_columns({"sex": ["Male"], "job": ["Gov", "Gov"]}, {"sex": ["Male"], "job": ["Gov"]})
    with pytest.raises(InvalidInputError, match="disagree"):
        Dataset.from_columns({"sex": ["Male"]}, {"sex": ["Male"], "job": ["Gov"]})


def test_the_memory_estimate_is_checked_before_any_record_is_read(tmp_path, monkeypatch):
    path = _csv(tmp_path, CSV_TEXT)
    est = csv_memory_estimate(path, 5)
    assert est >= 24 * 5 * (path.stat().st_size // 10)
    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", str(est - 1))

    import builtins

    real_open = builtins.open

    def guarded_open(p, *args, **kwargs):
        if str(p) == str(path):
            raise AssertionError("the records were read")
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    with pytest.raises(ResourceLimitError, match="needs an estimated"):
        Dataset.from_csv(path, Domain.from_mapping(SPEC))
    with pytest.raises(ResourceLimitError, match="needs an estimated"):
        Dataset.from_columns({a: ["0"] * 10**6 for a in SPEC}, SPEC)


# ----------------------------------------------------------------------------- output


def test_to_csv_writes_values_that_read_back_to_the_same_codes(tmp_path):
    dom = {"sex": ["Female", "Male"], "job": {"labels": ["Private", "Gov"], "other": "Other"}, "n": 3}
    ds = Dataset.from_columns({"sex": ["Male", "Female", "Male"], "job": ["Gov", "Lawyer", "Private"],
                               "n": [2, 0, 1]}, dom)
    ds.to_csv(tmp_path / "v.csv", values=True)
    assert (tmp_path / "v.csv").read_text().splitlines() == ["sex,job,n", "Male,Gov,2", "Female,Other,0",
                                                            "Male,Private,1"]
    assert np.array_equal(Dataset.from_csv(tmp_path / "v.csv", dom).records, ds.records)
    ds.to_csv(tmp_path / "c.csv")
    assert (tmp_path / "c.csv").read_text().splitlines()[1] == "1,1,2"


def _labeled_dataset(m: int = 300, seed: int = 0) -> Dataset:
    g = np.random.default_rng(seed)
    cols = {"sex": g.choice(["Female", "Male"], m), "job": g.choice(["Private", "Gov", "Lawyer", "Self-emp"], m),
            "age": g.uniform(0, 119, m), "fare": g.normal(20, 30, m), "pclass": g.integers(0, 3, m)}
    return Dataset.from_columns(cols, SPEC)


def test_a_labeled_release_equals_the_release_on_its_codes_bit_for_bit():
    ds = _labeled_dataset()
    codes = Dataset(np.asarray(ds.records), Domain(ds.domain.names, ds.domain.sizes))
    for eps, k in ((0.3, 2), (3.0, 3)):
        a = sp.release_marginals(ds, k, epsilon=eps, delta=1e-6, rng=7)
        b = sp.release_marginals(codes, k, epsilon=eps, delta=1e-6, rng=7)
        assert a.residuals.tobytes() == b.residuals.tobytes()
        assert a.info["noise_scales"] == b.info["noise_scales"]
        assert a.domain == ds.domain and b.domain.labels is None
        for w in a.workload:
            assert a.table(w).tobytes() == b.table(w).tobytes()


def test_labeled_table_is_the_table_with_its_axis_labels():
    ds = _labeled_dataset()
    rel = sp.release_marginals(ds, 2, epsilon=1.0, delta=1e-6, rng=1)
    t = rel.labeled_table(["job", "sex"])
    assert isinstance(t, LabeledTable) and t.attributes == ("job", "sex")
    assert t.values == (("Private", "Self-emp", "Gov", "Other"), ("Female", "Male"))
    assert np.array_equal(t.counts, rel.table(["job", "sex"]))
    rows = list(t.rows())
    assert rows[0][:2] == ("Private", "Female") and rows[1][:2] == ("Private", "Male") and len(rows) == 8
    assert [r[2] for r in rows] == rel.table(["job", "sex"]).ravel().tolist()
    lines = t.to_csv().splitlines()
    assert lines[0] == "job,sex,count" and len(lines) == 9
    assert abs(sum(float(x.rsplit(",", 1)[1]) for x in lines[1:]) - ds.m) < 1e-6
    # without noise: the true table, labeled
    with noise_disabled():
        exact = sp.release_marginals(ds, 2, epsilon=1.0, delta=1e-6)
    truth = ds.labeled_table(["age", "fare"])
    got = exact.labeled_table(["age", "fare"])
    assert got.values == truth.values and np.allclose(got.counts, truth.counts, atol=1e-6)
    # an attribute without a code book is labeled by its codes
    assert rel.labeled_table(["pclass"]).values == (("0", "1", "2"),)
    # a column named 'count' keeps its name: the count column is renamed
    assert LabeledTable(("count",), (("a",),), np.ones(1)).to_csv().splitlines()[0] == "count,released_count"


def test_the_docs_code_book_example_runs_and_prints_what_the_docs_say(capsys):
    """docs/marginals.md, "Your own CSV: a public code book": the block runs and its outputs are as quoted."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "marginals.md").read_text(encoding="utf-8")
    section = text[text.index("## Your own CSV: a public code book"):]
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", section, flags=re.S) if "labeled_table" in b][:1]
    ns: dict = {}
    exec(compile(code, "marginals.md", "exec"), ns)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[[1, 0, 1, 0], [0, 1, 1, 1], [1, 2, 2, 1], [0, 0, 0, 0]]"
    assert out[1] == "('(-inf, 10)', '[10, inf)')"
    assert out[2] == "job,sex,count" and [ln.split(",")[:2] for ln in out[3:9]] == [
        ["Private", "Female"], ["Private", "Male"], ["Gov", "Female"], ["Gov", "Male"],
        ["Other", "Female"], ["Other", "Male"]]
    assert abs(sum(float(ln.split(",")[2]) for ln in out[3:9]) - 4) < 1e-6
    for quoted in ("[[1, 0, 1, 0], [0, 1, 1, 1], [1, 2, 2, 1], [0, 0, 0, 0]]", "('(-inf, 10)', '[10, inf)')",
                   "`job,sex,count`", "$m = 4$"):
        assert quoted in section
