r"""``sosproj demo``: the main job on bundled data, against the baselines.

Two experiments at :math:`\varepsilon = 1`, :math:`\delta = 10^{-6}`:

1. **Cosine similarities** (paper, Algorithms 3-4) of the first ``n`` bundled
   ``digits-real`` images (64 pixel intensities each, rows normalized to unit
   length): every projection method against the Gaussian mechanism alone
   (``method="gaussian"``, the noisy Gram matrix). Error: mean squared error per
   entry of the :math:`n\times n` similarity matrix, :math:`\|\hat X - UU^\top\|_F^2/n^2`.
2. **3-way marginals** (paper, Section "K-way marginal queries") of ``n`` central
   pixels of the bundled binary ``digits`` images (1797 records): the
   Boolean-cube SoS projection and measured contingency tables against the
   Gaussian mechanism on the moment tensor and its symmetrization. Error: root
   mean squared error of the :math:`\binom n3` three-way counts.

Every method of one experiment uses the same data and the same generator seed,
so methods that measure the same quantity post-process the same noise draw
(public bundled data: seeding is fine here, never for real releases).
The report folder holds ``report.json`` (configuration, privacy parameters,
per-method error, ratio to the baseline, time and solver status), ``report.md``
(the same tables) and ``errors.png`` (bar charts of the errors, log scale).

Examples
--------
``sosproj demo --quick`` (or ``run_demo(folder, quick=True)``) runs the same
experiments at :data:`QUICK` sizes in seconds; ``tests/test_cli_demo.py`` runs it.

>>> FULL.cosine_n, FULL.marginal_n, FULL.k, FULL.epsilon
(250, 10, 3, 1.0)
>>> "exact" in FULL.cosine_methods and "cube" in FULL.marginal_methods
True
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from sosproj._version import __version__
from sosproj.cli.io import OutputError, json_bytes, write_files
from sosproj.cli.output import Console
from sosproj.errors import SosprojError

#: central pixels of the 8x8 digits, most informative first (a public choice)
DIGIT_PIXELS = (27, 28, 35, 36, 19, 20, 43, 44, 26, 29, 34, 37, 21, 42, 18, 45, 22, 41, 25, 30)


@dataclass(frozen=True)
class DemoConfig:
    """Sizes and methods of one demo run (``FULL`` or ``QUICK``).

    >>> QUICK.cosine_n < FULL.cosine_n
    True
    """

    cosine_n: int
    cosine_methods: tuple[str, ...]
    marginal_n: int
    marginal_methods: tuple[str, ...]
    k: int = 3
    epsilon: float = 1.0
    delta: float = 1e-6
    cosine_baseline: str = "gaussian"
    marginal_baseline: str = "gaussian"
    #: extra keyword arguments per marginal method
    marginal_options: dict[str, dict[str, Any]] = field(default_factory=dict)


FULL = DemoConfig(cosine_n=250, cosine_methods=("gaussian", "alternating", "dykstra", "exact"),
                  marginal_n=10, marginal_methods=("gaussian", "symmetrize", "cube", "tables"))
QUICK = DemoConfig(cosine_n=24, cosine_methods=("gaussian", "alternating", "dykstra", "exact"),
                   marginal_n=5, marginal_methods=("gaussian", "symmetrize", "cube", "tables"))


@dataclass
class MethodResult:
    """One row of a demo table: error, ratio to the baseline's error, seconds, solver status.

    >>> MethodResult("exact", 0.2, 0.02, 0.1, "ok", {}).ratio
    0.02
    """

    method: str
    error: float | None
    ratio: float | None
    seconds: float
    status: str
    detail: dict[str, Any]


def _status(info: dict[str, Any]) -> str:
    from sosproj.cli.release import unconverged

    return "not converged" if unconverged(info) else "ok"


def _timed(fn: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def cosine_experiment(cfg: DemoConfig, seed: int, console: Console) -> dict[str, Any]:
    """Run every cosine method on the first ``cfg.cosine_n`` bundled digit images.

    Error of a method: :math:`\\|\\hat X - UU^\\top\\|_F^2 / n^2` with :math:`U` the unit-normalized rows.

    >>> cfg = DemoConfig(cosine_n=6, cosine_methods=("gaussian", "exact"), marginal_n=3,
    ...                  marginal_methods=())
    >>> rows = cosine_experiment(cfg, 0, Console(quiet=True))["rows"]
    >>> rows[1]["error"] < rows[0]["error"], rows[0]["ratio"]
    (True, 1.0)
    """
    from sosproj.cli.release import sanitize_diagnostics
    from sosproj.data import load_dataset
    from sosproj.mechanisms.cosine import release_cosine_similarities

    X, _ = load_dataset("digits-real")
    V = np.asarray(X[: cfg.cosine_n], dtype=float)
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    truth = U @ U.T
    rows: list[MethodResult] = []
    sigma = None
    for method in console.progress(cfg.cosine_methods, desc="cosine methods"):
        try:
            rel, secs = _timed(lambda m=method: release_cosine_similarities(
                V, epsilon=cfg.epsilon, delta=cfg.delta, sensitivity=1.0, method=m,
                rng=np.random.default_rng(seed)))
        except SosprojError as exc:
            rows.append(MethodResult(method, None, None, 0.0, f"failed: {type(exc).__name__}", {}))
            continue
        sigma = float(rel.sigma)
        err = float(np.sum((np.asarray(rel.value) - truth) ** 2) / truth.size)
        info = sanitize_diagnostics(rel.info or {})
        rows.append(MethodResult(method, err, None, secs, _status(info), info))
    _ratios(rows, cfg.cosine_baseline)
    return {"dataset": "digits-real", "n": cfg.cosine_n, "dimension": int(V.shape[1]),
            "sensitivity": 1.0, "sigma": sigma, "error": "mean squared error per entry",
            "baseline": cfg.cosine_baseline, "rows": [asdict(r) for r in rows]}


def marginals_experiment(cfg: DemoConfig, seed: int, console: Console) -> dict[str, Any]:
    """Run every marginal method on ``cfg.marginal_n`` central pixels of the binary digits.

    Error of a method: root mean squared error of the :math:`\\binom{n}{k}` k-way counts.

    >>> cfg = DemoConfig(cosine_n=2, cosine_methods=(), marginal_n=4,
    ...                  marginal_methods=("gaussian", "symmetrize"))
    >>> exp = marginals_experiment(cfg, 0, Console(quiet=True))
    >>> exp["m"], exp["n"], exp["error"]
    (1797, 4, 'RMSE of the 4 3-way counts')
    """
    from sosproj.cli.release import sanitize_diagnostics
    from sosproj.data import load_dataset
    from sosproj.mechanisms.marginals import release_marginals

    cols = list(DIGIT_PIXELS[: cfg.marginal_n])
    D, meta = load_dataset("digits", columns=cols)
    D = np.asarray(D, dtype=np.uint8)
    m, n, k = D.shape[0], D.shape[1], cfg.k
    triples = [tuple(t) for t in _combinations(n, k)]
    truth = np.array([float(np.sum(np.all(D[:, list(t)] == 1, axis=1))) for t in triples])
    rows: list[MethodResult] = []
    for method in console.progress(cfg.marginal_methods, desc="marginal methods"):
        opts = cfg.marginal_options.get(method, {})
        try:
            rel, secs = _timed(lambda mt=method, o=opts: release_marginals(
                D, k, epsilon=cfg.epsilon, delta=cfg.delta, method=mt, rng=np.random.default_rng(seed + 1),
                **o))
        except SosprojError as exc:
            rows.append(MethodResult(method, None, None, 0.0, f"failed: {type(exc).__name__}", {}))
            continue
        est = np.array([rel.query(t) for t in triples])
        err = float(np.sqrt(np.mean((est - truth) ** 2)))
        info = sanitize_diagnostics(rel.info or {})
        info["sigma"] = float(rel.sigma)
        rows.append(MethodResult(method, err, None, secs, _status(info), info))
    _ratios(rows, cfg.marginal_baseline)
    return {"dataset": "digits", "columns": meta["columns"], "m": int(m), "n": int(n), "k": int(k),
            "error": f"RMSE of the {len(triples)} {k}-way counts", "baseline": cfg.marginal_baseline,
            "rows": [asdict(r) for r in rows]}


def _combinations(n: int, k: int) -> list[tuple[int, ...]]:
    from itertools import combinations

    return list(combinations(range(n), k))


def _ratios(rows: list[MethodResult], baseline: str) -> None:
    base = next((r.error for r in rows if r.method == baseline and r.error is not None), None)
    for r in rows:
        if r.error is not None and base:
            r.ratio = r.error / base


def _table_rows(exp: dict[str, Any]) -> list[list[Any]]:
    out = []
    for r in exp["rows"]:
        out.append([r["method"] + (" (baseline)" if r["method"] == exp["baseline"] else ""),
                    "-" if r["error"] is None else r["error"],
                    "-" if r["ratio"] is None else r["ratio"], round(r["seconds"], 3), r["status"]])
    return out


HEADER = ["method", "error", "ratio to baseline", "time (s)", "status"]


def _markdown(result: dict[str, Any]) -> str:
    def md_table(exp: dict[str, Any]) -> str:
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        for row in _table_rows(exp):
            cells = [f"{c:.4g}" if isinstance(c, float) else str(c) for c in row]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    c, mg = result["cosine"], result["marginals"]
    return "\n".join([
        "# sosproj demo report", "",
        f"sosproj {result['sosproj_version']}, epsilon = {result['epsilon']:g}, delta = {result['delta']:g}, "
        f"seed = {result['seed']}{' (quick sizes)' if result['quick'] else ''}.", "",
        f"## Cosine similarities: {c['n']} bundled digit images ({c['dataset']})", "",
        f"Error: {c['error']}; sensitivity {c['sensitivity']:g}; noise sigma {c['sigma'] or float('nan'):.4g}.",
        "", md_table(c), "",
        f"## {mg['k']}-way marginals: {mg['m']} binary digit images, {mg['n']} pixels", "",
        f"Error: {mg['error']}.", "", md_table(mg), "",
        "![errors](errors.png)", "",
    ])


def _plot_png(result: dict[str, Any]) -> bytes:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key, title in ((axes[0], "cosine", "cosine similarities: MSE per entry"),
                           (axes[1], "marginals", "3-way marginals: RMSE of counts")):
        rows = [r for r in result[key]["rows"] if r["error"] is not None]
        names = [r["method"] for r in rows]
        errs = [r["error"] for r in rows]
        colors = ["0.6" if r["method"] == result[key]["baseline"] else "tab:blue" for r in rows]
        ax.bar(names, errs, color=colors)
        if errs and min(errs) > 0 and max(errs) / min(errs) > 20:
            ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        for i, r in enumerate(rows):
            ax.annotate(f"{r['seconds']:.2g}s", (i, errs[i]), ha="center", va="bottom", fontsize=8)
        ax.tick_params(axis="x", labelrotation=20)
    fig.suptitle(f"sosproj demo (epsilon={result['epsilon']:g}; grey = baseline)", fontsize=11)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


@contextlib.contextmanager
def _single_blas_thread() -> Iterator[int | None]:
    """Run the demo's small dense problems on one BLAS thread (via threadpoolctl when installed).

    The matrices are at most a few hundred wide: one thread is as fast as two on an idle
    machine and avoids spin-waiting BLAS threads (measured 3x slower) on a shared one.
    Yields the thread limit applied; without threadpoolctl, the ``OPENBLAS_NUM_THREADS``
    setting that :mod:`sosproj.cli` defaults to 1 for ``sosproj demo`` processes (or ``None``).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        env = os.environ.get("OPENBLAS_NUM_THREADS", "")
        yield int(env) if env.isdigit() else None
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield 1


