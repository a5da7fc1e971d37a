"""Experiment: single-precision partial eigendecomposition in the lowrank backend's early phase (n = 20)."""

import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends import lowrank
from sosproj.sdp.lowrank_support import support_route

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
R = MomentRelaxation(unit_ball(n), 4)
for seed in (1, 2):
    W = np.random.default_rng(seed).standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    name, st = support_route(R, "lowrank", 1e-7, 3)
    for thr in (1e-5, 1e9):            # 1e9: never single precision
        lowrank.SINGLE_PRECISION_RTOL = thr
        b = lowrank.Backend(prob, tol=1e-7, **st)
        t = time.perf_counter()
        raw = b.solve()
        t2 = time.perf_counter() - t
        print(n, seed, thr, raw.status, raw.iterations, round(t2, 2), raw.extra.get("cert_relative_gap"), flush=True)
