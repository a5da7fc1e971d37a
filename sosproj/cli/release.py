"""``sosproj release cosine|marginals INPUT --epsilon E --delta D -o OUT``.

Reads a private input (``.npy``, ``.npz`` or ``.csv``), runs the mechanism and
writes ``OUT.npz`` (the release) plus ``OUT.json`` (the sidecar) as one atomic
unit: both files are staged as temporary siblings and renamed into place only
when both were written, so an interrupted run leaves neither.

**What the sidecar holds, and why it is safe to publish with the release.**
The privacy parameters (epsilon, delta, sensitivity, noise sigma, calibration,
adjacency), the mechanism and method, the sosproj version, the public shape
parameters the release itself reveals (``n``; ``k`` for marginals) and the
solver diagnostics of the post-processing (method, iterations, residuals,
convergence, time) -- all functions of the noisy release and of public
parameters. It never holds the input file name, a hash of the input, the
vector dimension of the cosine input or any statistic of the raw data.

**The number of records ``m`` is public.** The marginals mechanism's adjacency is
"replace one record", under which neighbouring datasets have the same ``m``, so
``m`` is a public parameter of the release (it is needed to turn normalized
moments into counts) and is stored in the ``.npz``. If the dataset size
is itself sensitive, this mechanism does not apply as is: under add/remove-one
adjacency the normalized moments have a different sensitivity, and ``m`` would
have to be released separately (e.g. by a Laplace or Gaussian count) and charged
to the budget.

Examples
--------
>>> import os, tempfile, numpy as np
>>> d = tempfile.mkdtemp()
>>> V = np.random.default_rng(0).standard_normal((6, 4))
>>> np.save(os.path.join(d, "V.npy"), V)
>>> from sosproj.cli.main import main
>>> main(["release", "cosine", os.path.join(d, "V.npy"), "--epsilon", "1", "--delta", "1e-6",
...       "--sensitivity", "1", "-o", os.path.join(d, "out"), "--quiet"])
0
>>> sorted(os.listdir(d))
['V.npy', 'out.json', 'out.npz']
"""

from __future__ import annotations

import argparse
import csv
import json
import os
from typing import Any

import numpy as np

from sosproj._version import __version__
from sosproj.cli.io import (
    OutputError,
    check_input_file,
    check_output_dir,
    is_number,
    json_bytes,
    npz_path,
    npz_writer,
    peek_shape,
    read_array,
    sidecar_path,
    table_csv_path,
    write_files,
)
from sosproj.cli.output import Console
from sosproj.errors import InvalidInputError, InvalidParameterError, ProjectionError, SosprojError
from sosproj.privacy.spec import CALIBRATIONS

#: ``--reconstruction`` of the residual pipeline: the keys of ``marginals_pipeline.RECONSTRUCTIONS`` (listed here
#: so that ``--help`` needs no import of the pipeline; a test checks the two agree)
PIPELINE_RECONSTRUCTIONS = ("auto", "blue", "lnn", "lnn-psd", "joint")

COSINE_METHODS = ("exact", "dykstra", "alternating", "gaussian")
MARGINAL_METHODS = ("auto", "tables", "cube", "sos", "sos-sparse", "flatten", "topk", "symmetrize", "gaussian")

ADJACENCY = {
    "cosine": ("V and V' (rows = vectors) are adjacent when ||U U^T - U' U'^T||_F <= sensitivity, "
               "U and U' being V and V' with rows scaled to unit length (the cosine similarities)"),
    "marginals": ("D and D' (rows = records, columns = binary attributes) are adjacent when D' is D "
                  "with one record replaced by any admissible record (any 0/1 row, or with --sparsity t "
                  "any row with at most t ones); m is the same for both and is therefore public"),
    "marginals-domain": ("D and D' (rows = records, one value per attribute of the public domain) are adjacent "
                         "when D' is D with one record replaced by any record of the domain (any code of every "
                         "attribute: any label, bin or catch-all bucket of its code book); m is the same for "
                         "both and is therefore public"),
    "marginals-domain-add-remove": ("D and D' (rows = records, one value per attribute of the public domain) are "
                                    "adjacent when D' is D with one record of the domain added or removed; the "
                                    "number of records is private: the released total (m) is a noisy estimate"),
}

#: keys never copied from a mechanism's ``info`` into the sidecar
_DENY_KEYS = frozenset({"value", "point", "input", "data", "raw", "truth", "true_value", "x", "y"})
_MAX_LIST = 64


