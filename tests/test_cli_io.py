"""CLI file input (.npy/.npz/.csv) and atomic output."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest

from sosproj.cli import io as cio
from sosproj.cli.io import OutputError, read_array, write_files
from sosproj.errors import InvalidInputError

SECRET = 987654.321  # a "data value" that must never appear in an error message


def _listing(d):
    return sorted(os.listdir(d))


# ------------------------------------------------------------------ reading


def test_read_npy_npz_csv_roundtrip(tmp_path):
    A = np.arange(12, dtype=float).reshape(4, 3) / 7
    np.save(tmp_path / "a.npy", A)
    np.savez(tmp_path / "one.npz", data=A)
    np.savez(tmp_path / "two.npz", X=A, Y=2 * A)
    np.savetxt(tmp_path / "a.csv", A, delimiter=",", header="c0,c1,c2", comments="")
    np.savetxt(tmp_path / "b.csv", A, delimiter=";")
    np.savetxt(tmp_path / "c.csv", A)  # whitespace separated
    assert np.array_equal(read_array(tmp_path / "a.npy"), A)
    assert np.array_equal(read_array(tmp_path / "one.npz"), A)
    assert np.array_equal(read_array(tmp_path / "two.npz", key="Y"), 2 * A)
    for name in ("a.csv", "b.csv", "c.csv"):
        np.testing.assert_allclose(read_array(tmp_path / name), A, rtol=1e-15, atol=0)


def test_read_csv_with_bom_comments_and_explicit_delimiter(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("\ufeff# a comment\nx|y\n1|0\n0|1\n", encoding="utf-8")
    assert read_array(p, delimiter="|").tolist() == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize("content, fragment", [
    ("a,b\n1,2\n3\n", "different numbers of columns"),
    (f"1,2\n{SECRET},oops\n", "non-numeric"),
    ("1,2\n3,\n", "non-numeric or empty"),
    ("h1,h2\n", "no data rows"),
    ("# only a comment\n\n", "no data rows"),
])
def test_malformed_csv_is_refused_without_quoting_data(tmp_path, content, fragment):
    p = tmp_path / "bad.csv"
    p.write_text(content)
    with pytest.raises(InvalidInputError, match=fragment) as err:
        read_array(p)
    assert "oops" not in str(err.value) and str(SECRET) not in str(err.value)


def test_missing_empty_directory_and_unsupported_inputs(tmp_path):
    with pytest.raises(InvalidInputError, match="not found"):
        read_array(tmp_path / "missing.npy")
    (tmp_path / "empty.npy").write_bytes(b"")
    with pytest.raises(InvalidInputError, match="empty"):
        read_array(tmp_path / "empty.npy")
    (tmp_path / "d.npy").mkdir()
    with pytest.raises(InvalidInputError, match="directory"):
        read_array(tmp_path / "d.npy")
    (tmp_path / "x.txt").write_text("1,2")
    with pytest.raises(InvalidInputError, match=r"\.npy, \.npz or \.csv"):
        read_array(tmp_path / "x.txt")


def test_corrupt_and_pickled_binary_inputs_are_refused(tmp_path):
    (tmp_path / "junk.npy").write_bytes(b"not a numpy file at all")
    with pytest.raises(InvalidInputError, match="not a valid .npy"):
        read_array(tmp_path / "junk.npy")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 truncated zip")
    with pytest.raises(InvalidInputError, match="not a valid .npz"):
        read_array(tmp_path / "junk.npz")
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InvalidInputError, match="pickled"):
        read_array(tmp_path / "obj.npy")
    # a raw pickle renamed to .npy must not be unpickled
    (tmp_path / "p.npy").write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(InvalidInputError):
        read_array(tmp_path / "p.npy")


def test_npz_key_selection_errors(tmp_path):
    np.savez(tmp_path / "two.npz", X=np.ones(2), Y=np.zeros(2))
    with pytest.raises(InvalidInputError, match="--key"):
        read_array(tmp_path / "two.npz")
    with pytest.raises(InvalidInputError, match="no array named"):
        read_array(tmp_path / "two.npz", key="Z")


def test_non_numeric_and_empty_arrays_are_refused(tmp_path):
    np.save(tmp_path / "s.npy", np.array(["a", "b"]))
    with pytest.raises(InvalidInputError, match="numeric"):
        read_array(tmp_path / "s.npy")
    np.save(tmp_path / "e.npy", np.zeros((0, 3)))
    with pytest.raises(InvalidInputError, match="empty array"):
        read_array(tmp_path / "e.npy")


# ------------------------------------------------------------------ writing


def test_write_files_writes_all_and_leaves_no_temporaries(tmp_path):
    paths = write_files({tmp_path / "a.bin": lambda fh: fh.write(b"A" * 10),
                         tmp_path / "b.json": lambda fh: fh.write(b"{}")})
    assert [os.path.basename(p) for p in paths] == ["a.bin", "b.json"]
    assert _listing(tmp_path) == ["a.bin", "b.json"]
    assert (tmp_path / "a.bin").read_bytes() == b"A" * 10


@pytest.mark.parametrize("exc", [OSError("disk full"), KeyboardInterrupt()])
def test_interrupted_write_leaves_no_partial_file(tmp_path, exc):
    def failing_writer(fh):
        fh.write(b"x" * 4096)  # part of the file reaches the disk ...
        raise exc               # ... then the write is interrupted

    with pytest.raises(type(exc)):
        write_files({tmp_path / "ok.bin": lambda fh: fh.write(b"ok"),
                     tmp_path / "out.npz": failing_writer})
    assert _listing(tmp_path) == []


def test_interrupted_write_keeps_the_previous_version(tmp_path):
    target = tmp_path / "r.json"
    target.write_bytes(b'{"old": true}')

    def failing_writer(fh):
        fh.write(b'{"new": ')
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_files({target: failing_writer})
    assert json.loads(target.read_bytes()) == {"old": True}
    assert _listing(tmp_path) == ["r.json"]


def test_failed_rename_of_second_file_removes_the_first(tmp_path, monkeypatch):
    real_replace = os.replace
    calls = []

    def flaky_replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise PermissionError(13, "Permission denied")
        return real_replace(src, dst)

    monkeypatch.setattr(cio.os, "replace", flaky_replace)
    with pytest.raises(OutputError, match="cannot write"):
        write_files({tmp_path / "a.npz": lambda fh: fh.write(b"a"),
                     tmp_path / "a.json": lambda fh: fh.write(b"{}")})
    assert _listing(tmp_path) == []


def test_unwritable_destinations(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="does not exist"):
        cio.atomic_write(tmp_path / "nodir" / "out.bin", lambda fh: fh.write(b"1"))
    with pytest.raises(OutputError, match="not a directory"):
        cio.atomic_write(tmp_path / "file" / "out.bin", lambda fh: fh.write(b"1"))
    (tmp_path / "adir").mkdir()
    with pytest.raises(OutputError, match="is a directory"):
        cio.atomic_write(tmp_path / "adir", lambda fh: fh.write(b"1"))


def test_json_helpers_are_strict():
    doc = cio.to_jsonable({"a": np.float32(1.5), "b": np.arange(2), "c": float("inf"), "d": (True,)})
    assert doc == {"a": 1.5, "b": [0, 1], "c": None, "d": [True]}
    assert json.loads(cio.json_bytes({"x": np.nan})) == {"x": None}
    assert cio.sidecar_path("out/r.NPZ") == "out/r.json"
    assert cio.npz_path("out/r") == "out/r.npz"


def test_csv_fast_and_careful_paths_agree(tmp_path):
    A = np.random.default_rng(1).standard_normal((50, 4))
    np.savetxt(tmp_path / "fast.csv", A, delimiter=",", header="a,b,c,d", comments="")
    quoted = "a,b\r\n" + "".join(f'"{x:.17g}","{y:.17g}"\r\n' for x, y in A[:, :2])
    (tmp_path / "quoted.csv").write_text(quoted, newline="")   # csv quoting: careful parser
    np.testing.assert_array_equal(read_array(tmp_path / "fast.csv"), A)
    np.testing.assert_array_equal(read_array(tmp_path / "quoted.csv"), A[:, :2])
    (tmp_path / "one.csv").write_text("x\n1\n2\n")
    assert read_array(tmp_path / "one.csv").shape == (2, 1)
