"""File input and atomic file output for the command-line interface.

Reading: :func:`read_array` loads one numeric array from ``.npy``, ``.npz`` or
``.csv`` and turns every failure into an :class:`~sosproj.errors.InvalidInputError`
(exit code 2) whose message names the file argument and the fix, never a data
value (parsers such as :func:`numpy.loadtxt` quote the offending cell; we do not).

Writing: :func:`atomic_write` writes through a temporary file in the destination
directory, flushes and ``fsync``s it, then renames it over the destination with
:func:`os.replace` (atomic on POSIX and Windows). :func:`write_files` writes
several files as one unit: all are staged first and renamed only when every
one was written, so an interrupted or failing write leaves no partial output
file and no stale sibling.

Examples
--------
>>> import json, os, tempfile
>>> import numpy as np
>>> d = tempfile.mkdtemp()
>>> path = os.path.join(d, "x.npy")
>>> np.save(path, np.eye(2))
>>> read_array(path).shape
(2, 2)
>>> write_json(os.path.join(d, "meta.json"), {"epsilon": 1.0})
>>> json.load(open(os.path.join(d, "meta.json")))["epsilon"]
1.0
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
import warnings
import zipfile
from collections.abc import Callable, Mapping
from typing import IO, Any

import numpy as np

from sosproj.errors import InvalidInputError, SosprojError

SUPPORTED_INPUTS = (".npy", ".npz", ".csv")

Writer = Callable[[IO[bytes]], None]


class OutputError(SosprojError, OSError):
    """An output path cannot be written (missing directory, not a directory, no permission).

    Part of the :class:`~sosproj.errors.SosprojError` family (CLI exit code 2).

    >>> try:
    ...     check_output_dir("/nonexistent-dir/out.npz", "-o")
    ... except OutputError as err:
    ...     print(str(err).split(";")[0])
    -o: directory /nonexistent-dir does not exist
    """


# ------------------------------------------------------------------ reading


def _suffix(path: str) -> str:
    return os.path.splitext(path)[1].lower()


def read_array(path: str | os.PathLike[str], *, name: str = "INPUT", key: str | None = None,
               delimiter: str | None = None) -> np.ndarray:
    """Load one numeric array from a ``.npy``, ``.npz`` or ``.csv`` file.

    * ``.npy``: loaded with ``allow_pickle=False`` (a pickled file is refused).
    * ``.npz``: the array named ``key``; without ``key`` the archive must hold
      exactly one array.
    * ``.csv``: comma-separated numbers (``delimiter`` overrides; ``None`` sniffs
      comma, semicolon, tab or whitespace); a first row that is not numeric is
      taken as a header and skipped; every row must have the same length.

    Raises :class:`~sosproj.errors.InvalidInputError` for a missing, unreadable,
    empty or malformed file. Messages never quote file contents.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "v.csv")
    >>> _ = open(p, "w").write("a,b\\n1,2\\n3,4\\n")
    >>> read_array(p).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    path = os.fspath(path)
    suffix = _suffix(path)
    if suffix not in SUPPORTED_INPUTS:
        raise InvalidInputError(
            f"{name} must be a .npy, .npz or .csv file; got a file ending in {suffix or '(no suffix)'!r}")
    check_input_file(path, name, "pass a .npy, .npz or .csv file")
    if os.path.getsize(path) == 0:
        raise InvalidInputError(f"{name} file is empty: {path}")
    try:
        if suffix == ".npy":
            arr = _read_npy(path, name)
        elif suffix == ".npz":
            arr = _read_npz(path, name, key)
        else:
            arr = _read_csv(path, name, delimiter)
    except PermissionError as exc:
        raise InvalidInputError(f"{name} file is not readable: {path}; check its permissions") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise InvalidInputError(f"{name} must hold a numeric array; got dtype {arr.dtype}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} holds an empty array; it needs at least one row and column")
    return arr


