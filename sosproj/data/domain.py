r"""Categorical domains and integer-coded datasets (the door of every marginal release).

A :class:`Domain` names the attributes of a dataset and the number of values of each
(attribute ``i`` takes the codes ``0 .. sizes[i]-1``); a :class:`Dataset` holds ``m``
integer-coded records over a domain. Both are frozen and validated once, at construction;
everything downstream (measurement, reconstruction) trusts them. Binary 0/1 matrices are
datasets whose attributes all have two values.

The file convention is Private-PGM's (and that of ``../shared/data``): a CSV with a header
row and one integer-coded record per line, plus a JSON object mapping each attribute name
to its number of values. Columns are matched by *name*; the JSON order (the domain order of
the result) may differ from the CSV header order.

Examples
--------
>>> import numpy as np
>>> dom = Domain(("a", "b"), (2, 3))
>>> ds = Dataset(np.array([[0, 2], [1, 0], [1, 2]]), dom)
>>> ds.m, ds.n, ds.domain.sizes
(3, 2, (2, 3))
>>> ds.marginal((1, 0)).tolist()   # axes in the order asked: b then a
[[0, 1], [0, 0], [1, 1]]
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sosproj.data.codebook import Codebook, LabeledTable, encode_column, problems_message
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.validation import check_memory

__all__ = ["Domain", "Dataset", "as_dataset", "csv_memory_estimate"]


@dataclass(frozen=True)
class Domain:
    """Attribute names, their numbers of values and, optionally, their public code books.

    Codes are ``0 .. size-1``. ``labels`` (optional) holds one entry per attribute: ``None`` (integer
    codes, Private-PGM's convention) or a :class:`~sosproj.data.codebook.Codebook` (a list of labels,
    possibly with an ``other`` bucket, or numeric bins) whose size must equal the attribute's. A
    domain without any code book stores ``labels=None``, so sizes-only domains compare and hash as
    before. The code books are metadata: nothing downstream of the door (measurement,
    reconstruction) reads them.

    >>> Domain.from_sizes([2, 2]).names
    ('x0', 'x1')
    >>> Domain.from_mapping({"b": 3, "a": 2}).size_of("a")
    2
    >>> dom = Domain.from_mapping({"sex": ["F", "M"], "age": {"bins": [0, 18, 65, 120]}, "k": 2})
    >>> dom.sizes, dom.values("age"), dom.values("k")
    ((2, 3, 2), ('[0, 18)', '[18, 65)', '[65, 120)'), ('0', '1'))
    >>> Domain.from_mapping(dom.as_dict()) == dom
    True
    """

    names: tuple[str, ...]
    sizes: tuple[int, ...]
    labels: tuple[Codebook | None, ...] | None = None

    def __post_init__(self) -> None:
        names = tuple(str(a) for a in self.names)
        if len(names) == 0:
            raise InvalidParameterError("domain must have at least one attribute")
        if len(set(names)) != len(names):
            raise InvalidParameterError("domain attribute names must be distinct")
        sizes = []
        for a, s in zip(names, self.sizes, strict=False):
            if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or int(s) < 1:
                raise InvalidParameterError(
                    f"domain size of attribute {a!r} must be a positive integer (number of values); got {s!r}")
            sizes.append(int(s))
        if len(sizes) != len(names):
            raise InvalidParameterError("domain needs one size per attribute name")
        labels = None
        if self.labels is not None:
            if isinstance(self.labels, (str, bytes, Mapping)) or not hasattr(self.labels, "__iter__"):
                raise InputTypeError("domain labels must be a sequence with one entry (None or a code book) "
                                     "per attribute")
            books = list(self.labels)
            if len(books) != len(names):
                raise InvalidParameterError("domain labels need one entry (None or a code book) per attribute")
            out: list[Codebook | None] = []
            for a, s, b in zip(names, sizes, books, strict=True):
                if b is None:
                    out.append(None)
                    continue
                cb = Codebook.parse(b, a)
                if cb.attr != a:
                    cb = Codebook(cb.kind, cb.labels, cb.edges, cb.clip, cb.other, attr=a)
                if cb.size != s:
                    raise InvalidParameterError(
                        f"domain size of attribute {a!r} is {s} but its code book has {cb.size} values")
                out.append(cb)
            labels = tuple(out) if any(b is not None for b in out) else None
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "sizes", tuple(sizes))
        object.__setattr__(self, "labels", labels)

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_sizes(cls, sizes: Sequence[int], names: Sequence[str] | None = None) -> Domain:
        """A domain from a list of sizes (names ``x0, x1, ...`` unless given)."""
        if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
            raise InputTypeError("domain must be a list of sizes or a mapping name -> size")
        sizes = list(sizes)
        names = [f"x{i}" for i in range(len(sizes))] if names is None else list(names)
        return cls(tuple(names), tuple(sizes))

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> Domain:
        """A domain from ``{name: entry}`` (insertion order is the attribute order).

        An entry is a number of values (integer codes), a list of labels, ``{"labels": [...],
        "other": "LABEL"}`` or ``{"bins": [e_0, ..., e_k], "clip": false}`` (see
        :mod:`sosproj.data.codebook`).
        """
        sizes: list[Any] = []
        books: list[Codebook | None] = []
        for a, v in mapping.items():
            if isinstance(v, (list, tuple, Mapping, Codebook, str)):
                cb = Codebook.parse(v, str(a))
                books.append(cb)
                sizes.append(cb.size)
            else:
                books.append(None)
                sizes.append(v)
        return cls(tuple(mapping), tuple(sizes), tuple(books))

    @classmethod
    def parse(cls, domain: Any, n: int | None = None) -> Domain:
        """Accept a :class:`Domain`, a mapping ``name -> entry`` or a list of sizes."""
        if isinstance(domain, Domain):
            dom = domain
        elif isinstance(domain, Mapping):
            dom = cls.from_mapping(domain)
        else:
            dom = cls.from_sizes(domain)
        if n is not None and dom.n != n:
            raise InvalidInputError(f"domain has {dom.n} attributes but the records have {n} columns")
        return dom

    @classmethod
    def from_json(cls, path: str | Path) -> Domain:
        """Read a domain file: a JSON object ``{"attribute": entry, ...}`` (Private-PGM's sizes, or the
        code books of :meth:`from_mapping`)."""
        with open(path, encoding="utf-8") as fh:
            obj = json.load(fh)
        if not isinstance(obj, dict):
            raise InvalidInputError(f"domain file {str(path)!r} must hold a JSON object name -> size")
        return cls.from_mapping(obj)

    def to_json(self, path: str | Path | None = None) -> str:
        """The JSON text of :meth:`as_dict` (written to ``path`` too when given); :meth:`from_json` reads it back.

        >>> Domain.from_mapping({"a": 2, "b": ["x", "y"]}).to_json()
        '{"a": 2, "b": ["x", "y"]}'
        """
        text = json.dumps(self.as_dict(), ensure_ascii=False)
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        return text

    # -- queries ----------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of attributes."""
        return len(self.names)

    @property
    def is_binary(self) -> bool:
        """Every attribute has exactly two values."""
        return all(s == 2 for s in self.sizes)

    def size_of(self, attr: int | str) -> int:
        """Number of values of one attribute (by index or name)."""
        return self.sizes[self.index(attr)]

    def index(self, attr: Any) -> int:
        """Position of an attribute given by index or name."""
        if isinstance(attr, str):
            try:
                return self.names.index(attr)
            except ValueError:
                raise InvalidParameterError(
                    f"unknown attribute {attr!r}; the domain has {list(self.names)}") from None
        if isinstance(attr, (bool, np.bool_)) or not isinstance(attr, (int, np.integer)):
            raise InputTypeError(f"attributes must be given by index or name; got {attr!r}")
        if not 0 <= int(attr) < self.n:
            raise InvalidParameterError(f"attribute index {int(attr)} outside [0, {self.n})")
        return int(attr)

    def indices(self, attrs: Any, name: str = "attrs") -> tuple[int, ...]:
        """Canonical attribute positions of a sequence of indices/names (distinct)."""
        if isinstance(attrs, (str, bytes)) or not hasattr(attrs, "__iter__"):
            raise InputTypeError(f"{name} must be a sequence of attribute indices or names")
        out = tuple(self.index(a) for a in attrs)
        if len(set(out)) != len(out):
            raise InvalidParameterError(f"{name} must name distinct attributes; got {list(attrs)}")
        return out

    def cells(self, attrs: Sequence[int]) -> int:
        """Number of cells of the marginal table of ``attrs``."""
        return math.prod(self.sizes[a] for a in attrs)

    @property
    def has_labels(self) -> bool:
        """At least one attribute has a code book (labels or bins)."""
        return self.labels is not None

    def codebook(self, attr: int | str) -> Codebook | None:
        """The code book of one attribute (``None``: integer codes)."""
        return None if self.labels is None else self.labels[self.index(attr)]

    def values(self, attr: int | str) -> tuple[str, ...]:
        """The label of every code of one attribute (its code book's labels; ``"0", "1", ...`` without one)."""
        cb = self.codebook(attr)
        return cb.labels if cb is not None else tuple(str(i) for i in range(self.size_of(attr)))

    def labeled_table(self, attrs: Sequence[int], counts: np.ndarray) -> LabeledTable:
        """``counts`` (one axis per attribute of ``attrs``, indices) with the names and value labels of
        those attributes: the one place a table gets its labels (datasets and releases)."""
        return LabeledTable(tuple(self.names[a] for a in attrs), tuple(self.values(a) for a in attrs), counts)

    def as_dict(self) -> dict[str, Any]:
        """``{name: entry}`` in attribute order (the JSON domain file format): the size of an attribute
        without a code book (``{name: size}`` for a sizes-only domain, as before), else its code book."""
        books = self.labels or (None,) * self.n
        return {a: (s if b is None else b.as_json()) for a, s, b in zip(self.names, self.sizes, books, strict=True)}


