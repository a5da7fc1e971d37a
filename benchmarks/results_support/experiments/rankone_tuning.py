"""rankone tuning record: Douglas-Rachford relaxation 1.0 vs 1.7 (iterations, CPU) on the benchmark's
n = 20 and n = 30 tensors, and the gap between the two best local maxima of each n = 30 tensor
(thin dual sets: the hard instance).

Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/results_support/experiments/rankone_tuning.py
"""

from __future__ import annotations

import os
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import TensorRounding, support_route
from sosproj.sdp.solve import ConicSolver


def tensors(n: int, count: int, seed: int = 2026) -> list[np.ndarray]:
    rng = np.random.default_rng([seed, n])          # the benchmark's draws
    return [rng.standard_normal((n, n, n)) for _ in range(count)]


def local_maxima(rounding: TensorRounding, q: np.ndarray, starts: int = 256) -> list[float]:
    T = rounding.tensor(q)
    n = T.shape[0]
    Z = np.random.default_rng(0).standard_normal((n, starts))
    vals, pts = [], []
    for b in range(starts):
        v, z = rounding._newton(T, rounding._polish(T, Z[:, b])[1])
        vals.append(abs(v))
        pts.append(z * np.sign(v))
    order = np.argsort(vals)[::-1]
    distinct: list[int] = []
    for i in order:
        if all(abs(pts[i] @ pts[j]) < 0.999 for j in distinct):
            distinct.append(int(i))
        if len(distinct) == 2:
            break
    return [float(vals[i]) for i in distinct]


def main() -> None:
    print(f"# rankone tuning, load {os.getloadavg()[0]:.1f}")
    for n in (20, 30):
        R = MomentRelaxation(unit_ball(n), 4)
        for i, W in enumerate(tensors(n, 3)):
            prob = compile_support(R, 3, W)
            row = []
            for relax in (1.0, 1.7):
                _, settings = support_route(R, "rankone", 1e-7, 3)
                ws = ConicSolver(prob, "rankone", tol=1e-7, relax=relax, **settings)
                c0 = time.process_time()
                res = ws.solve(on_fail="return")
                row.append(f"relax {relax}: {res.iterations} it, cpu {time.process_time() - c0:.2f} s, "
                           f"{res.status}")
            extra = ""
            if n == 30:
                best, second = local_maxima(TensorRounding(R, 3), prob.q)
                extra = f" | two best local maxima {best:.6f} {second:.6f} ({100 * (best - second) / best:.2f}% apart)"
            print(f"n={n} tensor {i}: " + "; ".join(row) + extra, flush=True)


if __name__ == "__main__":
    main()