def check_input_file(path: str | os.PathLike[str], name: str, fix: str = "pass a file") -> str:
    """Return ``path`` if it is an existing file; else raise :class:`~sosproj.errors.InvalidInputError`.

    >>> check_input_file("/nonexistent/x.csv", "INPUT")
    Traceback (most recent call last):
    ...
    sosproj.errors.InvalidInputError: INPUT file not found: /nonexistent/x.csv; check the path
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InvalidInputError(f"{name} file not found: {path}; check the path")
    if os.path.isdir(path):
        raise InvalidInputError(f"{name} is a directory: {path}; {fix}")
    return path


def peek_shape(path: str | os.PathLike[str], key: str | None = None) -> tuple[int, ...] | None:
    """The array shape from a ``.npy`` file's header (or a ``.npz`` member's), without reading the data.

    ``None`` when it cannot be told cheaply (a CSV file, an ambiguous archive, a bad
    header): :func:`read_array` then reports any problem. Used to refuse, from sizes
    alone, work that cannot fit before the input is read.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "d.npy"); np.save(p, np.zeros((3, 4)))
    >>> peek_shape(p)
    (3, 4)
    """
    path = os.fspath(path)
    try:
        if _suffix(path) == ".npy":
            with open(path, "rb") as fh:
                return _npy_header_shape(fh)
        if _suffix(path) == ".npz":
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n.endswith(".npy")]
                member = f"{key}.npy" if key is not None else (names[0] if len(names) == 1 else None)
                if member is None or member not in names:
                    return None
                with archive.open(member) as fh:
                    return _npy_header_shape(fh)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    return None


def _npy_header_shape(fh: Any) -> tuple[int, ...]:
    version = np.lib.format.read_magic(fh)
    reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, _, _ = reader(fh)
    return tuple(int(s) for s in shape)


def _read_npy(path: str, name: str) -> np.ndarray:
    try:
        arr = np.load(path, allow_pickle=False)
    except ValueError as exc:  # pickled object arrays, bad header
        raise InvalidInputError(
            f"{name} is not a valid .npy file of numbers (object/pickled arrays are refused): {path}") from exc
    except (OSError, EOFError) as exc:
        raise InvalidInputError(f"{name} is not a valid .npy file: {path}") from exc
    if not isinstance(arr, np.ndarray):
        raise InvalidInputError(f"{name} is not a valid .npy file: {path}")
    return arr


def _read_npz(path: str, name: str, key: str | None) -> np.ndarray:
    try:
        with np.load(path, allow_pickle=False) as archive:
            keys = list(archive.files)
            if key is None:
                if len(keys) != 1:
                    raise InvalidInputError(
                        f"{name} archive holds {len(keys)} arrays ({', '.join(keys) or 'none'}); "
                        "choose one with --key NAME")
                key = keys[0]
            if key not in keys:
                raise InvalidInputError(
                    f"{name} archive has no array named {key!r}; available: {', '.join(keys)}")
            return np.asarray(archive[key])
    except InvalidInputError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise InvalidInputError(
            f"{name} is not a valid .npz archive of numeric arrays: {path}") from exc


def is_number(cell: str) -> bool:
    """True when ``cell`` parses as a number (CSV header detection).

    >>> is_number(" 1.5"), is_number("age")
    (True, False)
    """
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _read_csv(path: str, name: str, delimiter: str | None) -> np.ndarray:
    """Fast path :func:`numpy.loadtxt`; on any parse error, the careful parser names the problem."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            first, first_index = None, 0
            for index, line in enumerate(fh):
                if line.strip() and not line.lstrip().startswith("#"):
                    first, first_index = line, index
                    break
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{name} is not a UTF-8 text .csv file: {path}") from exc
    if first is None:
        raise InvalidInputError(f"{name} .csv file has no data rows: {path}")
    if delimiter is None:
        delimiter = next((d for d in (",", ";", "\t") if d in first), None)
    cells = first.split() if delimiter is None else next(csv.reader([first], delimiter=delimiter))
    header = not all(is_number(c.strip()) for c in cells)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "input contained no data" and friends
            arr = np.loadtxt(path, delimiter=delimiter, comments="#", ndmin=2, encoding="utf-8-sig",
                             skiprows=first_index + 1 if header else 0, dtype=float)
    except (ValueError, UserWarning, IndexError):
        return _read_csv_careful(path, name, delimiter)
    if arr.size == 0:
        raise InvalidInputError(f"{name} .csv file has a header but no data rows: {path}")
    return arr


def _read_csv_careful(path: str, name: str, delimiter: str | None) -> np.ndarray:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        text = fh.read()
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if delimiter is None:
        rows = [ln.split() for ln in lines]
    else:
        rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter))
    rows = [[c.strip() for c in r] for r in rows]
    if rows and not all(is_number(c) for c in rows[0]):
        rows = rows[1:]  # header
    if not rows:
        raise InvalidInputError(f"{name} .csv file has a header but no data rows: {path}")
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        raise InvalidInputError(
            f"{name} .csv rows have different numbers of columns: {path}; every row needs the same length")
    out = np.empty((len(rows), width), dtype=float)
    for i, r in enumerate(rows):
        try:
            out[i] = [float(c) for c in r]
        except ValueError:
            # never echo the cell: it is data
            raise InvalidInputError(
                f"{name} .csv file has a non-numeric or empty cell after the header: {path}; "
                "fix or remove it") from None
    return out


# ------------------------------------------------------------------ writing