def sanitize_diagnostics(info: Any, _depth: int = 0) -> Any:
    """Keep the JSON-scalar solver diagnostics of ``info``; drop arrays and anything bulky.

    Nested dicts (and dataclasses with ``as_dict``) are kept up to depth 4,
    lists only when short and made of scalars; keys that could carry a point
    or the input (``value``, ``point``, ``input``, ``data``, ...) are dropped.

    >>> import numpy as np
    >>> sanitize_diagnostics({"iterations": 7, "value": np.eye(2), "projection": {"converged": True}})
    {'iterations': 7, 'projection': {'converged': True}}
    """
    if hasattr(info, "as_dict") and callable(info.as_dict):
        info = info.as_dict()
    if isinstance(info, dict):
        if _depth > 4:
            return None
        out = {}
        for k, v in info.items():
            if str(k).lower() in _DENY_KEYS:
                continue
            s = sanitize_diagnostics(v, _depth + 1)
            if s is not _DROP:
                out[str(k)] = s
        return out
    if info is None or isinstance(info, (bool, np.bool_, str, int, np.integer, float, np.floating)):
        return info
    if isinstance(info, (list, tuple)) and len(info) <= _MAX_LIST and all(
            v is None or isinstance(v, (bool, str, int, float, np.integer, np.floating)) for v in info):
        return list(info)
    return _DROP


_DROP = object()


def unconverged(diagnostics: Any) -> bool:
    """True when any ``converged`` flag in the (sanitized) diagnostics is ``False``.

    >>> unconverged({"projection": {"converged": False}}), unconverged({"converged": True})
    (True, False)
    """
    if isinstance(diagnostics, dict):
        if diagnostics.get("converged") is False:
            return True
        return any(unconverged(v) for v in diagnostics.values())
    return False


def _check_convergence(sidecar: dict[str, Any], args: argparse.Namespace, console: Console) -> None:
    if not unconverged(sidecar["diagnostics"]):
        return
    if args.require_convergence:
        raise ProjectionError("the projection did not reach its tolerance; nothing was written. The "
                              "noisy release would still be private, but not the exact projection: "
                              "rerun without --require-convergence to keep it (flagged in the sidecar) "
                              "or choose another --method", {"diagnostics": sidecar["diagnostics"]})
    console.note("warning: the projection did not reach its tolerance; the release is private but is "
                 "not the exact projection (diagnostics.converged = false in the sidecar)")


def _privacy_block(rel: Any, adjacency: str) -> dict[str, Any]:
    return {"epsilon": float(rel.epsilon), "delta": float(rel.delta),
            "sensitivity": float(rel.sensitivity), "sigma": float(rel.sigma),
            "calibration": str(rel.calibration), "noise": "gaussian", "adjacency": ADJACENCY[adjacency]}


def build_sidecar(kind: str, rel: Any, *, method: str, public: dict[str, Any], seeded: bool,
                  outputs: dict[str, str], adjacency: str | None = None) -> dict[str, Any]:
    """The JSON sidecar of a release (see the module docstring for what it may hold).

    ``adjacency`` names the entry of :data:`ADJACENCY` that states the neighbouring datasets
    (default: ``kind``; ``"marginals-domain"`` for records over a categorical domain).

    >>> from sosproj.mechanisms.release import Release
    >>> r = Release(np.eye(2), 1.0, 1.0, 1e-6, 1.0, "analytic", "demo", {"projection": {"iterations": 3}})
    >>> s = build_sidecar("cosine", r, method="exact", public={"n": 2}, seeded=False,
    ...                   outputs={"value": "matrix"})
    >>> s["privacy"]["epsilon"], s["diagnostics"]["projection"]["iterations"]
    (1.0, 3)
    """
    return {
        "format": "sosproj-release/1",
        "sosproj_version": __version__,
        "release": kind,
        "mechanism": str(getattr(rel, "mechanism", None) or f"release_{kind}[{method}]"),
        "method": method,
        "privacy": _privacy_block(rel, kind if adjacency is None else adjacency),
        "public_parameters": public,
        "seeded_noise": seeded,
        "outputs": outputs,
        "diagnostics": sanitize_diagnostics(getattr(rel, "info", {}) or {}),
    }


def _check_output(out: str, force: bool) -> tuple[str, str]:
    """Refuse an unusable output path before any work is done (the final write re-checks)."""
    npz, side = npz_path(out), sidecar_path(npz_path(out))
    directory = check_output_dir(npz, "-o")
    if not os.access(directory, os.W_OK):
        raise OutputError(f"-o: directory {directory} is not writable; choose another output path")
    if not force:
        for p in (npz, side):
            if os.path.exists(p):
                raise OutputError(f"-o: {p} already exists; pass --force to overwrite it")
    return npz, side


def _rng(args: argparse.Namespace, console: Console) -> Any:
    if args.seed is None:
        return None
    console.note("warning: --seed makes the noise reproducible; anyone who knows the seed can remove "
                 "it. Use it only for testing, never for a real release.")
    return int(args.seed)


def _write(npz: str, side: str, arrays: dict[str, np.ndarray], sidecar: dict[str, Any],
           extra: dict[str, bytes] | None = None) -> None:
    """Write OUT.npz, OUT.json and any ``extra`` files (path -> bytes) as one atomic unit."""
    data = json_bytes(sidecar)
    writers = {npz: npz_writer(arrays), side: lambda fh: fh.write(data)}
    for path, payload in (extra or {}).items():
        writers[path] = (lambda b: lambda fh: fh.write(b))(payload)
    write_files(writers, name="-o OUTPUT")


