r"""Public code books: how the values of one attribute become the codes ``0 .. size-1``.

A :class:`~sosproj.data.domain.Domain` stores, per attribute, its number of values and optionally a
:class:`Codebook`, the *public* rule that maps a raw value (a CSV cell, a list entry) to its code:

* **labels** -- a list of distinct strings; code ``i`` is the ``i``-th label. A value matches a label
  when its text, stripped of surrounding whitespace, equals the label exactly (so the number ``37``
  matches the label ``"37"``). With ``other="LABEL"`` the code book gains one last code, a public
  catch-all bucket that takes every value not in the list (the long tail of a category, without
  reading it); without it such values are refused.
* **bins** -- edges :math:`e_0 < e_1 < \dots < e_k` (finite); code ``i`` is the half-open interval
  :math:`[e_i, e_{i+1})`. A value is parsed as a float (NaN and infinities are refused). With
  ``clip=True`` a value below :math:`e_0` goes to the first bin and one at or above :math:`e_k` to the
  last (a public rule; the first / last labels then read ``(-inf, e_1)`` / ``[e_{k-1}, inf)``);
  otherwise such values are refused.

Attributes without a code book take integer codes ``0 .. size-1`` (Private-PGM's convention).

Encoding never reports a raw value or its position: :func:`encode_column` returns the codes and
counts per kind of problem (``{"not in the code book": 3}``), and :func:`problems_message` turns
those counts into one error message naming the column, the problem and how many records -- the
values themselves are private data, and errors and logs travel (docs/marginals.md, "Your own CSV").

Examples
--------
>>> cb = Codebook.parse({"bins": [0, 18, 65], "clip": True})
>>> cb.labels, cb.size
(('(-inf, 18)', '[18, inf)'), 2)
>>> encode_column(["3", " 70", "18"], cb)[0].tolist()
[0, 1, 1]
>>> sex = Codebook.parse(["Female", "Male"])
>>> codes, problems = encode_column(["Male", "female", ""], sex)
>>> problems
{'empty cells': 1, 'values not in the code book': 1}
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sosproj.errors import InputTypeError, InvalidParameterError

__all__ = ["Codebook", "LabeledTable", "encode_column", "problems_message", "format_edge"]

_KINDS = ("labels", "bins")


def format_edge(e: float) -> str:
    """The text of a bin edge: an integer without ``.0`` (``18``), otherwise Python's shortest repr.

    >>> format_edge(18.0), format_edge(7.25), format_edge(-0.5)
    ('18', '7.25', '-0.5')
    """
    e = float(e)
    if e.is_integer() and abs(e) < 1e15:
        return str(int(e))
    return repr(e)


def _label_text(label: Any, attr: str) -> str:
    """A label as its text: strings as given; integers (not floats, not bools) as their decimal text."""
    if isinstance(label, str):
        return label
    if isinstance(label, (int, np.integer)) and not isinstance(label, (bool, np.bool_)):
        return str(int(label))
    raise InvalidParameterError(
        f"labels of attribute {attr!r} must be strings (write numbers as text, e.g. \"37\"); got a "
        f"{type(label).__name__}")


@dataclass(frozen=True)
class Codebook:
    """The public code book of one attribute (see the module docstring for the rules).

    ``kind`` is ``"labels"`` or ``"bins"``; ``labels`` holds the label of every code (for bins, the
    interval texts); ``edges`` the bin edges (bins only); ``clip`` the bins' clipping rule; ``other``
    the catch-all label (label lists only; it is also the last entry of ``labels``). Build it with
    :meth:`parse`; construction validates it (:class:`~sosproj.errors.InvalidParameterError`).

    >>> Codebook.parse({"labels": ["a", "b"], "other": "rest"}).labels
    ('a', 'b', 'rest')
    >>> Codebook.parse({"bins": [0, 1, 1]})
    Traceback (most recent call last):
    ...
    sosproj.errors.InvalidParameterError: bins of attribute '?' must have strictly increasing edges ...
    """

    kind: str
    labels: tuple[str, ...]
    edges: tuple[float, ...] = ()
    clip: bool = False
    other: str | None = None
    attr: str = "?"

    def __post_init__(self) -> None:
        a = self.attr
        if self.kind not in _KINDS:
            raise InvalidParameterError(f"code book kind of attribute {a!r} must be 'labels' or 'bins'")
        if self.kind == "bins":
            edges = tuple(self.edges)
            if self.other is not None:
                raise InvalidParameterError(f"attribute {a!r}: 'other' applies to a label list, not to bins "
                                            "(use \"clip\": true to keep out-of-range numbers)")
            if len(edges) < 2:
                raise InvalidParameterError(f"bins of attribute {a!r} need at least two edges (one interval)")
            if any(isinstance(e, (bool, np.bool_)) or not isinstance(e, (int, float, np.integer, np.floating))
                   for e in edges):
                raise InvalidParameterError(f"bins of attribute {a!r} must be numbers")
            edges = tuple(float(e) for e in edges)
            if not all(math.isfinite(e) for e in edges):
                raise InvalidParameterError(f"bins of attribute {a!r} must have finite edges (no NaN or inf)")
            if any(lo >= hi for lo, hi in zip(edges, edges[1:], strict=False)):
                raise InvalidParameterError(
                    f"bins of attribute {a!r} must have strictly increasing edges e_0 < e_1 < ... < e_k")
            if not isinstance(self.clip, (bool, np.bool_)):
                raise InvalidParameterError(f"attribute {a!r}: \"clip\" must be true or false")
            object.__setattr__(self, "edges", edges)
            object.__setattr__(self, "clip", bool(self.clip))
            object.__setattr__(self, "labels", _bin_labels(edges, bool(self.clip)))
            return
        if self.edges or self.clip:
            raise InvalidParameterError(f"attribute {a!r}: edges and clip apply to bins, not to a label list")
        labels = tuple(_label_text(x, a) for x in self.labels)
        if self.other is not None:
            other = _label_text(self.other, a)
            if not labels or labels[-1] != other:
                labels = labels + (other,)
            object.__setattr__(self, "other", other)
        if not labels:
            raise InvalidParameterError(f"labels of attribute {a!r}: the list is empty")
        if any(x != x.strip() or not x for x in labels):
            raise InvalidParameterError(
                f"labels of attribute {a!r} must be non-empty and carry no surrounding whitespace (cells are "
                "matched after stripping it)")
        if len(set(labels)) != len(labels):
            raise InvalidParameterError(f"labels of attribute {a!r} must be distinct (the 'other' label included)")
        object.__setattr__(self, "labels", labels)

    def __eq__(self, other: object) -> bool:  # the attribute name is for messages only
        if not isinstance(other, Codebook):
            return NotImplemented
        return (self.kind, self.labels, self.edges, self.clip, self.other) == (
            other.kind, other.labels, other.edges, other.clip, other.other)

    def __hash__(self) -> int:
        return hash((self.kind, self.labels, self.edges, self.clip, self.other))

    @property
    def size(self) -> int:
        """Number of codes."""
        return len(self.labels)

    @classmethod
    def parse(cls, spec: Any, attr: str = "?") -> Codebook:
        """A code book from its JSON form: a list of labels, ``{"labels": [...], "other": L}`` or
        ``{"bins": [e_0, ..., e_k], "clip": bool}``; a :class:`Codebook` is returned as is."""
        if isinstance(spec, Codebook):
            return spec
        if isinstance(spec, (list, tuple)):
            return cls("labels", tuple(spec), attr=attr)
        if isinstance(spec, Mapping):
            kind = "bins" if "bins" in spec else ("labels" if "labels" in spec else None)
            if kind is not None:
                option = "clip" if kind == "bins" else "other"
                if set(spec) - {kind, option}:
                    raise InvalidParameterError(f"{kind} of attribute {attr!r} take only the keys {kind!r} and "
                                                f"{option!r}; got {sorted(map(str, spec))}")
                items = spec[kind]
                if not isinstance(items, (list, tuple)):
                    raise InvalidParameterError(f"{kind} of attribute {attr!r} must be a list")
                if kind == "bins":
                    return cls("bins", (), edges=tuple(items), clip=spec.get("clip", False), attr=attr)
                other = spec.get("other")
                if other is not None and _label_text(other, attr) in [_label_text(x, attr) for x in items]:
                    raise InvalidParameterError(f"attribute {attr!r}: the 'other' label must not be in the "
                                                "list (it names the bucket of every value NOT in the list)")
                return cls("labels", tuple(items), other=other, attr=attr)
        raise InvalidParameterError(
            f"domain entry of attribute {attr!r} must be a number of values, a list of labels, "
            '{"labels": [...], "other": "LABEL"} or {"bins": [e_0, ..., e_k], "clip": false}')

    def as_json(self) -> Any:
        """The JSON form :meth:`parse` reads back (a plain list when there is no ``other`` bucket)."""
        if self.kind == "bins":
            edges = [int(e) if e.is_integer() and abs(e) < 2**53 else e for e in self.edges]
            return {"bins": edges, "clip": True} if self.clip else {"bins": edges}
        if self.other is None:
            return list(self.labels)
        return {"labels": list(self.labels[:-1]), "other": self.other}


def _bin_labels(edges: tuple[float, ...], clip: bool) -> tuple[str, ...]:
    txt = [format_edge(e) for e in edges]
    labels = [f"[{lo}, {hi})" for lo, hi in zip(txt, txt[1:], strict=False)]
    if clip:
        k = len(labels)
        labels[0] = f"(-inf, {txt[1]})" if k > 1 else "(-inf, inf)"
        if k > 1:
            labels[-1] = f"[{txt[-2]}, inf)"
    return tuple(labels)


def _texts(values: Any) -> list[str]:
    """Each value's text, stripped; a missing value (``None``, a float NaN) is an empty cell."""
    return ["" if v is None or (isinstance(v, (float, np.floating)) and v != v)
            else (v if isinstance(v, str) else str(v)).strip() for v in values]


