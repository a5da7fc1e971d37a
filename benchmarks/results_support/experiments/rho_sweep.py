"""Experiment: initial ADMM penalty rho of the lowrank backend (n = 20, 30; two tensors each)."""

import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends.lowrank import Backend
from sosproj.sdp.lowrank_support import support_route

for n in (20, 30):
    R = MomentRelaxation(unit_ball(n), 4)
    for seed in (5, 6):
        W = np.random.default_rng(seed).standard_normal((n, n, n))
        prob = compile_support(R, 3, W)
        name, st = support_route(R, "lowrank", 1e-7, 3)
        for rho in (1.0, 3.0, 10.0):
            b = Backend(prob, tol=1e-7, rho=rho, **st)
            t = time.perf_counter()
            raw = b.solve()
            t2 = time.perf_counter() - t
            print(n, seed, rho, raw.status, raw.iterations, round(t2, 2), raw.extra.get("cert_relative_gap"),
                  flush=True)
