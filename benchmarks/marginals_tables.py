"""Benchmark: measured contingency tables + Boolean-cube SoS projection vs peers.

For every dataset / n / epsilon / seed, the k-way tables are measured ONCE with the Gaussian
mechanism (sensitivity sqrt(2 * #tables), analytic calibration, delta = 1e-6) and the same noisy
tables are fed to

* ``tables+cube``     this mechanism: least squares over the degree-4 cube relaxation (ADMM),
* ``tables+polytope`` least squares over the exact marginal polytope (2^n cells; n <= --polytope-max-n),
* ``tables raw``      the noisy tables themselves, no post-processing,
* ``tables+mbi``      Private-PGM (``mbi``) on the same measurements, only when importable,

and the tensor mechanisms of ``release_marginals`` (their own noise, same seed):
``symmetrize`` (sensitivity of the paper's tensor) and ``cube`` (n <= --tensor-cube-max-n).

Error = average squared error per k-way conjunction count (count units), median over seeds;
``cells`` = average squared error per cell of all k-way tables.  Time = seconds per release
(median); memory = tracemalloc peak of numpy allocations (LAPACK work space not included).

Example (the command behind docs/bench_tables.md)::

    OMP_NUM_THREADS=1 python benchmarks/marginals_tables.py --n 10 16 24 32 --eps 0.5 1 2 --seeds 5
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sosproj.data.contingency import (  # noqa: E402
    SubsetIndex,
    TableLayout,
    contingency_tables,
    fourier_form,
    measurement_matrix,
    subset_from_fourier,
    table_sensitivity,
)
from sosproj.mechanisms.sizes import default_degree  # noqa: E402
from sosproj.privacy.calibration import gaussian_sigma  # noqa: E402
from sosproj.privacy.noise import gaussian_noise  # noqa: E402
from sosproj.sdp.cube_tables_admm import CubeTablesProjector  # noqa: E402
from sosproj.sdp.polytope_fista import polytope_least_squares  # noqa: E402


def planted(m: int, n: int, seed: int) -> np.ndarray:
    try:
        from sosproj.data.synthetic import planted_binary
        return planted_binary(m, n, n_clusters=4, rng=seed)
    except ImportError:  # pragma: no cover
        g = np.random.default_rng(seed)
        p = g.beta(0.5, 0.5, size=(4, n))
        return (g.random((m, n)) < p[g.integers(0, 4, size=m)]).astype(np.uint8)


def datasets(args) -> list[tuple[str, int, callable]]:
    out = [] if args.no_planted else [
        (f"planted m={args.m}", n, (lambda seed, n=n: planted(args.m, n, seed))) for n in args.n]
    if args.bundled:
        from sosproj.data.datasets import load_dataset
        for name, n in (("digits", 16), ("digits", 32), ("breast-cancer-onehot", None)):
            try:
                D, meta = load_dataset(name)
            except Exception as exc:  # pragma: no cover
                print(f"# skipping {name}: {type(exc).__name__}", file=sys.stderr)
                continue
            D = np.asarray(D.toarray() if hasattr(D, "toarray") else D, dtype=np.uint8)
            if n is not None:
                # public rule: the n columns closest to frequency 1/2 in a fixed order (pixel index)
                cols = np.sort(np.argsort(np.abs(D.mean(0) - 0.5), kind="stable")[:n])
                D = D[:, cols]
            out.append((f"{name} (m={D.shape[0]})", D.shape[1], (lambda seed, D=D: D)))
    return out


def measure(fn, *a, **kw):
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    res = fn(*a, **kw)
    dt = time.perf_counter() - t0
    CPU_LOG.append(time.process_time() - c0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return res, dt, peak


CPU_LOG: list[float] = []


def add(res, name, err, cell_err, dt, peak):
    res.setdefault(name, []).append((err, cell_err, dt, peak, CPU_LOG[-1] if (CPU_LOG and dt) else 0.0))


def solve_ours(proj, cells, layout, index, k):
    """The mechanism's post-processing: Fourier form of the noisy cells, then the cube projection."""
    ff = fourier_form(cells, layout, index)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f, info = proj.solve(ff.g, warm_start=False)
    return subset_from_fourier(proj.index, k) @ f, info


