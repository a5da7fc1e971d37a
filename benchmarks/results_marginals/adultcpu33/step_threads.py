"""adultcpu33: the LNN dual's compiled step on Adult's extrapolation layout, 1 thread against 2-3, interleaved.

Captures one ``dual_step`` input of a default release (adult, all 3-way, epsilon 1, seed 0; the 151st step on the
2.65M-cell layout), then times blocks of 10 steps (serial kernel ``threads=1``, ``threads=2``, ``threads=3``,
repeated in turn, medians), wall and CPU (process, all threads), with the 1-minute load before and after; first
checks that the threaded steps return the serial one's numbers bit for bit.

    PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 python benchmarks/results_marginals/adultcpu33/step_threads.py [BLOCKS]
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

import sosproj as sp
from sosproj.data.residuals import ResidualLayout

cap: dict = {}
orig = ResidualLayout.dual_step
count = [0]


def hook(self, y, lam, lam_new, inv_w, step, shift, momentum, *, threads=1):
    count[0] += 1
    if self.tab_size > 2_000_000 and count[0] > 150 and not cap:
        cap.update(lay=self, y=y.copy(), lam=lam.copy(), inv_w=inv_w.copy(), step=step, shift=shift.copy(),
                   mom=momentum)
    return orig(self, y, lam, lam_new, inv_w, step, shift, momentum, threads=threads)


ResidualLayout.dual_step = hook
sp.release_marginals(sp.load_dataset("adult"), 3, epsilon=1.0, delta=1e-9, rng=0)
ResidualLayout.dual_step = orig
lay = cap["lay"]


def steps(threads: int, n: int, check: bool = False):
    y, lam, out = cap["y"].copy(), cap["lam"].copy(), np.empty(lay.tab_size)
    res = []
    for _ in range(n):
        res.append(lay.dual_step(y, lam, out, cap["inv_w"], cap["step"], cap["shift"], cap["mom"], threads=threads))
        if check:
            res.append((out.copy(), y.copy()))
    return res


ref = steps(1, 2, True)
for t in (2, 3):
    got = steps(t, 2, True)
    same = all((a == b) if isinstance(a, bool) else (np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]))
               for a, b in zip(ref, got, strict=True))
    print(f"threads={t}: the serial step's numbers bit for bit: {same}")
blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 15
times: dict = {1: [], 2: [], 3: []}
l0 = os.getloadavg()[0]
for _ in range(blocks):
    for t in (1, 2, 3):
        w0, c0 = time.perf_counter(), time.process_time()
        steps(t, 10)
        times[t].append(((time.perf_counter() - w0) / 10, (time.process_time() - c0) / 10))
l1 = os.getloadavg()[0]
w1 = statistics.median(w for w, _ in times[1])
c1 = statistics.median(c for _, c in times[1])
for t in (1, 2, 3):
    w = statistics.median(w for w, _ in times[t])
    c = statistics.median(c for _, c in times[t])
    print(f"threads={t}: wall {1e3 * w:.2f} ms cpu {1e3 * c:.2f} ms per step | wall speed-up {w1 / w:.3f} "
          f"cpu ratio {c / c1:.3f}")
print(f"cells {lay.tab_size} tables {len(lay.workload)} | load {l0:.2f} -> {l1:.2f} | cores {os.cpu_count()}")
