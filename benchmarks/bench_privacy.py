"""Benchmark: exact discrete Gaussian sampler vs numpy's continuous normal (baseline, same run).

Prints the median CPU time (``time.process_time``, less sensitive than wall time to other
jobs sharing the cores) over repeats for 10^6 samples and the ratio to the baseline
``Generator.standard_normal(10^6)`` measured in the same process, plus the cost of one
audit of a batched Gaussian mechanism.

    python benchmarks/bench_privacy.py [--repeats 5] [--n 1000000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sosproj.audit import audit_mechanism
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.privacy.discrete_gaussian import sample_discrete_gaussian


def _median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


class _Toy:
    def __init__(self, s: float) -> None:
        self.s = s

    def sample(self, x, rng, size):
        return x + self.s * rng.standard_normal((size, 1))

    def exact(self, x):
        return np.array([x])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--n", type=int, default=1_000_000)
    args = ap.parse_args()
    gen = np.random.default_rng(0)
    base = _median(lambda: gen.standard_normal(args.n), args.repeats)
    print(f"| sampler ({args.n:.0e} samples) | median CPU s | ratio to numpy normal |")
    print("|---|---|---|")
    print(f"| numpy standard_normal (baseline) | {base:.4f} | 1.0 |")
    for s2 in (1.0, 100.0, 1e4, 1e8 + 0.5):
        t = _median(lambda s2=s2: sample_discrete_gaussian(args.n, s2, rng=gen), args.repeats)
        print(f"| discrete Gaussian sigma^2={s2:g} | {t:.3f} | {t / base:.0f} |")
    s = gaussian_sigma(1.0, 1e-6)
    t = _median(lambda: audit_mechanism(_Toy(s), 0.0, 1.0, epsilon=1.0, delta=1e-6, trials=400_000, rng=gen),
                max(1, args.repeats // 2))
    print(f"| audit_mechanism, 400k trials, batched 1-D Gaussian | {t:.3f} | {t / base:.0f} |")


if __name__ == "__main__":
    main()
