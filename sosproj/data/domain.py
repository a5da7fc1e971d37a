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
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError

__all__ = ["Domain", "Dataset", "as_dataset"]


@dataclass(frozen=True)
class Domain:
    """Attribute names and their numbers of values (positive integers; codes are ``0 .. size-1``).

    >>> Domain.from_sizes([2, 2]).names
    ('x0', 'x1')
    >>> Domain.from_mapping({"b": 3, "a": 2}).size_of("a")
    2
    """

    names: tuple[str, ...]
    sizes: tuple[int, ...]

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
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "sizes", tuple(sizes))

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
    def from_mapping(cls, mapping: Mapping[str, int]) -> Domain:
        """A domain from ``{name: size}`` (insertion order is the attribute order)."""
        return cls(tuple(mapping), tuple(mapping.values()))

    @classmethod
    def parse(cls, domain: Any, n: int | None = None) -> Domain:
        """Accept a :class:`Domain`, a mapping ``name -> size`` or a list of sizes."""
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
        """Read a Private-PGM domain file: a JSON object ``{"attribute": size, ...}``."""
        with open(path, encoding="utf-8") as fh:
            obj = json.load(fh)
        if not isinstance(obj, dict):
            raise InvalidInputError(f"domain file {str(path)!r} must hold a JSON object name -> size")
        return cls.from_mapping(obj)

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

    def as_dict(self) -> dict[str, int]:
        """``{name: size}`` in attribute order (the JSON domain file format)."""
        return dict(zip(self.names, self.sizes, strict=True))


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
    def from_csv(cls, csv_path: str | Path, domain: Domain | str | Path | Mapping[str, int]) -> Dataset:
        """Read an integer-coded CSV with a header row; columns are matched to ``domain`` by name.

        ``domain``: a :class:`Domain`, a mapping, or the path of a JSON domain file. The result's
        attribute order is the domain's. Every header name must be in the domain and vice versa.
        """
        dom = domain if isinstance(domain, Domain) else (
            Domain.from_mapping(domain) if isinstance(domain, Mapping) else Domain.from_json(domain))
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
            rows = [r for r in reader if r]
        try:
            raw = np.array(rows, dtype=np.float64) if rows else np.zeros((0, len(header)))
        except ValueError:
            raise InvalidInputError("CSV records must be integer codes (found a non-numeric entry)") from None
        if raw.ndim != 2 or raw.shape[1] != len(header):
            raise InvalidInputError("every CSV record must have one value per header column")
        order = [header.index(a) for a in dom.names]
        return cls(raw[:, order], dom)

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

    def to_csv(self, path: str | Path) -> None:
        """Write the records as an integer-coded CSV with the attribute names as header."""
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(self.domain.names)
            w.writerows(self.records.tolist())


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
