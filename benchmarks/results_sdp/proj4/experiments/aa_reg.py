# ruff: noqa
# Probe: Anderson Tikhonov regularization (admm._Anderson reg) on lowrank projections.
import sys, time
import numpy as np
sys.path.insert(0, "benchmarks")
from moment_projection import make_input
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.backends import admm
from sosproj.sdp.backends.lowrank import LowrankBackend
n, regime = int(sys.argv[1]), sys.argv[2]
R, ro, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
orig = admm._Anderson.__init__
for reg in map(float, sys.argv[3:]):
    def init(self, memory, dim, reg_=reg):
        orig(self, memory, dim, reg_)
    admm._Anderson.__init__ = init
    be = LowrankBackend(prob, tol=1e-6)
    t = time.process_time(); s = be.solve()
    print(n, regime, reg, s.status, s.iterations, f"cpu {time.process_time() - t:.2f}", s.extra["admm_aa_rejected"], flush=True)
