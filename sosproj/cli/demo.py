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

Every method of one experiment sees the same data and the same ``draws`` noise
draws (generator seeds derived from ``seed``), so methods that measure the same
quantity post-process the same noise (public bundled data: seeding is fine here,
never for real releases). Each row reports the mean error and its spread over the
draws, and whether the output is valid: a similarity matrix outside
:math:`\{X\succeq 0, X_{ii}\le 1\}` or a marginal release with a negative count is
marked ``infeasible`` with the size of the violation (the paper's averaged
projections stop outside the set).
The report folder holds ``report.json`` (configuration, privacy parameters,
per-method errors per draw, ratio to the baseline, time, validity and solver
status), ``report.md`` (the same tables and the conclusions in words) and
``errors.png`` (each method's error per draw, range and mean, on a labeled axis:
linear from zero, or logarithmic with plain-number ticks when the errors span
more than a factor 20).

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
import io
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from sosproj._version import __version__
from sosproj.cli.io import OutputError, json_bytes, write_files
from sosproj.cli.output import Console
from sosproj.errors import SosprojError
from sosproj.threads import current_blas_threads, with_thread_policy

#: central pixels of the 8x8 digits, most informative first (a public choice)
DIGIT_PIXELS = (27, 28, 35, 36, 19, 20, 43, 44, 26, 29, 34, 37, 21, 42, 18, 45, 22, 41, 25, 30)


