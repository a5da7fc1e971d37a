"""Domain and Dataset: the door of the marginal pipeline (validation, CSV + domain JSON, bundled copies)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import sosproj as sp
from sosproj.data.domain import Dataset, Domain, as_dataset
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _write(tmp_path: Path, header: list[str], rows: list[list], domain: dict) -> tuple[Path, Path]:
    c = tmp_path / "d.csv"
    c.write_text(",".join(header) + "\n" + "\n".join(",".join(str(v) for v in r) for r in rows) + "\n")
    j = tmp_path / "d.json"
    j.write_text(json.dumps(domain))
    return c, j


def test_from_csv_maps_columns_by_name(tmp_path: Path) -> None:
    c, j = _write(tmp_path, ["b", "a"], [[2, 0], [1, 1], [0, 1]], {"a": 2, "b": 3})
    ds = Dataset.from_csv(c, j)
    assert ds.domain.names == ("a", "b") and ds.domain.sizes == (2, 3)
    assert ds.records.tolist() == [[0, 2], [1, 1], [1, 0]]
    assert ds.marginal((1, 0)).tolist() == [[0, 1], [0, 1], [1, 0]]


@pytest.mark.parametrize("rows, domain, match", [
    ([[0, 3]], {"a": 2, "b": 3}, "outside its domain"),
    ([[-1, 0]], {"a": 2, "b": 3}, "negative"),
    ([[0.5, 0]], {"a": 2, "b": 3}, "non-integer"),
    ([[0, 0]], {"a": 2, "c": 3}, "disagree"),
    ([["x", 0]], {"a": 2, "b": 3}, "integer codes"),
])
def test_from_csv_bad_input(tmp_path: Path, rows, domain, match) -> None:
    c, j = _write(tmp_path, ["a", "b"], rows, domain)
    with pytest.raises(InvalidInputError, match=match):
        Dataset.from_csv(c, j)


def test_dataset_and_domain_validation() -> None:
    dom = Domain.from_sizes([2, 3])
    with pytest.raises(InvalidInputError, match="columns"):
        Dataset(np.zeros((2, 3), dtype=int), dom)
    with pytest.raises(InvalidInputError, match="NaN"):
        Dataset(np.array([[0, np.nan]]), dom)
    with pytest.raises(InvalidParameterError, match="distinct"):
        Domain(("a", "a"), (2, 2))
    with pytest.raises(InvalidParameterError, match="positive integer"):
        Domain(("a",), (0,))
    with pytest.raises(InvalidParameterError, match="unknown attribute"):
        dom.index("zz")
    with pytest.raises(InputTypeError):
        dom.index(1.5)
    ds = Dataset(np.array([[1, 2]]), dom)
    with pytest.raises(ValueError):
        ds.records[0, 0] = 0                       # read-only


def test_as_dataset_binary_default_and_domain_forms() -> None:
    X = np.array([[0, 1], [1, 1]])
    assert as_dataset(X).domain.sizes == (2, 2)
    with pytest.raises(InvalidInputError, match="domain="):
        as_dataset(np.array([[0, 2]]))
    assert as_dataset(np.array([[0, 2]]), [2, 3]).domain.sizes == (2, 3)
    assert as_dataset(np.array([[0, 2]]), {"u": 2, "v": 3}).domain.names == ("u", "v")
    with pytest.raises(InvalidInputError, match="attributes"):
        as_dataset(X, [2, 2, 2])


def test_load_dataset_categorical_and_legacy() -> None:
    ds = sp.load_dataset("adult")
    assert isinstance(ds, Dataset) and ds.m == 48842 and ds.n == 15
    assert ds.domain.size_of("native-country") == 42
    D, meta = sp.load_dataset("digits")             # the legacy binary sets keep their (D, meta) form
    assert D.shape == (1797, 64) and meta["kind"] == "binary"
    sub = sp.load_dataset("titanic", columns=["Sex", "Age"])
    assert sub.domain.names == ("Sex", "Age") and sub.records.shape == (1304, 2)


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared data folder is not present")
@pytest.mark.parametrize("name", ["nltcs", "adult", "titanic"])
def test_bundled_copy_equals_shared_csv(name: str) -> None:
    ref = Dataset.from_csv(SHARED / f"{name}.csv", SHARED / f"{name}-domain.json")
    ds = sp.load_dataset(name)
    assert ds.domain == ref.domain
    assert np.array_equal(ds.records, ref.records)


@pytest.mark.parametrize("value", [97, -53])
def test_code_errors_never_quote_a_record_value(value: int) -> None:
    """An out-of-domain code is private data: the error names the column and the public domain only."""
    dom = Domain(("a", "b"), (2, 3))
    with pytest.raises(InvalidInputError) as err:
        Dataset(np.array([[0, 1], [1, value]]), dom)
    msg = str(err.value)
    assert "'b'" in msg and "0..2" in msg
    assert str(abs(value)) not in msg
