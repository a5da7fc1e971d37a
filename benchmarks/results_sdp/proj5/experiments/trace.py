import ast
import sys

sys.path.insert(0, "benchmarks")
from moment_projection import make_input

from sosproj.sdp.backends.lowrank import LowrankBackend
from sosproj.sdp.compile import compile_projection

n, regime = int(sys.argv[1]), sys.argv[2]
opts = ast.literal_eval(sys.argv[3]) if len(sys.argv) > 3 else {}
R, _, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
be = LowrankBackend(prob, tol=1e-6, verbose=True, **opts)
sol = be.solve()
print(sol.status, sol.iterations, sol.extra)
