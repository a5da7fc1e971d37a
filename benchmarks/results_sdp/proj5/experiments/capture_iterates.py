import sys, numpy as np
sys.path.insert(0, "benchmarks")
from moment_projection import make_input
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.backends.lowrank import LowrankBackend, _SidePSDProjector
n, regime = int(sys.argv[1]), sys.argv[2]
R, _, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
saved = {}
orig = _SidePSDProjector.__call__
def call(self, v):
    if self.d > 100 and self.calls + 1 in (100, 150, 250, 400):
        M = np.zeros((self.d, self.d)); i = np.triu_indices(self.d)
        self.buf.flat[self.upper] = v / self.scale
        U = np.triu(self.buf); saved[self.calls + 1] = U + np.triu(U, 1).T
    return orig(self, v)
_SidePSDProjector.__call__ = call
sol = LowrankBackend(prob, tol=1e-6).solve()
print(sol.status, sol.iterations)
np.savez(f"/tmp/iter_{regime}{n}.npz", **{str(k): v for k, v in saved.items()})