@dataclass(frozen=True)
class DemoConfig:
    """Sizes, methods and noise draws of one demo run (``FULL`` or ``QUICK``).

    Every method sees the same ``draws`` noise draws (generator seeds ``[seed, d]``);
    the methods in ``single_draw_methods`` (slow references) see only the first.

    >>> QUICK.cosine_n < FULL.cosine_n, FULL.draws
    (True, 5)
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
    #: independent noise draws per method
    draws: int = 1
    #: methods run on the first draw only (slow references)
    single_draw_methods: tuple[str, ...] = ()


FULL = DemoConfig(cosine_n=250, cosine_methods=("gaussian", "alternating", "dykstra", "exact"),
                  marginal_n=10, marginal_methods=("gaussian", "symmetrize", "cube", "tables"),
                  draws=5, single_draw_methods=("dykstra",))
QUICK = DemoConfig(cosine_n=24, cosine_methods=("gaussian", "alternating", "dykstra", "exact"),
                   marginal_n=5, marginal_methods=("gaussian", "symmetrize", "cube", "tables"),
                   draws=3, single_draw_methods=("dykstra",))

#: an output farther than this from the set (in the set's violation measure) is marked infeasible
FEASIBILITY_TOL = 1e-6


@dataclass
class MethodResult:
    """One row of a demo table.

    ``error`` is the mean over the noise draws of ``errors``, ``error_sd`` their
    standard deviation, ``ratio`` the mean error over the baseline's, ``seconds`` the
    mean time per draw. ``violation`` is the largest distance of an output from the
    set of valid outputs (cosine: the set's violation measure of
    :math:`\\{X\\succeq 0, X_{ii}\\le 1\\}`; marginals: the most negative cell count of a
    released table), ``feasible`` whether it is within :data:`FEASIBILITY_TOL`.
    ``status``: ``ok``, ``infeasible: ...``, ``not converged`` or ``failed: ...``.

    >>> MethodResult("exact", 0.2, 0.02, 0.1, "ok", {}).ratio
    0.02
    """

    method: str
    error: float | None
    ratio: float | None
    seconds: float
    status: str
    detail: dict[str, Any]
    errors: list[float] = field(default_factory=list)
    error_sd: float | None = None
    violation: float | None = None
    feasible: bool | None = None


def _status(info: dict[str, Any], violation: float | None, what: str) -> tuple[str, bool | None]:
    from sosproj.cli.release import unconverged

    feasible = None if violation is None else bool(violation <= FEASIBILITY_TOL)
    if unconverged(info):
        return "not converged", feasible
    if feasible is False:
        return f"infeasible: {what}{'' if what.endswith('-') else ' '}{violation:.3g}", feasible
    return "ok", feasible


def _timed(fn: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _draw_rng(seed: int, draw: int) -> np.random.Generator:
    """The generator of noise draw ``draw`` (the same for every method)."""
    return np.random.default_rng([seed, draw]) if draw else np.random.default_rng(seed)


def _run_method(method: str, cfg: DemoConfig, run: Any, measure: Any) -> MethodResult:
    """Run ``run(rng)`` on each noise draw; ``measure(rel)`` -> (error, violation)."""
    from sosproj.cli.release import sanitize_diagnostics

    draws = 1 if method in cfg.single_draw_methods else cfg.draws
    errors, times, violation, info = [], [], 0.0, {}
    for d in range(draws):
        try:
            rel, secs = _timed(lambda d=d: run(d))
        except SosprojError as exc:
            return MethodResult(method, None, None, 0.0, f"failed: {type(exc).__name__}", {})
        err, viol = measure(rel)
        errors.append(err)
        times.append(secs)
        violation = max(violation, viol)
        if d == 0:
            info = sanitize_diagnostics(rel.info or {})
            info["sigma"] = float(rel.sigma)
    return MethodResult(method, float(np.mean(errors)), None, float(np.mean(times)), "", info,
                        errors=[float(e) for e in errors],
                        error_sd=float(np.std(errors, ddof=1)) if len(errors) > 1 else None,
                        violation=float(violation))


def cosine_experiment(cfg: DemoConfig, seed: int, console: Console) -> dict[str, Any]:
    """Run every cosine method on the first ``cfg.cosine_n`` bundled digit images.

    Error of a method on one draw: :math:`\\|\\hat X - UU^\\top\\|_F^2 / n^2` with :math:`U`
    the unit-normalized rows; a row reports the mean and spread over ``cfg.draws`` draws,
    and the output's distance from :math:`S = \\{X \\succeq 0, X_{ii} \\le 1\\}` (an
    output outside :math:`S` is not a valid similarity matrix: marked ``infeasible``).

    >>> cfg = DemoConfig(cosine_n=6, cosine_methods=("gaussian", "exact"), marginal_n=3,
    ...                  marginal_methods=())
    >>> rows = cosine_experiment(cfg, 0, Console(quiet=True))["rows"]
    >>> rows[1]["error"] < rows[0]["error"], rows[0]["ratio"], rows[1]["status"]
    (True, 1.0, 'ok')
    """
    from sosproj.data import load_dataset
    from sosproj.mechanisms.cosine import release_cosine_similarities
    from sosproj.sets.bounded_diagonal_psd import BoundedDiagonalPSD

    X, _ = load_dataset("digits-real")
    V = np.asarray(X[: cfg.cosine_n], dtype=float)
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    truth = U @ U.T
    S = BoundedDiagonalPSD(1.0)
    # The paper's adjacency with Delta = 1 (changes of the similarity matrix of Frobenius norm <= 1,
    # smaller than replacing a whole vector: docs/cosine.md); stated, as every release must.
    sensitivity = 1.0

    def measure(rel: Any) -> tuple[float, float]:
        value = np.asarray(rel.value)
        return float(np.sum((value - truth) ** 2) / truth.size), S.violation(value)

    rows: list[MethodResult] = []
    sigma = None
    for method in console.progress(cfg.cosine_methods, desc="cosine methods"):
        row = _run_method(method, cfg, lambda d, m=method: release_cosine_similarities(
            V, epsilon=cfg.epsilon, delta=cfg.delta, sensitivity=sensitivity, method=m,
            rng=_draw_rng(seed, d)), measure)
        if row.error is not None:
            sigma = row.detail.get("sigma", sigma)
            row.status, row.feasible = _status(row.detail, row.violation, "outside S by")
        rows.append(row)
    _ratios(rows, cfg.cosine_baseline)
    return {"dataset": "digits-real", "n": cfg.cosine_n, "dimension": int(V.shape[1]),
            "sensitivity": sensitivity, "sigma": sigma, "error": "mean squared error per entry",
            "violation": "max(asymmetry, -smallest eigenvalue, largest diagonal entry - 1) of the output",
            "draws": cfg.draws, "baseline": cfg.cosine_baseline, "rows": [asdict(r) for r in rows]}


def marginals_experiment(cfg: DemoConfig, seed: int, console: Console) -> dict[str, Any]:
    """Run every marginal method on ``cfg.marginal_n`` central pixels of the binary digits.

    Error of a method on one draw: root mean squared error of the :math:`\\binom{n}{k}`
    k-way counts; a row reports the mean and spread over ``cfg.draws`` draws. An
    output with a negative cell count in one of its released k-way tables is not a
    valid table: marked ``infeasible`` (``violation`` = the most negative count).

    >>> cfg = DemoConfig(cosine_n=2, cosine_methods=(), marginal_n=4,
    ...                  marginal_methods=("gaussian", "symmetrize"))
    >>> exp = marginals_experiment(cfg, 0, Console(quiet=True))
    >>> exp["m"], exp["n"], exp["error"]
    (1797, 4, 'RMSE of the 4 3-way counts')
    """
    from sosproj.data import load_dataset
    from sosproj.mechanisms.marginals import release_marginals

    cols = list(DIGIT_PIXELS[: cfg.marginal_n])
    D, meta = load_dataset("digits", columns=cols)
    D = np.asarray(D, dtype=np.uint8)
    m, n, k = D.shape[0], D.shape[1], cfg.k
    triples = [tuple(t) for t in _combinations(n, k)]
    truth = np.array([float(np.sum(np.all(D[:, list(t)] == 1, axis=1))) for t in triples])

    def measure(rel: Any) -> tuple[float, float]:
        est = np.array([rel.query(t) for t in triples])
        lowest = min(float(np.min(rel.table(t))) for t in triples)
        return float(np.sqrt(np.mean((est - truth) ** 2))), max(0.0, -lowest)

    rows: list[MethodResult] = []
    for method in console.progress(cfg.marginal_methods, desc="marginal methods"):
        opts = cfg.marginal_options.get(method, {})
        row = _run_method(method, cfg, lambda d, mt=method, o=opts: release_marginals(
            D, k, epsilon=cfg.epsilon, delta=cfg.delta, method=mt,
            rng=_draw_rng(seed + 1, d), **o), measure)
        if row.error is not None:
            row.status, row.feasible = _status(row.detail, row.violation, "a table has a count of -")
        rows.append(row)
    _ratios(rows, cfg.marginal_baseline)
    return {"dataset": "digits", "columns": meta["columns"], "m": int(m), "n": int(n), "k": int(k),
            "error": f"RMSE of the {len(triples)} {k}-way counts",
            "violation": f"most negative cell count of the {len(triples)} released {k}-way tables",
            "draws": cfg.draws, "baseline": cfg.marginal_baseline, "rows": [asdict(r) for r in rows]}


def _combinations(n: int, k: int) -> list[tuple[int, ...]]:
    from itertools import combinations

    return list(combinations(range(n), k))


def _ratios(rows: list[MethodResult], baseline: str) -> None:
    """Mean error over the baseline's mean error on the same draws (a one-draw method: the first)."""
    base = next((r.errors for r in rows if r.method == baseline and r.error is not None), None)
    for r in rows:
        if r.error is not None and base:
            r.ratio = float(np.mean(r.errors) / np.mean(base[:len(r.errors)]))


