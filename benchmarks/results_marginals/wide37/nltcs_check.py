"""nltcs (binary): the L1 correction is a no-op. Command:
OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_marginals/wide37/nltcs_check.py G > nltcs_check.txt
Compares the default's noise scales (public: sizes, m, epsilon, delta) with the correction's at each epsilon; equal
noise scales and the same seed give the same release (the pipeline is deterministic given them)."""
import sys

import numpy as np

import sosproj as sp
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.spec import Adjacency

g = float(sys.argv[1])
print(" ".join(sys.argv))
ds = sp.load_dataset("nltcs")
lay = ResidualLayout(ds.domain.sizes, all_k_way(ds.n, 3))
for eps in (0.03, 0.1, 0.3, 1, 3, 10):
    args = {"epsilon": eps, "delta": 1e-9, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
    snr = mp.public_snr(ds.m, eps, lay)
    mix = mp.auto_mix(snr, rule=mp.mix_rule(lay, "auto", snr))
    out = []
    for gg, band in ((0.0, False), (g, True)):
        mp.WIDE_L1_GAMMA, mp.WIDE_L1_BAND_UNCORRECTED = gg, band
        out.append(mp.noise_scales(lay, "auto", args, ds.m, mix=mix)[0])
    print(f"nltcs eps {eps:g}: noise scales identical: {bool(np.array_equal(out[0], out[1]))} "
          f"(skip threshold {mp.skip_threshold(lay, 'auto')})")