def run_demo(out_dir: str | os.PathLike[str], *, quick: bool = False, seed: int = 0,
             console: Console | None = None, config: DemoConfig | None = None) -> dict[str, Any]:
    """Run both experiments and write the report folder; return the report dict.

    ``quick`` uses :data:`QUICK` sizes (seconds) instead of :data:`FULL`; ``config``
    overrides both. The folder is created if needed; its three files are written as
    one atomic unit.

    >>> import os, tempfile
    >>> tiny = DemoConfig(cosine_n=5, cosine_methods=("gaussian", "exact"), marginal_n=3,
    ...                   marginal_methods=("gaussian", "symmetrize"))
    >>> d = tempfile.mkdtemp()
    >>> res = run_demo(d, config=tiny, console=Console(quiet=True))
    >>> sorted(os.listdir(d)), [r["method"] for r in res["cosine"]["rows"]]
    (['errors.png', 'report.json', 'report.md'], ['gaussian', 'exact'])
    """
    console = console or Console()
    cfg = config if config is not None else (QUICK if quick else FULL)
    out_dir = os.fspath(out_dir)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise OutputError(f"--out: {out_dir} exists and is not a directory; choose another path")
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out: cannot create {out_dir} ({exc.strerror}); choose a writable path") from exc
    t0 = time.perf_counter()
    with _single_blas_thread() as blas_threads:
        console.note(f"cosine similarities of {cfg.cosine_n} bundled vectors ...")
        cos = cosine_experiment(cfg, seed, console)
        console.note(f"{cfg.k}-way marginals of {cfg.marginal_n} binary attributes ...")
        mar = marginals_experiment(cfg, seed, console)
    result = {"sosproj_version": __version__, "epsilon": cfg.epsilon, "delta": cfg.delta, "seed": seed,
              "quick": quick, "calibration": "analytic", "cosine": cos, "marginals": mar,
              "blas_threads": blas_threads, "total_seconds": time.perf_counter() - t0}
    png = _plot_png(result)
    md = _markdown(result).encode("utf-8")
    data = json_bytes(result)
    write_files({os.path.join(out_dir, "report.json"): lambda fh: fh.write(data),
                 os.path.join(out_dir, "report.md"): lambda fh: fh.write(md),
                 os.path.join(out_dir, "errors.png"): lambda fh: fh.write(png)}, name="--out")
    result["files"] = [os.path.join(out_dir, f) for f in ("report.json", "report.md", "errors.png")]
    return result


