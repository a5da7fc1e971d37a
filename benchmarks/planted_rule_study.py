"""Study for issue 14's planted64 miss: which part of the binary no-cube default loses, and in which metric.

On planted synthetic binary data (``sosproj.data.synthetic.planted_binary``, 4 clusters, a data seed) and
all 3-way marginals, one noisy measurement per (allocation, epsilon, seed) -- drawn exactly as
``sp.release_marginals`` draws it (same generator, same noise scales) -- is post-processed by:

* ``blue``        the measurement itself (ResidualPlanner's BLUE);
* ``trunc``       BLUE tables, negative cells clipped, every table rescaled to ``m`` (not consistent);
* ``lnn-g<G>``    the projection onto consistent, locally non-negative tables in the metric
  ``w_A^G d_A^(1-G)`` (``w_A = 1/sigma_A^2`` the measurement metric, ``d_A`` the table metric: the
  workload's sum of squared cell errors is ``sum_A d_A ||e_A||^2``), so ``G = 1`` is the default's
  metric and ``G = 0`` the table (per-cell L2) metric; at the default tolerance (``@def``) or a tight one
  (``@tight``: tol 1e-5, 20,000 iterations);
* ``cube<D>-g<G>`` the library's cube step (``_cube_then_lnn``) at degree ``D``, then the LNN projection,
  both in the metric of exponent ``G``; ``cubeblk-g<G>`` the same at degree 4 with the moment matrix
  restricted to the empty set, singletons and the pairs inside one of two attribute blocks
  (``block_cube_basis``);

and reports L1 per marginal / m, RMSE per cell (counts), the error in the measurement metric
(``sum_A w_A ||e_A||^2 / #cells``) and in the table metric, the ADMM iterations, its final mixing weight
``theta`` with the uniform tables, and the error of the iterate *before* that mixing (``l1_pre``).
Public quantities only decide every variant; the records are read for the measurement and the errors.

Usage (one process, one BLAS thread)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/planted_rule_study.py --n 32 --eps 0.3 1 --seeds 0 \\
        --allocs auto rp --variants blue trunc lnn-g1@def lnn-g1@tight lnn-g0@def lnn-g0.5@def
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.data.residuals import ResidualLayout, all_k_way  # noqa: E402
from sosproj.data.synthetic import planted_binary, sparse_binary  # noqa: E402
from sosproj.mechanisms.marginals_pipeline import (  # noqa: E402
    _cube_then_lnn,
    auto_mix,
    block_cube_basis,
    default_tolerance,
    measure,
    mix_rule,
    noise_scales,
    public_snr,
)
from sosproj.privacy.spec import Adjacency  # noqa: E402
from sosproj.rng import as_generator  # noqa: E402
from sosproj.sdp.marginal_admm import MarginalProjector  # noqa: E402

DELTA = 1e-9
K = 3


def errors(layout: ResidualLayout, t: np.ndarray, t_true: np.ndarray, m: int) -> tuple[float, float]:
    """(L1 per marginal / m, RMSE per cell)."""
    diff = t - t_true
    T = len(layout.workload)
    return float(np.abs(diff).sum()) / (T * m), float(np.sqrt(np.mean(diff ** 2)))


def truncate(layout: ResidualLayout, t: np.ndarray, m: int) -> np.ndarray:
    """Clip negative cells, rescale every table to ``m`` (binary all-k-way: equal table sizes)."""
    tabs = np.maximum(t.reshape(len(layout.workload), -1), 0.0)
    s = tabs.sum(axis=1, keepdims=True)
    return (tabs * (m / np.maximum(s, 1e-300))).ravel()


def data(gen: str, n: int, m: int, data_seed: int) -> np.ndarray:
    """``planted``: planted_binary, 4 clusters; ``sparse<t>``: sparse_binary with rows of at most t ones."""
    if gen == "planted":
        return planted_binary(m, n, n_clusters=4, rng=data_seed).astype(np.int64)
    if gen.startswith("sparse"):
        return np.asarray(sparse_binary(m, n, int(gen[len("sparse"):]), rng=data_seed).todense(), dtype=np.int64)
    raise SystemExit(f"unknown generator {gen!r}")


def run(n: int, m: int, data_seed: int, eps_list, seeds, allocs, variants, mixes, gen: str = "planted") -> None:
    X = data(gen, n, m, data_seed)
    ds = Dataset(X, Domain.from_sizes([2] * n))
    layout = ResidualLayout.checked(ds.domain.sizes, all_k_way(n, K))
    r_true = layout.residuals_of_tables([ds.marginal(w) for w in layout.workload])
    t_true = layout.forward(r_true)
    d_sets = layout.normal_diag_sets
    cells = layout.tab_size
    for eps in eps_list:
        snr = public_snr(m, eps, layout)
        rule = mix_rule(layout, "auto", snr)
        for alloc in allocs:
            for mix in (mixes if alloc == "auto" else [None]):
                t_mix = auto_mix(snr, rule=rule) if mix is None else mix
                spec_args = {"epsilon": eps, "delta": DELTA, "adjacency": Adjacency.REPLACE_ONE,
                             "calibration": "analytic"}
                sig, spec, _ = noise_scales(layout, alloc, spec_args, m, mix=t_mix)
                for seed in seeds:
                    meas = measure(ds, layout, sig, spec, alloc, as_generator(seed))
                    w = meas.weights
                    tag = f"{gen}/{data_seed} n={n} m={m} eps={eps:g} seed={seed} alloc={alloc}" + (
                        f" mix={t_mix:.3f}" if alloc == "auto" else "")
                    for var in variants:
                        t0 = time.process_time()
                        extra = ""
                        if var == "blue":
                            r = meas.residuals
                            t = layout.forward(r)
                        elif var == "trunc":
                            r = None
                            t = truncate(layout, layout.forward(meas.residuals), m)
                        elif var.startswith("cube"):
                            # cube<D>-g<G>: degree-D cube step then LNN, both in the metric of exponent G;
                            # cubeblk-g<G>: degree 4 on the two-block basis (block_cube_basis)
                            dg, _, gg = var[len("cube"):].partition("-g")
                            basis = block_cube_basis(n) if dg == "blk" else None
                            g = float(gg)
                            ww = np.zeros_like(w)
                            pos = w > 0
                            ww[pos] = w[pos] ** g * d_sets[pos] ** (1.0 - g)
                            opts = {"tol": default_tolerance(snr), "max_iter": 5000, "on_fail": "return"}
                            r, info = _cube_then_lnn(meas, opts, degree=4 if basis is not None else int(dg),
                                                     weights=ww, basis=basis)
                            extra = (f" it={info['iterations']} conv={info['converged']} "
                                     f"cube_it={info['cube']['iterations']} cube_conv={info['cube']['converged']} "
                                     f"order={info['cube']['moment_matrix_order']}")
                            t = layout.forward(r)
                        else:
                            name, _, tol_tag = var.partition("@")
                            g = float(name[len("lnn-g"):])
                            ww = np.zeros_like(w)
                            pos = w > 0
                            ww[pos] = w[pos] ** g * d_sets[pos] ** (1.0 - g)
                            if tol_tag == "tight":
                                tol, mi = 1e-5, 20000
                            else:
                                tol, mi = default_tolerance(snr), 5000
                            proj = MarginalProjector(layout, ww, tol=tol, max_iter=mi)
                            r, info, state = proj.solve_state(meas.residuals, on_fail="return")
                            l1p, _ = errors(layout, layout.forward(state.r), t_true, m)
                            extra = (f" it={info['iterations']} conv={info['converged']} "
                                     f"theta={info['theta']:.2e} l1_pre={l1p:.5f}")
                            t = layout.forward(r)
                        l1, rmse = errors(layout, t, t_true, m)
                        if r is not None:
                            e2 = layout.sum_per_set((r - r_true) ** 2)
                            em = float(np.sum(w * e2)) / cells
                            et = float(np.sum(d_sets[w > 0] * e2[w > 0])) / cells
                            extra = f" err_meas={em:.4g} err_tab={et:.4g}" + extra
                        print(f"{tag} snr={snr:.3g} {var:14s} l1={l1:.5f} rmse={rmse:.3f}{extra} "
                              f"cpu={time.process_time() - t0:.1f}s", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--m", type=int, default=20000)
    ap.add_argument("--data-seed", type=int, default=0)
    ap.add_argument("--gen", default="planted", help="planted | sparse<t> (sosproj.data.synthetic)")
    ap.add_argument("--eps", type=float, nargs="+", default=[0.3, 1.0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--allocs", nargs="+", default=["auto", "rp"])
    ap.add_argument("--mixes", type=float, nargs="*", default=None,
                    help="mixing weights t of the auto allocation to try (default: the auto rule's)")
    ap.add_argument("--variants", nargs="+", default=["blue", "trunc", "lnn-g1@def", "lnn-g0@def"])
    a = ap.parse_args(argv)
    print(f"# {' '.join(sys.argv)}", flush=True)
    run(a.n, a.m, a.data_seed, a.eps, a.seeds, a.allocs, a.variants, a.mixes or [None], a.gen)


if __name__ == "__main__":
    main()