def _error_cell(r: dict[str, Any]) -> str:
    if r["error"] is None:
        return "-"
    if r["error_sd"] is None:
        return f"{r['error']:.4g} (1 draw)"
    return f"{r['error']:.4g} +- {r['error_sd']:.2g}"


def _table_rows(exp: dict[str, Any]) -> list[list[Any]]:
    out = []
    for r in exp["rows"]:
        out.append([r["method"] + (" (baseline)" if r["method"] == exp["baseline"] else ""),
                    _error_cell(r), "-" if r["ratio"] is None else f"{r['ratio']:.4g}",
                    _seconds(r["seconds"]), r["status"]])
    return out


def _seconds(s: float) -> str:
    """Seconds with two significant digits, without exponents: 0.00054, 0.43, 1.1, 237.

    >>> [_seconds(s) for s in (0.000537, 0.434, 1.14, 236.6)]
    ['0.00054', '0.43', '1.1', '237']
    """
    return f"{s:.0f}" if s >= 10 else f"{float(f'{s:.2g}'):g}"


HEADER = ["method", "error (mean +- sd)", "ratio to baseline", "time per draw (s)", "output"]


def _notes(exp: dict[str, Any]) -> str:
    single = [r["method"] for r in exp["rows"] if r["error"] is not None and r["error_sd"] is None]
    text = (f"Error: {exp['error']}, mean +- standard deviation over {exp['draws']} noise draws "
            "(the same draws for every method)")
    if single and exp["draws"] > 1:
        text += f"; {', '.join(single)}: the first draw only (slow reference)"
    return text + (f". Output 'infeasible': {exp['violation']} is above {FEASIBILITY_TOL:g} "
                   "(not a valid output of the mechanism's set).")


