"""Save the moment block of ``lowrank`` iterates (the matrices its PSD projection decomposes).

Runs ``solver="lowrank"`` (tol 1e-6) on the unit-ball input of ``benchmarks/moment_projection.py``
and saves the symmetric matrix handed to the projection at the given calls to ``OUT.npz`` (keys:
the call numbers); stops after the last one.

Usage: PYTHONPATH=$PWD python capture_iterates.py N REGIME OUT.npz CALL [CALL ...]
e.g.   ... capture_iterates.py 50 dp /tmp/iter_dp50.npz 80 200
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
from moment_projection import make_input  # noqa: E402

from sosproj.sdp.backends.lowrank import LowrankBackend, _SidePSDProjector  # noqa: E402
from sosproj.sdp.compile import compile_projection  # noqa: E402


class _Done(Exception):
    pass


def main() -> None:
    n, regime, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    calls = sorted(int(c) for c in sys.argv[4:])
    R, _, Y = make_input("unit_ball", n, regime)
    prob = compile_projection(R, 3, Y, solver="admm")
    saved: dict[str, np.ndarray] = {}
    orig = _SidePSDProjector.__call__

    def call(self, v):
        k = self.calls + 1
        if k in calls:
            self.buf.flat[self.upper] = v / self.scale
            U = np.triu(self.buf)
            saved[str(k)] = U + np.triu(U, 1).T
            if k == calls[-1]:
                raise _Done
        return orig(self, v)

    _SidePSDProjector.__call__ = call
    try:
        sol = LowrankBackend(prob, tol=1e-6).solve()
        print("finished before the last call:", sol.status, sol.iterations)
    except _Done:
        pass
    np.savez(out, **saved)
    print("saved", sorted(saved, key=int), "to", out)


if __name__ == "__main__":
    main()