def run_cosine(args: argparse.Namespace, console: Console) -> int:
    """Private cosine similarities of the rows of INPUT (paper, Algorithms 3-4); exit code 0.

    >>> import os, tempfile, numpy as np
    >>> from sosproj.cli.main import build_parser
    >>> d = tempfile.mkdtemp(); np.save(os.path.join(d, "V.npy"), np.eye(3))
    >>> args = build_parser().parse_args(["release", "cosine", os.path.join(d, "V.npy"), "--epsilon",
    ...                                   "1", "--delta", "1e-6", "--sensitivity", "1", "-o", os.path.join(d, "c")])
    >>> run_cosine(args, Console(quiet=True)), np.load(os.path.join(d, "c.npz"))["value"].shape
    (0, (3, 3))
    """
    if args.sensitivity is None:
        # Refused before reading the input: the sensitivity is a property of the data, never a default.
        raise InvalidParameterError(
            "--sensitivity is required: a bound on ||U U^T - U' U'^T||_F over adjacent inputs (U = the "
            "rows of INPUT scaled to unit length). It describes your data and the change you protect, so "
            "sosproj does not guess it: replacing any one of n vectors needs 2*sqrt(2*(n-1)) in the worst "
            "case; the paper's adjacency uses 1 (small changes). See docs/cosine.md, 'Adjacency'.")
    npz, side = _check_output(args.output, args.force)
    with console.steps(3, desc="release cosine") as bar:
        V = read_array(args.input, key=args.key, delimiter=args.delimiter)
        bar.update(1)
        from sosproj.mechanisms.cosine import release_cosine_similarities

        rel = release_cosine_similarities(V, epsilon=args.epsilon, delta=args.delta,
                                          sensitivity=args.sensitivity, method=args.method,
                                          calibration=args.calibration, rng=_rng(args, console))
        del V
        bar.update(1)
        value = np.asarray(rel.value)
        sidecar = build_sidecar("cosine", rel, method=args.method, public={"n": int(value.shape[0])},
                                seeded=args.seed is not None,
                                outputs={"value": "n x n matrix of private cosine similarities"})
        _check_convergence(sidecar, args, console)
        _write(npz, side, {"value": value}, sidecar)
        bar.update(1)
    return _report(console, npz, side, sidecar)


def _subsets_array(subsets: Any, k: int) -> np.ndarray:
    """Subsets (tuples of attribute indices) as an int array padded with -1."""
    subsets = [tuple(int(i) for i in s) for s in subsets]
    width = max([len(s) for s in subsets] + [1])
    arr = np.full((len(subsets), width), -1, dtype=np.int64)
    for r, s in enumerate(subsets):
        arr[r, :len(s)] = s
    return arr


def run_marginals(args: argparse.Namespace, console: Console) -> int:
    """Private k-way marginals of the records in INPUT (binary; categorical with a domain); exit code 0.

    >>> import os, tempfile, numpy as np
    >>> from sosproj.cli.main import build_parser
    >>> d = tempfile.mkdtemp(); np.save(os.path.join(d, "D.npy"), np.eye(4, dtype=np.uint8))
    >>> args = build_parser().parse_args(["release", "marginals", os.path.join(d, "D.npy"), "-k", "2",
    ...     "--method", "symmetrize", "--epsilon", "1", "--delta", "1e-6", "-o", os.path.join(d, "m")])
    >>> run_marginals(args, Console(quiet=True)), int(np.load(os.path.join(d, "m.npz"))["m"])
    (0, 4)
    """
    npz, side = _check_output(args.output, args.force)
    if getattr(args, "domain", None) is not None or getattr(args, "infer_domain", False):
        return _run_categorical(args, console, npz, side)
    if getattr(args, "workload", None) is not None:
        raise InvalidParameterError("--workload needs categorical input: pass --domain FILE (or --infer-domain)")
    if args.adjacency != "replace-one" or args.public_m is not None:
        raise InvalidParameterError("--adjacency add-remove (and --public-m) need the residual pipeline on a domain: "
                                    "pass --domain FILE (binary 0/1 columns are attributes of size 2)")
    args.k = 3 if args.k is None else args.k
    from sosproj.mechanisms.marginals import check_release_size

    # refuse what cannot fit from the sizes in the file header, before reading the records
    shape = peek_shape(args.input, args.key)
    pipeline = args.method is None and args.sparsity is None
    if pipeline:
        # the library's default (method omitted, no row bound): the residual pipeline, sized as such
        if args.solver is not None:
            raise InvalidParameterError("--solver applies to --method tables/cube/sos/...; the default "
                                        "(residual pipeline) has its own projection: drop --solver or pass --method")
        if shape is not None and len(shape) == 2:
            from sosproj.mechanisms.marginals_pipeline import K_NAME, check_all_k_way_memory
            from sosproj.validation import check_int

            check_all_k_way_memory((2,) * int(shape[1]), check_int(args.k, K_NAME, minimum=1, maximum=int(shape[1])))
    else:
        check_release_size(shape, args.k, method=args.method or "auto", sparsity=args.sparsity)
    with console.steps(3, desc="release marginals") as bar:
        D = read_array(args.input, key=args.key, delimiter=args.delimiter)
        bar.update(1)
        from sosproj.mechanisms.marginals import release_marginals

        # --method omitted: no method is passed, so the library's one default rule decides
        # (sp.release_marginals: the residual pipeline; with --sparsity, 'auto' = cube)
        kwargs: dict[str, Any] = {"epsilon": args.epsilon, "delta": args.delta, "rng": _rng(args, console)}
        if args.method is not None:
            kwargs["method"] = args.method
        if pipeline:
            kwargs["allocation"] = args.allocation
            kwargs["reconstruction"] = args.reconstruction
        if args.sparsity is not None:
            kwargs["sparsity"] = args.sparsity
            kwargs["on_violation"] = args.on_violation
        if args.solver is not None:
            kwargs["solver"] = args.solver
        rel = release_marginals(D, args.k, **kwargs)
        n_cols = int(D.shape[1])
        del D
        bar.update(1)
        return _finish_marginals(rel, args, console, npz, side, bar, _csv_attribute_names(args, n_cols))