def encode_column(values: Sequence[Any] | np.ndarray, codebook: Codebook | None,
                  size: int | None = None) -> tuple[np.ndarray, dict[str, int]]:
    """Codes (``int64``) of one column and the number of records with each kind of problem.

    ``codebook=None``: integer codes ``0 .. size-1`` (text or numbers). Records with a problem get
    code 0 (the caller refuses the column when any problem was counted). The problem counts never
    carry a value or a position.

    >>> sorted(encode_column(["1", "0", "x", "2.5", "-1", "7"], None, size=3)[1].items())
    [('codes outside its domain 0..2', 1), ('negative codes', 1), ('non-integer codes', 1),
     ('non-numeric values (integer codes expected)', 1)]
    """
    problems: dict[str, int] = {}

    def count(kind: str, n: int) -> None:
        if n:
            problems[kind] = problems.get(kind, 0) + int(n)

    if codebook is not None and codebook.kind == "labels":
        index = {lab: i for i, lab in enumerate(codebook.labels)}
        other = index[codebook.other] if codebook.other is not None else -1
        texts = _texts(values)
        codes = np.fromiter((index.get(t, other) if t else -2 for t in texts), dtype=np.int64, count=len(texts))
        count("empty cells", int(np.count_nonzero(codes == -2)))
        count("values not in the code book", int(np.count_nonzero(codes == -1)))
        return np.maximum(codes, 0), problems

    x, empty, bad = _as_floats(values)
    count("empty cells", int(empty.sum()))
    count("non-numeric values (integer codes expected)" if codebook is None else "non-numeric values", int(bad.sum()))
    ok = ~(empty | bad)
    nonfinite = ok & ~np.isfinite(x)
    count(f"NaN or infinite {'codes' if codebook is None else 'values'}", int(nonfinite.sum()))
    ok &= ~nonfinite
    if codebook is None:
        frac = ok & (x != np.round(np.where(ok, x, 0.0)))
        count("non-integer codes", int(frac.sum()))
        ok &= ~frac
        count("negative codes", int((ok & (x < 0)).sum()))
        s = int(size) if size is not None else 0
        count(f"codes outside its domain 0..{s - 1}", int((ok & (x >= s)).sum()))
        codes = np.where(ok & (x >= 0) & (x < s), x, 0.0).astype(np.int64)
        return codes, problems
    edges = np.asarray(codebook.edges)
    k = len(edges) - 1
    xs = np.where(ok, x, edges[0])
    below, above = ok & (xs < edges[0]), ok & (xs >= edges[-1])
    if not codebook.clip:
        count(f"values below the first bin edge {format_edge(edges[0])}", int(below.sum()))
        count(f"values at or above the last bin edge {format_edge(edges[-1])}", int(above.sum()))
    codes = np.clip(np.searchsorted(edges, xs, side="right") - 1, 0, k - 1).astype(np.int64)
    return codes, problems