def check_output_dir(path: str | os.PathLike[str], name: str = "OUTPUT") -> str:
    """Return the directory of ``path``; raise :class:`OutputError` if it cannot hold the file.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); check_output_dir(os.path.join(d, "x.npz")) == d
    True
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(directory):
        raise OutputError(f"{name}: directory {directory} does not exist; create it first")
    if not os.path.isdir(directory):
        raise OutputError(f"{name}: {directory} is not a directory; choose another output path")
    if os.path.isdir(path):
        raise OutputError(f"{name}: {path} is a directory; pass a file path")
    return directory


def _stage(path: str, writer: Writer, name: str) -> str:
    """Write ``writer``'s bytes to a fsynced temporary sibling of ``path``; return its name."""
    directory = check_output_dir(path, name)
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                   suffix=".partial")
    except OSError as exc:
        raise OutputError(f"{name}: cannot write into {directory} ({exc.strerror}); "
                          "choose a writable location") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            writer(fh)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return tmp


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_files(writers: Mapping[str | os.PathLike[str], Writer], *, name: str = "OUTPUT") -> list[str]:
    """Write several files as one unit; return their paths.

    Every file is first written to a temporary sibling (same directory, so the
    final :func:`os.replace` is an atomic rename). Only when all were written
    are they renamed into place. On any failure, including
    ``KeyboardInterrupt``, the temporary files are removed and any destination
    already renamed in this call is removed again, so no partial or half-paired
    output remains (when overwriting, the previous version of a destination that
    was already replaced is lost with it). Raises :class:`OutputError` when a
    destination cannot be written.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> paths = write_files({os.path.join(d, "a.txt"): lambda fh: fh.write(b"a")})
    >>> sorted(os.listdir(d))
    ['a.txt']
    """
    staged: list[tuple[str, str]] = []
    try:
        for path, writer in writers.items():
            path = os.fspath(path)
            staged.append((_stage(path, writer, name), path))
        for tmp, path in staged:
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise OutputError(f"{name}: cannot write {path} ({exc.strerror}); "
                                  "choose a writable location") from exc
    except BaseException:
        # A staged file that no longer exists was renamed into place (possibly just
        # before an interrupt arrived): remove the destination so no half pair remains.
        for tmp, path in staged:
            if os.path.exists(tmp):
                _unlink_quietly(tmp)
            else:
                _unlink_quietly(path)
        raise
    return [path for _, path in staged]


def atomic_write(path: str | os.PathLike[str], writer: Writer, *, name: str = "OUTPUT") -> str:
    """Write one file atomically (temporary file in the same directory, then rename).

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "b.bin")
    >>> atomic_write(p, lambda fh: fh.write(b"xyz")) == p
    True
    """
    return write_files({path: writer}, name=name)[0]


def json_bytes(obj: Any) -> bytes:
    """Serialize ``obj`` to UTF-8 JSON (sorted keys, indented, NaN refused).

    >>> json_bytes({"b": 1, "a": [1.5]})[:8]
    b'{\\n  "a":'
    """
    return (json.dumps(to_jsonable(obj), indent=2, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, tuples and dataclass-like objects to JSON types.

    Non-finite floats become ``None`` (strict JSON has no NaN).

    >>> import numpy as np
    >>> to_jsonable({"x": np.float64(2.5), "y": (1, np.int64(2)), "z": float("nan")})
    {'x': 2.5, 'y': [1, 2], 'z': None}
    """
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        val = float(obj)
        return val if np.isfinite(val) else None
    if obj is None or isinstance(obj, str):
        return obj
    if hasattr(obj, "__dataclass_fields__"):
        return {f: to_jsonable(getattr(obj, f)) for f in obj.__dataclass_fields__}
    return str(obj)


def write_json(path: str | os.PathLike[str], obj: Any, *, name: str = "OUTPUT") -> None:
    """Write ``obj`` as JSON atomically.

    >>> import os, tempfile
    >>> write_json(os.path.join(tempfile.mkdtemp(), "r.json"), {"ok": True})
    """
    data = json_bytes(obj)
    atomic_write(path, lambda fh: fh.write(data), name=name)


def npz_writer(arrays: Mapping[str, np.ndarray]) -> Writer:
    """Return a writer that stores ``arrays`` as a compressed ``.npz`` archive.

    >>> import io, numpy as np
    >>> buf = io.BytesIO(); npz_writer({"a": np.ones(2)})(buf)
    >>> _ = buf.seek(0); np.load(buf)["a"].tolist()
    [1.0, 1.0]
    """
    def write(fh: IO[bytes]) -> None:
        np.savez_compressed(fh, **{k: np.asarray(v) for k, v in arrays.items()})
    return write


def sidecar_path(out: str | os.PathLike[str]) -> str:
    """The JSON sidecar path that goes with an ``.npz`` output path.

    >>> sidecar_path("runs/release.npz")
    'runs/release.json'
    """
    out = os.fspath(out)
    root, ext = os.path.splitext(out)
    return (root if ext.lower() == ".npz" else out) + ".json"


def npz_path(out: str | os.PathLike[str]) -> str:
    """Normalize an output path to end in ``.npz``.

    >>> npz_path("release"), npz_path("r.npz")
    ('release.npz', 'r.npz')
    """
    out = os.fspath(out)
    return out if out.lower().endswith(".npz") else out + ".npz"


def table_csv_path(npz: str | os.PathLike[str], i: int | str) -> str:
    """The long-format CSV of table ``i`` that goes with an ``.npz`` output path.

    >>> table_csv_path("runs/release.npz", 3)
    'runs/release.table_3.csv'
    """
    return os.path.splitext(npz_path(npz))[0] + f".table_{i}.csv"


__all__ = [
    "table_csv_path",
    "OutputError", "SUPPORTED_INPUTS", "read_array", "check_input_file", "is_number",
    "check_output_dir", "write_files", "atomic_write", "write_json",
    "json_bytes", "to_jsonable", "npz_writer", "sidecar_path", "npz_path",
]