def run_mbi(args, n, layout, noisy, sigma, m):
    """Private-PGM on the same measurements, in its own venv (mbi needs JAX)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        fin, fout = Path(tmp) / "in.npz", Path(tmp) / "out.npz"
        np.savez(fin, n=n, sets=np.array(layout.sets), noisy=noisy, sigma=sigma, m=m, iters=args.mbi_iters)
        r = subprocess.run([args.mbi_python, str(Path(__file__).with_name("_mbi_peer.py")), str(fin), str(fout)],
                           capture_output=True, text=True)
        if r.returncode != 0 or not fout.exists():
            print(f"# mbi failed at n={n}: {r.stderr[-300:]}", file=sys.stderr)
            return None, 0.0
        out = np.load(fout)
        return np.asarray(out["est"], dtype=float), float(out["time"])


def plot_from_logs(files: list[str], out_png: str) -> None:
    """Plot error vs n (one panel per epsilon) from the '# <data> n=.. eps=..: name: err (time)' log lines."""
    import re

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pat = re.compile(r"^# (planted[^:]*?) n=(\d+) eps=([\d.]+): (.*?); admm")
    data: dict[float, dict[str, dict[int, float]]] = {}
    for fname in files:
        for line in Path(fname).read_text().splitlines():
            mt = pat.match(line)
            if not mt:
                continue
            n, eps = int(mt.group(2)), float(mt.group(3))
            for part in mt.group(4).split(" | "):
                name, rest = part.split(": ")
                data.setdefault(eps, {}).setdefault(name, {})[n] = float(rest.split(" ")[0])
    epss = sorted(data)
    names = sorted({nm for d in data.values() for nm in d})
    colors = {nm: f"C{i}" for i, nm in enumerate(names)}
    fig, axes = plt.subplots(1, len(epss), figsize=(4.2 * len(epss), 3.6), squeeze=False)
    for ax, eps in zip(axes[0], epss):
        for name, pts in sorted(data[eps].items()):
            ns = sorted(pts)
            ax.plot(ns, [pts[v] for v in ns], marker="o", label=name, color=colors[name])
        ax.set_yscale("log")
        ax.set_xlabel("n (attributes)")
        ax.set_title(f"epsilon = {eps:g}, k = 3, m = 2000")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("mean sq. error per 3-way count")
    handles = [plt.Line2D([], [], color=colors[nm], marker="o", label=nm) for nm in names]
    fig.legend(handles=handles, loc="lower center", ncol=len(names), fontsize=8)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    Path(out_png).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="+", default=[10, 16, 24, 32])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--m", type=int, default=2000)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--degree", type=int, default=None,
                    help="relaxation degree (default: default_degree('tables', k, n))")
    ap.add_argument("--polytope-max-n", type=int, default=16)
    ap.add_argument("--polytope-tol", type=float, default=1e-6)
    ap.add_argument("--tensor-cube-max-n", type=int, default=10)
    ap.add_argument("--no-tensor", action="store_true")
    ap.add_argument("--mbi-python", type=str, default=None,
                    help="python of a venv with mbi (Private-PGM) + JAX; runs benchmarks/_mbi_peer.py there")
    ap.add_argument("--mbi-max-n", type=int, default=10)
    ap.add_argument("--mbi-iters", type=int, default=1000)
    ap.add_argument("--bundled", action="store_true", help="also run the bundled real datasets")
    ap.add_argument("--no-planted", action="store_true", help="skip the synthetic sweep")
    ap.add_argument("--save", type=str, default=None, help="write raw per-seed results (npz)")
    ap.add_argument("--plot-from", type=str, nargs="+", default=None,
                    help="only plot: log files of earlier runs (stdout of this script)")
    ap.add_argument("--plot", type=str, default="docs/img/tables_error_vs_n.png")
    args = ap.parse_args()
    if args.plot_from:
        plot_from_logs(args.plot_from, args.plot)
        return
    k, delta = args.k, args.delta
    print(f"# mbi (Private-PGM) peer: {args.mbi_python or 'not run (pass --mbi-python)'}")
    rows = []
    raw_records = []
    for dname, n, make in datasets(args):
        layout = TableLayout.all_k_way(n, k)
        index = SubsetIndex(n, k)
        B = measurement_matrix(layout, index)
        ones = layout.offsets[:-1] + 2 ** k - 1
        sens = table_sensitivity(layout)
        degree = args.degree or default_degree("tables", k, n)
        proj, t_build, _ = measure(CubeTablesProjector, n, degree,
                                   fourier_form(np.zeros(layout.n_cells), layout, index).a, tol=args.tol,
                                   max_iter=3000)
        for eps in args.eps:
            sigma = gaussian_sigma(eps, delta, sens)
            res: dict[str, list] = {}

            for seed in range(args.seeds):
                D = make(seed)
                m = D.shape[0]
                true = contingency_tables(D, layout, flat=True).astype(float)
                noisy = true + gaussian_noise(layout.n_cells, sigma, rng=10_000 + seed)
                cells = noisy / m
                add(res, "tables raw", np.mean((noisy[ones] - true[ones]) ** 2), np.mean((noisy - true) ** 2), 0, 0)
                (y, info), dt, peak = measure(solve_ours, proj, cells, layout, index, k)
                est = m * (B @ y)
                add(res, "tables+cube", np.mean((est[ones] - true[ones]) ** 2), np.mean((est - true) ** 2), dt, peak)
                raw_records.append((dname, n, eps, seed, "admm_iterations", info["iterations"]))
                if n <= args.polytope_max_n:
                    fit, dt, peak = measure(polytope_least_squares, cells, layout, index=index,
                                                   tol=args.polytope_tol, max_iter=5000)
                    est = m * (B @ fit.moments)
                    add(res, "tables+polytope", np.mean((est[ones] - true[ones]) ** 2),
                        np.mean((est - true) ** 2), dt, peak)
                if args.mbi_python and n <= args.mbi_max_n:
                    est, dt = run_mbi(args, n, layout, noisy, sigma, m)
                    if est is not None:
                        add(res, "tables+mbi", np.mean((est[ones] - true[ones]) ** 2),
                            np.mean((est - true) ** 2), dt, 0)
                if not args.no_tensor:
                    from sosproj.mechanisms.marginals import release_marginals
                    meths = ["symmetrize"] + (["cube"] if n <= args.tensor_cube_max_n else [])
                    for meth in meths:
                        try:
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                rel, dt, peak = measure(release_marginals, D, k, epsilon=eps, delta=delta,
                                                        method=meth, rng=seed)
                        except Exception as exc:  # noqa: BLE001
                            print(f"# {meth} failed at n={n}: {type(exc).__name__}: {exc}", file=sys.stderr)
                            continue
                        yk = np.array([rel.moment(s) for s in index.tuples()])
                        est = m * (B @ yk)
                        add(res, f"tensor {meth}", np.mean((est[ones] - true[ones]) ** 2),
                            np.mean((est - true) ** 2), dt, peak)
            med = {name: np.median(np.array(v), axis=0) for name, v in res.items()}
            rows.append((dname, n, eps, med, degree))
            line = " | ".join(f"{nm}: {v[0]:.4g} ({v[2]:.2f}s)" for nm, v in med.items())
            its = [r[-1] for r in raw_records if r[:3] == (dname, n, eps)]
            print(f"# {dname} n={n} eps={eps}: {line}; admm iterations {its}; degree {degree}; "
                  f"build {t_build:.1f}s", flush=True)
    # ---------------------------------------------------------------- table
    names = []
    for r in rows:
        for nm in r[3]:
            if nm not in names:
                names.append(nm)
    print()
    print("Average squared error per k-way conjunction count (count units), median over "
          f"{args.seeds} seeds; k={k}, delta={delta:g}; ratio = tables+cube / best peer "
          "(peer = every other column that ran)")
    print()
    hdr = ["data", "n", "deg", "eps"] + names + ["cube/polytope", "cube/best peer", "cube wall s", "cube CPU s",
                                           "cube mem", "cube cell err"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for dname, n, eps, med, deg in rows:
        ours = med["tables+cube"][0]
        peers = [v[0] for nm, v in med.items() if nm != "tables+cube"]
        poly = med.get("tables+polytope")
        vals = [f"{med[nm][0]:.4g}" if nm in med else "-" for nm in names]
        print("| " + " | ".join([dname, str(n), str(deg), f"{eps:g}"] + vals + [
            f"{ours / poly[0]:.3f}" if poly is not None else "-",
            f"{ours / min(peers):.3f}" if peers else "-",
            f"{med['tables+cube'][2]:.2f}", f"{med['tables+cube'][4]:.2f}",
            f"{med['tables+cube'][3] / 2**20:.1f} MiB",
            f"{med['tables+cube'][1]:.4g}"]) + " |")
    print()
    print("Median seconds per release: " + "; ".join(
        f"{nm}: " + ", ".join(f"n={n},eps={eps:g}: {med[nm][2]:.2f}" for _, n, eps, med, _ in rows if nm in med)
        for nm in names if nm != "tables raw"))
    if args.save:
        np.save(args.save, np.array(raw_records, dtype=object), allow_pickle=True)


if __name__ == "__main__":
    main()
