# ruff: noqa
# Recorded prototype (branch proj3, see README.md); kept verbatim as run.
import sys, time
import numpy as np
sys.path.insert(0,"benchmarks")
from moment_projection import make_input
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.backends.admm import AdmmBackend
from sosproj.sdp.backends.lowrank import LowrankBackend
n=int(sys.argv[1]); regime=sys.argv[2]
R, ro, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
xs={}
for spec in sys.argv[3:]:
    name, opts = spec.split(":",1) if ":" in spec else (spec, "{}")
    opts = eval(opts)
    cls = AdmmBackend if name=="admm" else LowrankBackend
    be = cls(prob, tol=1e-6, max_iter=3000, **opts)
    t=time.process_time(); w=time.perf_counter(); s=be.solve(); c=time.process_time()-t; w=time.perf_counter()-w
    xs[spec]=s.x
    ex={k:v for k,v in s.extra.items() if k.startswith("side_")}
    print(n, regime, spec, s.status, s.iterations, "cpu %.2f wall %.2f" % (c,w), ex, "dx %.1e" % np.max(np.abs(s.x-xs[sys.argv[3]])), flush=True)