def _csv_attribute_names(args: argparse.Namespace, n_cols: int) -> list[str] | None:
    """The attribute names of a binary ``.csv`` INPUT's header row (column names are schema, not data)."""
    if not os.fspath(args.input).lower().endswith(".csv") or args.delimiter not in (None, ","):
        return None
    header = _read_header(args.input)
    if len(header) != n_cols or all(is_number(h) for h in header):
        return None
    return header


INFERRED_DOMAIN_WARNING = (
    "no --domain given: the domain (attribute names from the header; per column, number of values = largest "
    "code + 1, or, for a column that is not all numbers, its sorted distinct values as labels) is INFERRED "
    "FROM THE PRIVATE RECORDS and published in the sidecar, in the shape of every table and in the labels of "
    "the table CSVs, without noise. This leaks information about the data (e.g. the largest value of every "
    "attribute, or every value that occurs in a column) that the (epsilon, delta) guarantee does not cover. "
    "For a real release pass a public --domain FILE (JSON {attribute: number of values, a list of labels or "
    '{"bins": [edges]}}) fixed without looking at the data.')

#: a provisional code range for --infer-domain: the records are validated against it by
#: Dataset.from_csv (names, integer and non-negative codes), then the domain is inferred
_INFER_MAX_SIZE = 2 ** 31 - 1


def _read_domain(path: str) -> Any:
    """The public domain of ``--domain FILE``: a JSON object ``{attribute: entry}``, an entry being a
    number of values, a list of labels (``{"labels": [...], "other": "LABEL"}`` with a catch-all
    bucket) or ``{"bins": [e_0, ..., e_k], "clip": false}`` (:mod:`sosproj.data.codebook`)."""
    from sosproj.data.domain import Domain

    check_input_file(path, "--domain")
    try:
        return Domain.from_json(path)
    except (ValueError, UnicodeDecodeError) as exc:  # json.JSONDecodeError is a ValueError
        if isinstance(exc, SosprojError):
            raise InvalidInputError(f"--domain: {exc}") from None
        raise InvalidInputError(f"--domain {path} is not valid JSON; it must hold an object "
                                '{"attribute": number of values, a list of labels or {"bins": [edges]}, '
                                '...}') from None


def parse_workload_spec(spec: str | None) -> list[list[str]] | None:
    """The attribute sets of ``--workload``: inline ``"a,b,c;a,d"`` or a JSON file (list of lists of names).

    Only the syntax is checked here; the names are checked against the domain by the release.

    >>> parse_workload_spec("age, sex;age,income")
    [['age', 'sex'], ['age', 'income']]
    """
    if spec is None:
        return None
    if spec.lower().endswith(".json"):
        check_input_file(spec, "--workload")
        try:
            with open(spec, encoding="utf-8") as fh:
                obj = json.load(fh)
        except (ValueError, UnicodeDecodeError):
            raise InvalidInputError(f"--workload {spec} is not valid JSON; it must hold a list of lists of "
                                    "attribute names") from None
        if not isinstance(obj, list) or not all(
                isinstance(w, list) and all(isinstance(a, str) for a in w) for w in obj):
            raise InvalidInputError(f"--workload {spec} must hold a list of lists of attribute names, "
                                    'e.g. [["age", "sex"], ["age", "income"]]')
        sets = [[a.strip() for a in w] for w in obj]
    else:
        sets = [[a.strip() for a in w.split(",")] for w in spec.split(";") if w.strip()]
    if not sets or any(not w or any(not a for a in w) for w in sets):
        raise InvalidParameterError("--workload needs non-empty attribute sets: 'a,b,c;a,d' (sets separated by "
                                    "';', names by ',') or a .json file with a list of lists of names")
    return sets


