"""Public quantities of the categorical ``"auto"`` release per (shape, epsilon), no record read: the public SNR, the
median public set SNR of the pairs under the public rule at the whole budget, and how many pairs / triples that rule
measures (issue 14, session 36; the context of the pair selection's study, ``select_pairs_study.py``).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/select_pairs_public.py adl15-tree-m49k tit9-m1k adult titanic
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from select_pairs_study import ADULT_SIZES, GEO, SHAPES, TREE  # noqa: E402

import sosproj as sp  # noqa: E402
from sosproj.data.residuals import ResidualLayout, all_k_way  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402
from sosproj.privacy.spec import Adjacency  # noqa: E402


def public_facts(sizes: list[int], m: int, eps: float) -> tuple[float, float, int, int]:
    lay = ResidualLayout(tuple(sizes), all_k_way(len(sizes), 3))
    args = {"epsilon": eps, "delta": 1e-9, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
    snr = mp.public_snr(m, eps, lay)
    mix = mp.auto_mix(snr, rule=mp.mix_rule(lay, "auto", snr))
    sig, _, _ = mp.noise_scales(lay, "auto", args, m, mix=mix)
    ss = mp.set_snr(lay, sig, m)
    pairs = [i for i, A in enumerate(lay.residual_sets) if len(A) == 2]
    n2 = sum(1 for i in pairs if np.isfinite(sig[i]))
    n3 = sum(1 for i, A in enumerate(lay.residual_sets) if len(A) == 3 and np.isfinite(sig[i]))
    return snr, float(np.median(ss[pairs])), n2, n3


def main() -> None:
    shapes = {**{k: v[:2] for k, v in SHAPES.items()}, **{k: v[:2] for k, v in GEO.items()},
              **{k: v[:2] for k, v in TREE.items()}, "adult": (ADULT_SIZES, 48842)}
    print("shape eps public_snr median_pair_set_snr pairs_measured triples_measured")
    for name in sys.argv[1:]:
        if name in shapes:
            sizes, m = shapes[name]
        else:
            ds = sp.load_dataset(name)
            sizes, m = list(ds.domain.sizes), ds.m
        if all(s == 2 for s in sizes):
            print(f"{name} binary: no skip rule, no pair selection")
            continue
        for eps in (0.3, 1.0, 3.0):
            snr, med, n2, n3 = public_facts(list(sizes), m, eps)
            print(f"{name} {eps:g} {snr:.3f} {med:.1f} {n2} {n3}")


if __name__ == "__main__":
    main()
