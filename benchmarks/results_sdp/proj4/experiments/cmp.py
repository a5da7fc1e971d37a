# ruff: noqa
# Experiment driver (branch proj4): python cmp.py N REGIME [SYSTEM] -- "name:{json}" ...
import sys, time, json
import numpy as np
sys.path.insert(0, "benchmarks")
from moment_projection import make_input
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.backends import backend_class
args = sys.argv[1:]
n, regime = int(args[0]), args[1]
system = args[2] if len(args) > 2 and args[2] != "--" else "unit_ball"
specs = args[args.index("--") + 1:]
R, ro, Y = make_input(system, n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
ref = None
for spec in specs:
    name, _, js = spec.partition(":")
    opts = json.loads(js) if js else {}
    cls = backend_class(name)
    be = cls(prob, tol=1e-6, **opts)
    t = time.process_time(); w = time.perf_counter()
    s = be.solve()
    cpu = time.process_time() - t
    wall = time.perf_counter() - w
    if ref is None:
        ref = s.x
    ex = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in s.extra.items() if not isinstance(v, dict)}
    print(n, regime, spec, s.status, s.iterations, f"cpu {cpu:.2f} wall {wall:.2f}", ex, f"dx {np.max(np.abs(s.x - ref)):.1e}", flush=True)