def _read_header(path: str) -> list[str]:
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            first = next(csv.reader(fh), None)
    except UnicodeDecodeError:
        raise InvalidInputError(f"INPUT is not a UTF-8 text .csv file: {path}") from None
    if not first:
        raise InvalidInputError(f"INPUT .csv file is empty: {path}; it needs a header row naming the attributes")
    return [h.strip() for h in first]


def _read_categorical(args: argparse.Namespace) -> tuple[Any, str]:
    """The records of INPUT as a Dataset, and where its domain came from (``--domain`` or inferred)."""
    from sosproj.data.domain import Dataset, Domain

    path = check_input_file(args.input, "INPUT", "pass a .csv file")
    if not path.lower().endswith(".csv"):
        raise InvalidInputError("categorical INPUT (--domain / --infer-domain) must be a .csv file with a header "
                                "row naming the attributes")
    header = _read_header(path)
    if args.domain is not None:
        try:
            return Dataset.from_csv(path, args.domain), "public domain file (--domain)"
        except UnicodeDecodeError:
            raise InvalidInputError(f"INPUT is not a UTF-8 text .csv file: {path}") from None
    if all(is_number(h) for h in header):
        raise InvalidInputError("--infer-domain: INPUT's first row is numeric; the CSV needs a header row "
                                "naming the attributes")
    labels = _infer_labels(path, header)
    wide = Dataset.from_csv(path, Domain(tuple(header), tuple(
        len(lab) if lab is not None else _INFER_MAX_SIZE for lab in labels), tuple(labels)))
    sizes = tuple(len(lab) if lab is not None else int(s) + 1
                  for lab, s in zip(labels, wide.records.max(axis=0), strict=True))
    source = "INFERRED from the private records (largest code + 1"
    named = [a for a, lab in zip(header, labels, strict=True) if lab is not None]
    if named:
        source += f"; sorted distinct values of the columns that are not all numbers: {named}"
    return (Dataset(wide.records, Domain(wide.domain.names, sizes, tuple(labels))),
            source + "): not covered by the privacy guarantee")


def _infer_labels(path: str, header: list[str]) -> list[tuple[str, ...] | None]:
    """``--infer-domain``: per column, ``None`` when every non-empty cell is a number (integer codes, as
    before), else the sorted distinct non-empty values (stripped) as labels. Reads the private records."""
    from sosproj.data.domain import csv_memory_estimate
    from sosproj.validation import check_memory

    check_memory(csv_memory_estimate(path, len(header)), "reading INPUT")
    numeric = [True] * len(header)
    distinct: list[set[str]] = [set() for _ in header]
    for pass_ in (0, 1):  # 1: which columns hold a non-number; 2: their distinct values
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            next(reader, None)
            for row in reader:
                if len(row) != len(header):
                    continue  # refused, with its count, by Dataset.from_csv
                for j, cell in enumerate(row):
                    t = cell.strip()
                    if not t or (pass_ == 1 and numeric[j]):
                        continue
                    if pass_ == 0:
                        if numeric[j] and not is_number(t):
                            numeric[j] = False
                    else:
                        distinct[j].add(t)
        if all(numeric):
            break
    out: list[tuple[str, ...] | None] = []
    for j in range(len(header)):
        out.append(None if numeric[j] else tuple(sorted(distinct[j])))
    return out


