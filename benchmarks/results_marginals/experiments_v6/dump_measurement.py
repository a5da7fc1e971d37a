import sys
import time

import numpy as np

import sosproj as sp
from sosproj.data.residuals import ResidualLayout
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.spec import Adjacency
from sosproj.rng import as_generator

name = sys.argv[1]
eps = float(sys.argv[2])
seed = int(sys.argv[3])
ds = sp.load_dataset(name)
wl = mp.parse_workload(ds.domain, 3, None)
t = time.perf_counter()
lay = ResidualLayout.checked(ds.domain.sizes, wl)
print("layout", time.perf_counter() - t, lay.info(), ds.domain.sizes)
snr = mp.public_snr(ds.m, eps, lay)
rule = mp.mix_rule(lay, "auto", snr)
mix = mp.auto_mix(snr, rule=rule)
print("rule", rule, "snr", snr, "mix", mix, "tol", mp.default_tolerance(snr), "onehot", mp.onehot_psd(lay))
spec_args = {"epsilon": eps, "delta": 1e-9, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
sig, spec, sens = mp.noise_scales(lay, "auto", spec_args, ds.m, mix=mix)

meas = mp.measure(ds, lay, sig, spec, "auto", as_generator(seed))
np.savez(
    f"/tmp/meas_{name}_{eps}_{seed}.npz", r=meas.residuals, w=meas.weights, sizes=np.array(ds.domain.sizes), snr=snr
)