@dataclass(frozen=True, eq=False)
class Dataset:
    """``m`` integer-coded records over a :class:`Domain` (validated at construction).

    ``records`` is stored read-only as the smallest unsigned integer type that holds every code.

    >>> Dataset(np.array([[0, 1], [1, 1]]), Domain.from_sizes([2, 2])).records.dtype
    dtype('uint8')
    >>> Dataset(np.array([[0, 3]]), Domain.from_sizes([2, 2]))
    Traceback (most recent call last):
    ...
    sosproj.errors.InvalidInputError: records: column 'x1' has codes outside its domain 0..1; fix the ...
    """

    records: np.ndarray
    domain: Domain

    def __post_init__(self) -> None:
        if not isinstance(self.domain, Domain):
            raise InputTypeError("domain must be a sosproj.data.domain.Domain")
        R = _check_codes(self.records, self.domain)
        R.setflags(write=False)
        object.__setattr__(self, "records", R)

    @property
    def m(self) -> int:
        """Number of records."""
        return int(self.records.shape[0])

    @property
    def n(self) -> int:
        """Number of attributes."""
        return self.domain.n

    def __len__(self) -> int:
        return self.m

    def __repr__(self) -> str:
        return f"Dataset(m={self.m}, domain={self.domain.as_dict()})"

    @classmethod
    def from_csv(cls, csv_path: str | Path, domain: Domain | str | Path | Mapping[str, Any]) -> Dataset:
        """Read a CSV with a header row, encoding every column by its attribute's public rule.

        ``domain``: a :class:`Domain`, a mapping, or the path of a JSON domain file. Columns are
        matched to the domain by name; the result's attribute order is the domain's. Every header name
        must be in the domain and vice versa. Encoding (:mod:`sosproj.data.codebook`): labels by exact
        match after stripping whitespace (or the ``other`` bucket); bins by parsing a float; integer codes
        ``0 .. size-1`` for attributes without a code book. Values outside the public domain, empty
        cells and unparseable numbers are refused by ONE :class:`~sosproj.errors.InvalidInputError`
        naming each bad column, the kind of problem and how many records -- never a value or a row.
        The memory of the result is estimated from the file size and checked before reading.
        """
        dom = _domain_arg(domain)
        check_memory(csv_memory_estimate(csv_path, dom.n), f"reading CSV {Path(csv_path).name}")
        with open(csv_path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            try:
                header = [h.strip() for h in next(reader)]
            except StopIteration:
                raise InvalidInputError(f"CSV file {str(csv_path)!r} is empty (a header row is needed)") from None
            missing = [a for a in dom.names if a not in header]
            extra = [h for h in header if h not in dom.names]
            if missing or extra or len(set(header)) != len(header):
                raise InvalidInputError(
                    f"CSV header and domain disagree: in the domain but not the header {missing}, in the "
                    f"header but not the domain {extra}; make the domain JSON name exactly the CSV columns")
            order = [header.index(a) for a in dom.names]
            chunks: list[np.ndarray] = []
            problems: dict[str, dict[str, int]] = {}
            ragged = 0
            while True:
                raw = list(itertools.islice(reader, _CHUNK_ROWS))
                if not raw:
                    break
                rows = [r for r in raw if r]
                del raw
                good = [r for r in rows if len(r) == len(header)]
                ragged += len(rows) - len(good)
                del rows
                if good:
                    cols = list(zip(*good, strict=True))
                    chunks.append(_encode(dom, [cols[j] for j in order], problems))
        if ragged:
            raise InvalidInputError(f"every CSV record must have one value per header column ({ragged} "
                                    f"record{'s' if ragged != 1 else ''} do not)")
        if problems:
            raise InvalidInputError(problems_message(problems, "CSV records"))
        if not chunks:
            raise InvalidInputError("records must contain at least one row")
        return cls(np.concatenate(chunks, axis=0), dom)

    @classmethod
    def from_columns(cls, columns: Mapping[str, Any], domain: Domain | str | Path | Mapping[str, Any]) -> Dataset:
        """In-memory records: ``{name: sequence of values}`` (lists or 1-D numpy arrays), encoded like
        :meth:`from_csv` (same rules, same refusals, same messages).

        >>> dom = Domain.from_mapping({"sex": ["F", "M"], "age": {"bins": [0, 30, 120]}})
        >>> Dataset.from_columns({"age": [37, 12.5], "sex": ["M", "F"]}, dom).records.tolist()
        [[1, 1], [0, 0]]
        """
        dom = _domain_arg(domain)
        if not isinstance(columns, Mapping):
            raise InputTypeError("columns must be a mapping {attribute name: sequence of values}")
        missing = [a for a in dom.names if a not in columns]
        extra = [str(c) for c in columns if c not in dom.names]
        if missing or extra:
            raise InvalidInputError(f"columns and domain disagree: in the domain but not the columns {missing}, "
                                    f"in the columns but not the domain {extra}")
        cols = []
        for a in dom.names:
            c = columns[a]
            if isinstance(c, (str, bytes)) or not hasattr(c, "__len__"):
                raise InputTypeError(f"column {a!r} must be a list or a 1-D array of values")
            if isinstance(c, np.ndarray) and c.ndim != 1:
                raise InvalidInputError(f"column {a!r} must be 1-D; got {c.ndim} dimension(s)")
            cols.append(c)
        lengths = {len(c) for c in cols}
        if len(lengths) != 1:
            raise InvalidInputError("every column must hold one value per record (the columns have different lengths)")
        check_memory(_RECORD_BYTES * dom.n * lengths.pop(), "encoding the columns")
        problems: dict[str, dict[str, int]] = {}
        codes = _encode(dom, cols, problems)
        if problems:
            raise InvalidInputError(problems_message(problems, "records"))
        return cls(codes, dom)

    def marginal(self, attrs: Sequence[int]) -> np.ndarray:
        """Count table of ``attrs`` (axes in the given order), computed from the records.

        The records are encoded as mixed-radix integers and counted with ``np.bincount``; the joint
        domain is never materialized (only the table itself, ``prod sizes[attrs]`` cells).
        """
        attrs = tuple(int(a) for a in attrs)
        shape = tuple(self.domain.sizes[a] for a in attrs)
        if not attrs:
            return np.array(float(self.m))
        code = np.zeros(self.m, dtype=np.int64)
        for a, s in zip(attrs, shape, strict=True):
            code *= s
            code += self.records[:, a]
        return np.bincount(code, minlength=math.prod(shape)).reshape(shape)

    def to_csv(self, path: str | Path, *, values: bool = False) -> None:
        """Write the records as a CSV with the attribute names as header: integer codes, or with
        ``values=True`` the label of every code (:meth:`Domain.values`; bins as their interval labels).

        >>> import os, tempfile
        >>> ds = Dataset.from_columns({"sex": ["M", "F"]}, {"sex": ["F", "M"]})
        >>> p = os.path.join(tempfile.mkdtemp(), "x.csv"); ds.to_csv(p, values=True)
        >>> open(p).read().split()
        ['sex', 'M', 'F']
        """
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(self.domain.names)
            if not values:
                w.writerows(self.records.tolist())
                return
            vals = [np.asarray(self.domain.values(j), dtype=object) for j in range(self.n)]
            cols = [vals[j][self.records[:, j]] for j in range(self.n)]
            w.writerows(zip(*cols, strict=True))

    def labeled_table(self, attrs: Sequence[int | str]) -> LabeledTable:
        """The TRUE count table of ``attrs`` with its axis labels (for checks; never publish it).

        >>> list(Dataset.from_columns({"sex": ["M", "F", "M"]}, {"sex": ["F", "M"]}).labeled_table(["sex"]).rows())
        [('F', 1.0), ('M', 2.0)]
        """
        idx = self.domain.indices(attrs)
        return self.domain.labeled_table(idx, self.marginal(idx))


#: bytes per cell while encoding (a float64 parse, an int64 code, the final small code, slack)
_RECORD_BYTES = 24
#: rows encoded at a time (bounds the Python objects of the CSV reader)
_CHUNK_ROWS = 65536


def csv_memory_estimate(csv_path: str | Path, n: int) -> int:
    """Bytes needed to encode a CSV of ``n`` columns, from its size alone (read before any record).

    A record takes at least 2 bytes per attribute (one character and a separator), so the file holds
    at most ``size / (2 n)`` records; each cell is parsed through float64 / int64 columns
    (:data:`_RECORD_BYTES` per cell); rows are read in chunks of :data:`_CHUNK_ROWS`.
    """
    try:
        nbytes = Path(csv_path).stat().st_size
    except OSError:
        raise InvalidInputError(f"CSV file {str(csv_path)!r} not found or not readable") from None
    n = max(int(n), 1)
    return int(_RECORD_BYTES * n * (nbytes // (2 * n) + 1))


def _domain_arg(domain: Any) -> Domain:
    if isinstance(domain, Domain):
        return domain
    if isinstance(domain, Mapping):
        return Domain.from_mapping(domain)
    return Domain.from_json(domain)


def _encode(dom: Domain, cols: Sequence[Any], problems: dict[str, dict[str, int]]) -> np.ndarray:
    """Codes of the columns (domain order) by their public rules; problem counts added to ``problems``."""
    out = np.empty((len(cols[0]), dom.n), dtype=np.int64)
    for j, (a, s) in enumerate(zip(dom.names, dom.sizes, strict=True)):
        codes, p = encode_column(cols[j], dom.codebook(j), s)
        out[:, j] = codes
        for kind, c in p.items():
            problems.setdefault(a, {})
            problems[a][kind] = problems[a].get(kind, 0) + c
    return out


def _check_codes(records: Any, domain: Domain) -> np.ndarray:
    """Validate integer codes against the domain; return the smallest unsigned integer copy."""
    try:
        import scipy.sparse as sps

        if sps.issparse(records):
            records = records.toarray()
    except ImportError:  # pragma: no cover
        pass
    try:
        X = np.asarray(records)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise InputTypeError("records must be a 2-D array of integer codes") from exc
    if X.dtype == bool:
        X = X.astype(np.uint8)
    if X.ndim != 2:
        raise InvalidInputError(f"records must be a 2-D array (rows = records); got {X.ndim} dimension(s)")
    if X.shape[1] != domain.n:
        raise InvalidInputError(f"records have {X.shape[1]} columns but the domain has {domain.n} attributes")
    if X.shape[0] == 0:
        raise InvalidInputError("records must contain at least one row")
    if not (np.issubdtype(X.dtype, np.integer) or np.issubdtype(X.dtype, np.floating)):
        raise InputTypeError(f"records must hold integer codes; got dtype {X.dtype}")
    if np.issubdtype(X.dtype, np.floating):
        if not np.all(np.isfinite(X)):
            raise InvalidInputError("records must be finite integer codes (found NaN or inf)")
        if np.any(X != np.round(X)):
            raise InvalidInputError("records must be integer codes (found a non-integer value)")
    # the messages name the column and the public domain, never a record's value (the value of an
    # out-of-domain code is private data) nor its position
    lo = X.min(axis=0)
    hi = X.max(axis=0)
    for j, (a, s) in enumerate(zip(domain.names, domain.sizes, strict=True)):
        if lo[j] < 0:
            raise InvalidInputError(f"records: column {a!r} has negative codes; codes must lie in 0..{s - 1}")
        if hi[j] >= s:
            raise InvalidInputError(f"records: column {a!r} has codes outside its domain 0..{s - 1}; fix the "
                                    "records or the domain (a public domain, never one read from the data)")
    dtype = np.uint8 if max(domain.sizes) <= 256 else (np.uint16 if max(domain.sizes) <= 65536 else np.uint32)
    return np.ascontiguousarray(X.astype(dtype))


def as_dataset(data: Any, domain: Any = None) -> Dataset:
    """The door: a :class:`Dataset` as given, or one built from an array and ``domain``.

    ``domain=None`` with an array: the array must be binary 0/1 (every attribute has two values);
    categorical codes need an explicit public domain (inferring it from the data would leak it).

    >>> as_dataset(np.array([[0, 1], [1, 1]])).domain.sizes
    (2, 2)
    """
    if isinstance(data, Dataset):
        if domain is not None and Domain.parse(domain, data.n) != data.domain:
            raise InvalidParameterError("domain= disagrees with the Dataset's own domain; pass one of them")
        return data
    try:
        import scipy.sparse as sps

        if sps.issparse(data):
            data = data.toarray()
    except ImportError:  # pragma: no cover
        pass
    X = np.asarray(data)
    if X.ndim != 2:
        raise InvalidInputError(f"data must be a Dataset or a 2-D array of codes; got {X.ndim} dimension(s)")
    if domain is None:
        if X.size and (np.issubdtype(X.dtype, np.number) or X.dtype == bool) and np.any((X != 0) & (X != 1)):
            raise InvalidInputError(
                "data has codes other than 0/1: pass domain= (a list of sizes or a mapping name -> size), "
                "a public domain; inferring it from the data would leak it")
        dom = Domain.from_sizes([2] * X.shape[1])
    else:
        dom = Domain.parse(domain, X.shape[1])
    return Dataset(X, dom)