def _run_categorical(args: argparse.Namespace, console: Console, npz: str, side: str) -> int:
    """``--domain FILE`` / ``--infer-domain``: a CSV with a header, columns matched by name; one table per set.

    Every check that needs no record (the domain file, the workload's names, the method) runs before
    INPUT is read; nothing is written unless the release succeeded.

    >>> import os, tempfile
    >>> from sosproj.cli.main import build_parser
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "x.csv"), "w").write("b,a\\n2,0\\n1,1\\n0,1\\n")
    >>> _ = open(os.path.join(d, "x.json"), "w").write('{"a": 2, "b": 3}')
    >>> args = build_parser().parse_args(["release", "marginals", os.path.join(d, "x.csv"), "-k", "2",
    ...     "--domain", os.path.join(d, "x.json"), "--epsilon", "1", "--delta", "1e-6", "-o", os.path.join(d, "m")])
    >>> run_marginals(args, Console(quiet=True)), np.load(os.path.join(d, "m.npz"))["table_0"].shape
    (0, (2, 3))
    """
    from sosproj.mechanisms.marginals import release_marginals
    from sosproj.mechanisms.marginals_pipeline import parse_workload

    if args.method not in (None, "auto") or args.sparsity is not None:
        raise InvalidParameterError("--domain / --infer-domain (categorical input) use the residual pipeline; "
                                    "drop --method/--sparsity")
    add_remove = args.adjacency == "add-remove"
    if args.public_m is not None and not add_remove:
        raise InvalidParameterError("--public-m applies to --adjacency add-remove (under replace-one the number of "
                                    "records is public and read from INPUT)")
    if args.public_m is not None:
        from sosproj.validation import check_int

        check_int(args.public_m, "--public-m", minimum=1)
    if add_remove and args.public_m is None and args.allocation == "auto":
        raise InvalidParameterError("--adjacency add-remove with --allocation auto needs --public-m M: a public number "
                                    "of records (declared, never computed from the data) that sets the noise "
                                    "allocation; or pass --allocation rp / equal-tables")
    sets = parse_workload_spec(args.workload)
    k = args.k if args.k is not None else (3 if sets is None else max(len(w) for w in sets))
    if args.domain is not None:
        args.domain = _read_domain(args.domain)
        # names and sizes of the workload against the public domain, before any record is read
        parse_workload(args.domain, k, sets)
    else:
        console.warn(INFERRED_DOMAIN_WARNING)
    with console.steps(3, desc="release marginals") as bar:
        ds, domain_source = _read_categorical(args)
        bar.update(1)
        rel = release_marginals(ds, k, epsilon=args.epsilon, delta=args.delta, rng=_rng(args, console),
                                workload=sets, allocation=args.allocation, reconstruction=args.reconstruction,
                                selection=args.selection, adjacency=args.adjacency, public_m=args.public_m,
                                project_options=({} if args.extrapolation is None else
                                                 {"extrapolation": args.extrapolation}))
        del ds
        bar.update(1)
        names = rel.domain.names
        arrays = {f"table_{i}": np.asarray(rel.table(w), dtype=float) for i, w in enumerate(rel.workload)}
        outputs = {f"table_{i}": "private counts over (" + ", ".join(names[a] for a in w) + ")"
                   for i, w in enumerate(rel.workload)}
        # the sidecar's JSON sorts keys, so the domain's attribute order (the codes' axes) is stated on its own
        public = {"domain": rel.domain.as_dict(), "attribute_order": list(names), "domain_source": domain_source,
                  "k": int(rel.k),
                  "m": int(rel.m), "m_source": ("the release's noisy total (add/remove adjacency: the number of "
                                                "records is private)" if add_remove else
                                                "dataset size, public under replace-one adjacency"),
                  "workload": [[names[a] for a in w] for w in rel.workload], "selection": args.selection,
                  "extrapolation": rel.info["extrapolation"]}
        if args.public_m is not None:
            public["public_m"] = int(args.public_m)
            public["public_m_source"] = "declared with --public-m (sets the noise allocation)"
        csvs: dict[str, bytes] = {}
        if rel.domain.has_labels:
            # the long format of every table, with the public labels of the code book
            csvs = {table_csv_path(npz, i): rel.labeled_table(w).to_csv().encode("utf-8")
                    for i, w in enumerate(rel.workload)}
            outputs["table_<i>.csv"] = (
                f"{os.path.basename(table_csv_path(npz, '<i>'))}: table_<i> in long format, one row per cell: "
                "the value (public label) of each attribute, then the released count; header = the "
                "attribute names, then 'count'")
        if not args.force:
            for p in csvs:
                if os.path.exists(p):
                    raise OutputError(f"-o: {p} already exists; pass --force to overwrite it")
        sidecar = build_sidecar("marginals", rel, method=str(rel.method), public=public,
                                seeded=args.seed is not None, outputs=outputs,
                                adjacency="marginals-domain-add-remove" if add_remove else "marginals-domain")
        _check_convergence(sidecar, args, console)
        _write(npz, side, arrays, sidecar, csvs)
        if args.force:   # a forced rewrite of OUT leaves no table CSV of an earlier release beside the new ones
            j = len(csvs)
            while os.path.exists(table_csv_path(npz, j)):
                os.remove(table_csv_path(npz, j))
                j += 1
        bar.update(1)
        code = _report(console, npz, side, sidecar)
        tables = [(key, desc) for key, desc in outputs.items() if key in arrays]
        shown = tables[:3]
        console.print(f"  {len(tables)} tables, axes named in the sidecar's outputs: "
                      + "; ".join(f"{key} = {desc[len('private counts over '):]}" for key, desc in shown)
                      + ("; ..." if len(tables) > len(shown) else ""))
        if csvs:
            console.print(f"  and {len(csvs)} long-format CSV tables with the values: "
                          f"{os.path.basename(table_csv_path(npz, 0))}, ...")
        return code


def _binary_moments(rel: Any) -> tuple[int, tuple[tuple[int, ...], ...], np.ndarray]:
    """``(n, subsets, moments)`` of a binary release: a ``MarginalRelease`` as is; the residual
    pipeline's ``MarginalTablesRelease`` read through ``query`` on every subset of size ``<= k``
    (its tables are consistent, so each subset's count is the same from any table containing it)."""
    from sosproj.mechanisms.release import MarginalTablesRelease

    if not isinstance(rel, MarginalTablesRelease):
        return int(rel.n), tuple(rel.subsets), np.asarray(rel.moments, dtype=float)
    from sosproj.data.moment_tensor import subsets_upto

    n = int(rel.domain.n)
    subsets = subsets_upto(n, int(rel.k))
    return n, subsets, np.array([rel.query(s) for s in subsets]) / float(rel.m)