def _as_floats(values: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, empty, unparseable)`` of a column of numbers or texts (no value is ever reported)."""
    arr = values if isinstance(values, np.ndarray) else None
    if arr is not None and arr.ndim == 1 and (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        z = np.zeros(arr.shape, dtype=bool)
        return arr.astype(np.float64), z, z.copy()
    texts = _texts(values)
    try:
        x = np.array(texts, dtype=np.float64) if texts else np.zeros(0)
        z = np.zeros(len(texts), dtype=bool)
        return x, z, z.copy()
    except ValueError:
        pass
    x = np.zeros(len(texts))
    empty = np.zeros(len(texts), dtype=bool)
    bad = np.zeros(len(texts), dtype=bool)
    for i, t in enumerate(texts):
        if not t:
            empty[i] = True
            continue
        try:
            x[i] = float(t)
        except ValueError:
            bad[i] = True
    return x, empty, bad


def problems_message(problems: Mapping[str, Mapping[str, int]], what: str = "records") -> str:
    """One message for every column with problems: its name, the kind of problem and how many records.

    >>> print(problems_message({"sex": {"values not in the code book": 2}}))
    records: column 'sex': 2 records with values not in the code book; fix the data or the public code
    book (the message never shows the values, which are private)
    """
    parts = []
    for col, kinds in problems.items():
        items = ", ".join(f"{n} record{'s' if n != 1 else ''} with {kind}" for kind, n in kinds.items())
        parts.append(f"column {col!r}: {items}")
    return (f"{what}: " + "; ".join(parts) + "; fix the data or the public code book (the message never shows "
            "the values, which are private)")


@dataclass(frozen=True)
class LabeledTable:
    """A released table with its axis labels: ``counts[i_1, ..., i_j]`` is the count of the values
    ``(values[0][i_1], ..., values[j-1][i_j])`` of ``attributes``.

    :meth:`rows` gives the long format (one row per cell: the value of each attribute, then the count)
    and :meth:`to_csv` writes it with a header naming the attributes.

    >>> t = LabeledTable(("sex",), (("F", "M"),), np.array([3.0, 4.5]))
    >>> list(t.rows())
    [('F', 3.0), ('M', 4.5)]
    >>> print(t.to_csv(), end="")
    sex,count
    F,3.0
    M,4.5
    """

    attributes: tuple[str, ...]
    values: tuple[tuple[str, ...], ...]
    counts: np.ndarray

    def __post_init__(self) -> None:
        c = np.asarray(self.counts, dtype=np.float64)
        if c.shape != tuple(len(v) for v in self.values) or len(self.values) != len(self.attributes):
            raise InputTypeError("LabeledTable: counts must have one axis per attribute, of its number of values")
        c = c.copy()
        c.setflags(write=False)
        object.__setattr__(self, "counts", c)

    def __repr__(self) -> str:
        """A summary (attributes, shape, total and the first labels), not the whole table.

        >>> LabeledTable(("age", "sex"), (tuple(map(str, range(40))), ("F", "M")), np.ones((40, 2)))
        LabeledTable(attributes=('age', 'sex'), shape=(40, 2), total=80, values=(('0', '1', '2', ...), ('F', 'M')))
        """
        def head(v: tuple[str, ...]) -> str:
            return repr(v) if len(v) <= 4 else "(" + ", ".join(map(repr, v[:3])) + ", ...)"
        vals = "(" + ", ".join(head(v) for v in self.values) + ("," if len(self.values) == 1 else "") + ")"
        return (f"LabeledTable(attributes={self.attributes!r}, shape={self.counts.shape}, "
                f"total={float(self.counts.sum()):.6g}, values={vals})")

    @property
    def count_column(self) -> str:
        """Header of the count column: ``count`` (``released_count`` if an attribute is named ``count``)."""
        return "count" if "count" not in self.attributes else "released_count"

    def rows(self) -> Iterator[tuple[Any, ...]]:
        """Long format, in C order of the table: ``(value_1, ..., value_j, count)``."""
        flat = self.counts.ravel()
        for pos, idx in enumerate(np.ndindex(*self.counts.shape)):
            yield (*(self.values[a][i] for a, i in enumerate(idx)), float(flat[pos]))

    def to_csv(self, path: Any = None) -> str:
        """The long-format CSV text (header: the attributes, then the count column); written to
        ``path`` too when given. Counts are written exactly (shortest round-trip text)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([*self.attributes, self.count_column])
        for row in self.rows():
            w.writerow([*row[:-1], repr(row[-1])])
        text = buf.getvalue()
        if path is not None:
            with open(path, "w", newline="", encoding="utf-8") as fh:
                fh.write(text)
        return text