def headline(result: dict[str, Any]) -> list[str]:
    """The demo's conclusions in words, computed from its tables (printed last; quoted in the docs).

    Sentences are skipped when a method they compare was not run or failed.

    >>> tiny = DemoConfig(cosine_n=5, cosine_methods=("gaussian", "exact"), marginal_n=3,
    ...                   marginal_methods=("gaussian", "tables"), draws=2)
    >>> res = {"cosine": cosine_experiment(tiny, 0, Console(quiet=True)),
    ...        "marginals": marginals_experiment(tiny, 0, Console(quiet=True))}
    >>> headline(res)[0].startswith("Cosine similarities: the exact projection cuts the mean squared error")
    True
    """
    def rows(key: str) -> dict[str, dict[str, Any]]:
        return {r["method"]: r for r in result[key]["rows"] if r["error"] is not None}

    c, mg = rows("cosine"), rows("marginals")
    out = []
    if "exact" in c and c["exact"]["ratio"]:
        text = (f"Cosine similarities: the exact projection cuts the mean squared error of the Gaussian "
                f"mechanism {1 / c['exact']['ratio']:.0f}-fold")
        if "dykstra" in c and c["dykstra"]["seconds"] > 0 and c["exact"]["seconds"] > 0:
            text += (f"; Dykstra's algorithm reaches the same point ({c['dykstra']['errors'][0]:.4g} vs "
                     f"{c['exact']['errors'][0]:.4g} on the first draw) "
                     f"{c['dykstra']['seconds'] / c['exact']['seconds']:.0f} times slower")
        out.append(text + ".")
        if "alternating" in c and c["alternating"]["violation"] is not None:
            out.append(f"The paper's averaged projections (Algorithm 4) stop at a point with "
                       f"{c['alternating']['error'] / c['exact']['error']:.1f} times the error of the exact "
                       f"projection, outside the set by {c['alternating']['violation']:.3g}: not a valid "
                       "similarity matrix.")
    folds = [f"{name} {1 / mg[name]['ratio']:.1f}-fold" for name in ("cube", "tables")
             if name in mg and mg[name]["ratio"]]
    if folds:
        text = (f"{result['marginals']['k']}-way marginals: against the Gaussian mechanism, the error of "
                "the counts drops " + " and ".join(folds))
        valid = [name for name in ("cube", "tables") if name in mg and mg[name]["feasible"]]
        if valid:
            text += f"; only {' and '.join(valid)} release tables without negative counts"
        out.append(text + ".")
    return out


def render_text(result: dict[str, Any]) -> str:
    """The tables and conclusions ``sosproj demo`` prints (a function of the report only).

    ``docs/cli.md`` quotes this text for the recorded demo (``benchmarks/results_demo_report``);
    ``tests/test_cli_docs.py`` checks that the quote is current.
    """
    from sosproj.cli.output import format_table

    c, mg = result["cosine"], result["marginals"]
    eps, delta = result["epsilon"], result["delta"]
    return "\n".join([
        f"Cosine similarities of {c['n']} bundled vectors, epsilon={eps:g}, delta={delta:g}; error: {c['error']}, "
        f"mean +- sd over {c['draws']} noise draws",
        format_table(HEADER, _table_rows(c)), "",
        f"{mg['k']}-way marginals of {mg['m']} records x {mg['n']} binary attributes, epsilon={eps:g}, "
        f"delta={delta:g}; error: {mg['error']}, mean +- sd over {mg['draws']} noise draws",
        format_table(HEADER, _table_rows(mg)), "",
        *headline(result)])