def _finish_marginals(rel: Any, args: argparse.Namespace, console: Console, npz: str, side: str,
                      bar: Any, names: list[str] | None = None) -> int:
    m = int(rel.m)
    n, subsets, moments = _binary_moments(rel)
    arrays: dict[str, np.ndarray] = {
        "moments": moments,
        "subsets": _subsets_array(subsets, int(rel.k)),
        "m": np.asarray(m, dtype=np.int64),
    }
    outputs = {"moments": "private normalized moments: moments[i] ~ fraction of records with all "
                          "attributes of subsets[i] equal to 1",
               "subsets": "attribute index sets, one per row, padded with -1 (first row: the empty set)",
               "m": "number of records (public under replace-one adjacency; counts = m * moments)"}
    k = int(rel.k)
    if args.tensor:
        from sosproj.data.moment_tensor import tensor_from_subset_moments

        arrays["tensor"] = np.asarray(tensor_from_subset_moments(moments, n, k, scale=float(m)), dtype=float)
        outputs["tensor"] = "symmetric k-th moment tensor (n, ..., n)"
    public = {"n": n, "k": k, "m": m, "m_source": "dataset size, public under replace-one adjacency"}
    if args.sparsity is not None:
        public["sparsity"] = int(args.sparsity)
    if names is not None:
        public["attributes"] = names
        outputs["subsets"] += "; index i is the attribute public_parameters.attributes[i] (the CSV header)"
    sidecar = build_sidecar("marginals", rel, method=str(rel.method), public=public,
                            seeded=args.seed is not None, outputs=outputs)
    _check_convergence(sidecar, args, console)
    _write(npz, side, arrays, sidecar)
    bar.update(1)
    return _report(console, npz, side, sidecar)