def run(args: argparse.Namespace, console: Console) -> int:
    """CLI verb: run the demo, print the tables, exit 3 if a method's solver failed.

    ``sosproj demo --quick --out DIR`` is ``run`` on the parsed arguments (end-to-end test:
    ``tests/test_cli_demo.py``; a fast example: :func:`run_demo`).

    >>> from sosproj.cli.main import build_parser
    >>> args = build_parser().parse_args(["demo", "--quick", "--out", "report"])
    >>> args.func is run, args.quick, args.seed
    (True, True, 0)
    """
    result = run_demo(args.out, quick=args.quick, seed=args.seed, console=console)
    c, mg = result["cosine"], result["marginals"]
    console.print(f"\nCosine similarities of {c['n']} bundled vectors, epsilon={result['epsilon']:g} "
                  f"(error: {c['error']})")
    console.table(HEADER, _table_rows(c))
    console.print(f"\n{mg['k']}-way marginals of {mg['m']} records x {mg['n']} binary attributes, "
                  f"epsilon={result['epsilon']:g} (error: {mg['error']})")
    console.table(HEADER, _table_rows(mg))
    console.print(f"\nreport written to {args.out} (report.json, report.md, errors.png) "
                  f"in {result['total_seconds']:.1f} s")
    console.emit(result)
    failed = [r for e in (c, mg) for r in e["rows"] if r["status"].startswith("failed")]
    return 3 if failed else 0


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register the ``demo`` verb on the ``sub`` subparsers (``parents``: shared options).

    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="sosproj").add_subparsers(dest="verb")
    >>> add_parser(sub, [])
    >>> sorted(sub.choices)
    ['demo']
    """
    p = sub.add_parser("demo", parents=parents, help="run the main job on bundled data (under a minute)",
                       description="Private cosine similarities and 3-way marginals of bundled data at "
                                   "epsilon=1, every method against the baselines; writes a report folder.")
    p.add_argument("--out", default="sosproj-demo", metavar="DIR",
                   help="report folder (default: ./sosproj-demo)")
    p.add_argument("--quick", action="store_true", help="reduced sizes (seconds; for tests)")
    p.add_argument("--seed", type=int, default=0, help="noise seed (public demo data; default 0)")
    p.set_defaults(func=run)


__all__ = ["DemoConfig", "FULL", "QUICK", "run_demo", "cosine_experiment", "marginals_experiment"]
