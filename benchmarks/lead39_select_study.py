"""The opt-in pair selection with the tree prior (issue 14, session 39, lead): its constants re-chosen now that a
dropped pair is extrapolated through the Chow-Liu tree. Paired rows: same data, epsilon and seed (same selection
statistic's noise), ``selection="pairs"`` and ``options={"extrapolation": "tree"}``; the variants change the
selection's kappa (``_select_pairs``) and the public skip rule's 3-way bar (``_skip``), the study knobs of
``marginals_pipeline.release``.

Metric: mean over all 3-way marginals of L1(true, released) / m. Synthetic shapes (``select_pairs_study``) use
``rng=1000 + seed``; the evaluation datasets use ``rng=seed`` (the dpmm35 rows' call) and, with ``--add-remove``,
``adjacency="add-remove"`` with ``public_m=ds.m`` (the AIM comparison's setting).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/lead39_select_study.py --data adl15-tree-m5k --eps 0.3 1 3 \\
           --seeds 0 1 --variants base b3inf k2
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from select_pairs_study import data_of  # noqa: E402

import sosproj as sp  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

REAL = ("adult", "titanic", "nltcs")
SHARE, KAPPA, MARGIN = mp.SELECT_PAIRS
B1, B2, B3 = mp.AUTO_SKIP_SNR
#: variant -> (kappa, 3-way bar[, 2-way bar])
VARIANTS = {"base": (KAPPA, B3), "b3x2": (KAPPA, 2 * B3), "b3inf": (KAPPA, 1e9),
            "k1.5": (1.5, B3), "k2": (2.0, B3), "k3": (3.0, B3),
            "k1.5-b3inf": (1.5, 1e9), "k2-b3inf": (2.0, 1e9), "k3-b3inf": (3.0, 1e9),
            "b3x4": (KAPPA, 4 * B3), "b3x8": (KAPPA, 8 * B3), "k1.5-b3x2": (1.5, 2 * B3), "k1.5-b3x4": (1.5, 4 * B3),
            "b2x1.5-b3x4": (KAPPA, 4 * B3, 1.5 * B2), "b2x2-b3x4": (KAPPA, 4 * B3, 2 * B2),
            "b2x3-b3x4": (KAPPA, 4 * B3, 3 * B2),
            "mix0.5-b3x4": (KAPPA, 4 * B3), "mix1.5-b3x4": (KAPPA, 4 * B3), "mix2-b3x4": (KAPPA, 4 * B3)}
#: variant -> factor on the "auto" allocation's mixing weight (``auto_mix``, a public function of the public SNR)
MIX_SCALE = {"mix0.5-b3x4": 0.5, "mix1.5-b3x4": 1.5, "mix2-b3x4": 2.0}
_AUTO_MIX = mp.auto_mix


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS))
    ap.add_argument("--add-remove", action="store_true")
    args = ap.parse_args()
    print("data eps seed variant err cpu kept_pairs measured_triples", flush=True)
    for name in args.data:
        ds = sp.load_dataset(name) if name in REAL else data_of(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        extra = {"adjacency": "add-remove", "public_m": ds.m} if args.add_remove else {}
        for eps, seed in itertools.product(args.eps, args.seeds):
            rng = seed if name in REAL else 1000 + seed
            for v in args.variants:
                kappa, b3, *b2 = VARIANTS[v]
                scale = MIX_SCALE.get(v, 1.0)
                mp.auto_mix = (lambda *a, _s=scale, **kw: _s * _AUTO_MIX(*a, **kw)) if scale != 1.0 else _AUTO_MIX
                t0 = time.process_time()
                rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=rng, selection="pairs",
                                 options={"extrapolation": "tree"}, _select_pairs=(SHARE, kappa, MARGIN),
                                 _skip=(B1, b2[0] if b2 else B2, b3), **extra)
                cpu = time.process_time() - t0
                e = float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / ds.m)
                unmeasured = set(map(tuple, rel.info["unmeasured_sets"]))
                kept = sum(1 for p in itertools.combinations(range(ds.n), 2) if p not in unmeasured)
                trip = sum(1 for w in truth if w not in unmeasured)
                print(f"{name} {eps:g} {seed} {v} {e:.6f} {cpu:.2f} {kept} {trip}", flush=True)


if __name__ == "__main__":
    main()