def _report(console: Console, npz: str, side: str, sidecar: dict[str, Any]) -> int:
    console.emit({"release": npz, "sidecar": side, **{k: sidecar[k] for k in
                                                      ("mechanism", "method", "privacy", "public_parameters")}})
    p = sidecar["privacy"]
    console.print(f"wrote {npz} and {side}")
    console.print(f"  {sidecar['mechanism']} (method {sidecar['method']}): epsilon={p['epsilon']:g}, "
                  f"delta={p['delta']:g}, sensitivity={p['sensitivity']:g}, sigma={p['sigma']:.4g} "
                  f"({p['calibration']})")
    return 0


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register the ``release`` verb on the ``sub`` subparsers (``parents``: shared options).

    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="sosproj").add_subparsers(dest="verb")
    >>> add_parser(sub, [])
    >>> sorted(sub.choices)
    ['release']
    """
    p = sub.add_parser("release", parents=parents, help="release private cosine similarities or marginals",
                       description="Run a private mechanism on a file and write OUT.npz + OUT.json.")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", parser_class=type(p))

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("input", metavar="INPUT", help="private input: .npy, .npz or .csv")
        q.add_argument("--epsilon", type=_number, required=True, help="privacy loss epsilon > 0")
        q.add_argument("--delta", type=_number, required=True, help="privacy parameter 0 < delta < 1")
        q.add_argument("-o", "--output", required=True, metavar="OUT",
                       help="output path; writes OUT.npz and OUT.json")
        q.add_argument("--calibration", choices=CALIBRATIONS, default="analytic",
                       help="Gaussian noise calibration (default: analytic)")
        q.add_argument("--key", help="array name inside a .npz INPUT")
        q.add_argument("--delimiter", help="CSV delimiter (default: sniffed)")
        q.add_argument("--seed", type=int, help="TESTING ONLY: seed the noise (removes the privacy "
                                                "guarantee for anyone who knows the seed)")
        q.add_argument("--force", action="store_true", help="overwrite existing outputs")
        q.add_argument("--require-convergence", action="store_true",
                       help="write nothing and exit 3 if the projection did not reach its tolerance "
                            "(default: write it, flagged in the sidecar, with a warning)")

    c = kinds.add_parser("cosine", parents=parents, help="private cosine similarities of the rows of INPUT",
                         description="Perturb-and-project release of the cosine-similarity matrix of "
                                     "the rows of INPUT (rows are normalized to unit length).")
    common(c)
    c.add_argument("--sensitivity", type=_number, default=None,
                   help="required: bound on ||UU^T - U'U'^T||_F for adjacent inputs, U = rows scaled "
                        "to unit length (a property of your data: 2*sqrt(2*(n-1)) covers replacing any "
                        "one of n vectors; the paper's adjacency uses 1; see docs/cosine.md)")
    c.add_argument("--method", choices=COSINE_METHODS, default="exact",
                   help="projection: exact (default), dykstra, alternating, or gaussian (no projection)")
    c.set_defaults(func=run_cosine)

    mg = kinds.add_parser("marginals", parents=parents,
                          help="private k-way marginals of binary or categorical records",
                          description="Private k-way marginals of INPUT (rows = records): binary 0/1 "
                                      "records, or integer-coded categorical records in a CSV with a "
                                      "header plus --domain FILE.")
    common(mg)
    mg.add_argument("-k", "--k", type=int, default=None,
                    help="marginal order k (default 3; with --workload, the largest set's size)")
    mg.add_argument("--method", choices=MARGINAL_METHODS, default=None,
                    help="release method (default: as sp.release_marginals without a method, the residual "
                         "pipeline with --allocation/--reconstruction; with --sparsity, auto = cube); "
                         "auto = tables without --sparsity, cube with it")
    mg.add_argument("--sparsity", type=int, help="public bound t on the ones per record (sparse methods)")
    mg.add_argument("--on-violation", choices=("truncate", "raise"), default="truncate",
                    help="records with more than --sparsity ones: truncate by the public rule (default) "
                         "or refuse the input (exit code 4; the refusal itself depends on the data)")
    mg.add_argument("--solver", help="solver of the projection (default: auto = sosproj's structured ADMM, "
                                     "with SCS where a relaxation lacks its structure; the Fourier ADMM for "
                                     "tables; also admm, scs, clarabel, mosek)")
    mg.add_argument("--tensor", action="store_true", help="also store the full n^k moment tensor")
    dom = mg.add_mutually_exclusive_group()
    dom.add_argument("--domain", help="PUBLIC domain JSON {attribute: entry}, an entry being the number of "
                                      "values (integer codes), a list of labels ({\"labels\": [...], "
                                      "\"other\": LABEL} with a catch-all bucket) or {\"bins\": [edges], "
                                      "\"clip\": false}: INPUT is then a CSV with a header (columns matched "
                                      "by name) and the categorical residual pipeline releases one table per "
                                      "attribute set (with labels: also OUT.table_<i>.csv in long format)")
    dom.add_argument("--infer-domain", action="store_true",
                     help="categorical CSV with a header but no domain file: the number of values of each "
                          "column is INFERRED FROM THE PRIVATE DATA (largest code + 1; the sorted distinct "
                          "values of a column that is not all numbers), which leaks it; a "
                          "warning is always printed (also under --quiet). Testing only; use --domain")
    mg.add_argument("--workload", help="with --domain / --infer-domain: the attribute sets to release, inline "
                                       "'a,b,c;a,d' or a .json file with a list of lists of names "
                                       "(default: all k-way sets)")
    mg.add_argument("--allocation", choices=("auto", "rp", "equal-tables"), default="auto",
                    help="residual pipeline (--domain / --infer-domain, or binary INPUT without --method): "
                         "noise allocation over the residuals (default auto)")
    mg.add_argument("--reconstruction", choices=PIPELINE_RECONSTRUCTIONS, default="auto",
                    help="residual pipeline: reconstruction (default auto: binary, the exact marginal polytope up "
                         "to 16 attributes, else cube projection then local non-negativity; categorical, local "
                         "non-negativity, plus the one-hot PSD from a public SNR of 10; joint: the exact polytope, "
                         "binary data, up to 20 attributes)")
    mg.add_argument("--adjacency", choices=("replace-one", "add-remove"), default="replace-one",
                    help="with --domain / --infer-domain: the neighbouring datasets protected (default replace-one: "
                         "the number of records is public; add-remove: it is private and the released total is "
                         "noisy)")
    mg.add_argument("--public-m", type=int, default=None, metavar="M",
                    help="with --adjacency add-remove and --allocation auto: a PUBLIC number of records (declared, "
                         "never computed from the data) that sets the noise allocation")
    # the pipeline's SELECTIONS, spelled out so that the parser does not import the pipeline at start-up
    # (tests/test_cli_categorical.py checks that the two agree)
    mg.add_argument("--selection", choices=("none", "one-way", "pairs"), default="none",
                    help="categorical residual pipeline: 'one-way' adds the private 1-way selection (3%% of the "
                         "budget asks whether skipped wide attributes are concentrated), 'pairs' the private pair "
                         "selection (5%% of the budget asks which attribute pairs are far from independent; the "
                         "others are not measured); same epsilon and delta; the noise scales then depend on the "
                         "step's private output; default none: public scales only")
    # the extrapolation's EXTRAPOLATION_PRIORS, spelled out for the same reason (tests/test_cli_categorical.py)
    mg.add_argument("--extrapolation", choices=("uniform", "tree", "tree-pairs"), default=None,
                    help="categorical residual pipeline: the start of the skipped tables' maximum-entropy fit "
                         "('uniform'; 'tree': the Chow-Liu tree model of the reconstructed measured pairs; "
                         "'tree-pairs': only for tables with a skipped pair; default: tree with --selection pairs, "
                         "else uniform); post-processing, no privacy cost")
    mg.set_defaults(func=run_marginals)


__all__ = ["sanitize_diagnostics", "unconverged", "build_sidecar", "run_cosine", "run_marginals", "ADJACENCY",
           "INFERRED_DOMAIN_WARNING", "parse_workload_spec"]
