"""Profile of one projection solve: eigenvalue counts of the iterates and the time split per step.

For the inputs of ``benchmarks/moment_projection.py`` (unit ball, degree 4, k = 3, ``dp`` or
``boundary``) runs the given backends in one process on the same compiled problem and prints
one JSON line per backend: status, iterations, wall and CPU seconds, the time spent in the
cone projection (``eig``), the linear step (``lin``) and Anderson acceleration (``aa``),
and every 10th iteration the numbers of positive and negative eigenvalues of the iterate's
moment block (computed outside the timed steps). The last line is the largest difference
between the backends' answers.

Usage::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/projection_profile.py 30 boundary admm lowrank
    ... python benchmarks/projection_profile.py 30 dp admm "lowrank:{'single_rtol': 1e-6}"
"""

from __future__ import annotations

import ast
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moment_projection import make_input  # noqa: E402

from sosproj.sdp.backends.admm import AdmmBackend, _Anderson  # noqa: E402
from sosproj.sdp.backends.lowrank import LowrankBackend  # noqa: E402
from sosproj.sdp.compile import compile_projection  # noqa: E402
from sosproj.sdp.cones import PSDProjector  # noqa: E402


def run(prob, spec: str, tol: float = 1e-6) -> tuple[dict, np.ndarray]:
    name, opts = spec.split(":", 1) if ":" in spec else (spec, "{}")
    be = (AdmmBackend if name == "admm" else LowrankBackend)(prob, tol=tol, **ast.literal_eval(opts))
    split = {"eig": 0.0, "lin": 0.0, "aa": 0.0, "spectrum_probe": 0.0}

    def timed(key, fn):
        def wrapper(*args):
            t = time.perf_counter()
            out = fn(*args)
            split[key] += time.perf_counter() - t
            return out
        return wrapper

    be._project = timed("eig", be._project)
    be._solve_H = timed("lin", be._solve_H)
    step = _Anderson.step
    _Anderson.step = timed("aa", step)
    dmax = max(be.psd_proj)
    big = next(sl for kind, sl, d in be.slices if kind == "psd" and d == dmax)
    probe = PSDProjector(dmax)
    counts: list[tuple[int, int, int]] = []
    inner = be._map
    calls = [0]

    def counted(w, q, b):
        calls[0] += 1
        if calls[0] % 10 == 1:
            t = time.perf_counter()
            M = probe.buf
            vals = w[big] / probe.scale
            M.flat[probe.lower] = vals
            M.flat[probe.upper] = vals
            lam = np.linalg.eigvalsh(M)
            cut = 1e-10 * max(1.0, float(np.abs(lam).max()))
            counts.append((calls[0], int((lam > cut).sum()), int((lam < -cut).sum())))
            split["spectrum_probe"] += time.perf_counter() - t
        return inner(w, q, b)

    be._map = counted
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        sol = be.solve()
    finally:
        _Anderson.step = step
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    res = prob.residuals(sol.x, sol.y, sol.s)
    row = {"solver": spec, "status": sol.status, "iterations": sol.iterations, "wall": wall, "cpu": cpu,
           "split": split, "counts": counts, "residuals": {k: float(v) for k, v in res.items()},
           "extra": {k: v for k, v in sol.extra.items() if np.isscalar(v)}}
    return row, sol.x


def main() -> None:
    n, regime, specs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    R, _, Y = make_input("unit_ball", n, regime)
    prob = compile_projection(R, 3, Y, solver="admm")
    print(f"# n={n} regime={regime} order={max(prob.cones.psd)} load={os.getloadavg()} "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}", flush=True)
    xs = []
    for spec in specs:
        row, x = run(prob, spec)
        row.update(n=n, regime=regime, load_after=os.getloadavg())
        xs.append(x)
        print(json.dumps(row), flush=True)
    if len(xs) > 1:
        print("max |x - x_first|:", [float(np.max(np.abs(x - xs[0]))) for x in xs[1:]])


if __name__ == "__main__":
    main()