def _markdown(result: dict[str, Any]) -> str:
    def md_table(exp: dict[str, Any]) -> str:
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        for row in _table_rows(exp):
            lines.append("| " + " | ".join(str(c) for c in row) + " |")
        return "\n".join(lines)

    c, mg = result["cosine"], result["marginals"]
    return "\n".join([
        "# sosproj demo report", "",
        f"sosproj {result['sosproj_version']}, epsilon = {result['epsilon']:g}, delta = {result['delta']:g}, "
        f"seed = {result['seed']}{' (quick sizes)' if result['quick'] else ''}.", "",
        f"## Cosine similarities: {c['n']} bundled digit images ({c['dataset']})", "",
        f"Sensitivity {c['sensitivity']:g}; noise sigma {c['sigma'] or float('nan'):.4g}. {_notes(c)}",
        "", md_table(c), "",
        f"## {mg['k']}-way marginals: {mg['m']} binary digit images, {mg['n']} pixels", "",
        _notes(mg), "", md_table(mg), "",
        "## In words", "", *[f"* {line}" for line in headline(result)], "",
        "![errors](errors.png)", "",
    ])


def _plot_png(result: dict[str, Any]) -> bytes:
    """Two panels (cosine, marginals): each method's error per noise draw, mean and range.

    Methods on the vertical axis, error on a labeled horizontal axis: linear from zero
    when the errors are within a factor 20 of each other, else logarithmic with
    1-2-5 ticks labeled in plain numbers. Marker colour: baseline (no projection),
    output in the set, output outside the set (infeasible).
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, LogLocator

    kinds = {"baseline": ("0.45", "s", "baseline: Gaussian noise, no projection (output invalid too)"),
             "feasible": ("tab:blue", "o", "valid output"),
             "infeasible": ("tab:orange", "^", "invalid output (cosine: not PSD or a diagonal entry > 1; "
                                               "marginals: a negative count)")}
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    panels = (("cosine", f"Cosine similarities of {result['cosine']['n']} digit images",
               "mean squared error per entry"),
              ("marginals", f"3-way marginals: {result['marginals']['n']} binary pixels, "
                            f"{result['marginals']['m']} images", "RMSE of the 3-way counts"))
    for ax, (key, title, xlabel) in zip(axes, panels):
        exp = result[key]
        rows = [r for r in exp["rows"] if r["error"] is not None]
        errs = [e for r in rows for e in r["errors"]]
        log = bool(errs) and min(errs) > 0 and max(errs) / min(errs) > 20
        for i, r in enumerate(rows):
            kind = ("baseline" if r["method"] == exp["baseline"]
                    else "feasible" if r["feasible"] is not False else "infeasible")
            color, marker, _ = kinds[kind]
            y = len(rows) - 1 - i
            ax.scatter(r["errors"], [y] * len(r["errors"]), s=14, color="black", alpha=0.5, zorder=3,
                       marker="|")
            lo, hi = min(r["errors"]), max(r["errors"])
            ax.plot([lo, hi], [y, y], color=color, linewidth=2, zorder=2)
            ax.scatter([r["error"]], [y], s=70, color=color, marker=marker, zorder=4,
                       edgecolor="black", linewidth=0.5)
            one = len(r["errors"]) == 1 and exp["draws"] > 1
            ax.annotate(f"{r['error']:.3g}" + (" (first draw only)" if one else ""), (r["error"], y),
                        xytext=(8, 5) if one else (0, 7), textcoords="offset points",
                        ha="left" if one else "center", fontsize=8)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([r["method"] for r in reversed(rows)])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_minor_locator(LogLocator(base=10, subs=tuple(range(1, 10))))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
            ax.set_xlim(min(errs) / 1.6, max(errs) * 1.6)
            ax.set_xlabel(f"{xlabel} (log scale; lower is better)")
        else:
            ax.set_xlim(0, max(errs) * 1.15 if errs else 1)
            ax.set_xlabel(f"{xlabel} (lower is better)")
        ax.grid(True, axis="x", which="major", alpha=0.4)
        ax.set_title(title, fontsize=10)
    handles = [Line2D([], [], color=c, marker=mk, linestyle="", markersize=8, markeredgecolor="black",
                      markeredgewidth=0.5, label=lab) for c, mk, lab in kinds.values()]
    draws = result["cosine"]["draws"]
    handles += [Line2D([], [], color="black", marker="|", linestyle="", alpha=0.6,
                       label="one noise draw (tick); line: range over draws; marker and number: mean")]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle(f"sosproj demo: error of each method at epsilon = {result['epsilon']:g}, "
                 f"delta = {result['delta']:g} ({draws} noise draws per method, seed {result['seed']})",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.1, 1, 0.97))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


@with_thread_policy
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
    blas_threads = current_blas_threads()
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
    console.print("\n" + render_text(result))
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
