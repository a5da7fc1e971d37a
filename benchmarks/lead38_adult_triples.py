"""Diagnosis (issue 14, session 38, lead; adult is evaluation data, nothing is fitted on it): on adult, with the opt-in
pair selection under add/remove (the AIM comparison's setting), how much do the measured 3-way residual sets cost?
Paired by seed: the public skip rule's 3-way bar as shipped (12), raised to 24, and every 3-way set skipped (the study
knob ``_skip`` of ``marginals_pipeline.release``). Mean L1 / m over all 455 3-way marginals.

Usage: PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/lead38_adult_triples.py
"""

from __future__ import annotations

import itertools

import numpy as np

import sosproj as sp
from sosproj.mechanisms import marginals_pipeline as mp


def main() -> None:
    ds = sp.load_dataset("adult")
    truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
    for eps in (1.0, 0.3):
        for skip in (None, (2.5, 5.0, 24.0), (2.5, 5.0, 1e9)):
            errs, kept = [], 0
            for seed in (0, 1):
                rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed, selection="pairs",
                                 adjacency="add-remove", public_m=ds.m, _skip=skip)
                errs.append(float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / ds.m))
                kept = sum(1 for w in truth if w not in set(map(tuple, rel.info["unmeasured_sets"])))
            print(f"epsilon {eps:g} skip {skip or 'shipped'}: L1/m seeds 0, 1 = {errs[0]:.4f}, {errs[1]:.4f}; "
                  f"measured 3-way sets (seed 1) {kept}", flush=True)


if __name__ == "__main__":
    main()
