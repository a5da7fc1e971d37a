"""lead33 information run: (2.5, 5, 12) with the one-hot PSD step off (PSD_MIN_SNR = inf) on adult at 1 / 3, seeds
0-4, against main's errors in eval.txt (same code and seeds: main's rows are deterministic). Separates the higher
bar's own effect from the PSD step the bar switches on (the public SNR of the smaller measured family crosses
PSD_MIN_SNR = 10).

Usage: python benchmarks/results_catrule/lead33/nopsd.py > benchmarks/results_catrule/lead33/nopsd.txt
"""
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from catrule_study import score  # noqa: E402

import sosproj as sp  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

main_err = {}
for line in (HERE / "eval.txt").read_text().splitlines():
    f = line.split()
    if f and f[0] == "adult":
        main_err[(float(f[1]), int(f[2]))] = (float(f[3]), float(f[4]), float(f[6]), float(f[7]))
ds = sp.load_dataset("adult")
truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
mp.AUTO_SKIP_SNR = (2.5, 5.0, 12.0)
mp.PSD_MIN_SNR = math.inf
print("eps seed err_main err_12_psd err_12_nopsd ratio_nopsd ratio_psd cpu_main cpu_12_psd cpu_12_nopsd")
for eps in (1.0, 3.0):
    logs = []
    for seed in range(5):
        t0 = time.process_time()
        rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
        c = time.process_time() - t0
        e = score(rel, truth, ds.m)[0]
        e0, e12, c0, c12 = main_err[(eps, seed)]
        logs.append(math.log(e / e0))
        print(f"{eps:g} {seed} {e0:.6f} {e12:.6f} {e:.6f} {e / e0:.4f} {e12 / e0:.4f} {c0:.2f} {c12:.2f} {c:.2f}",
              flush=True)
    print(f"# adult {eps:g}: (2.5, 5, 12) without the PSD step / main geometric mean {math.exp(np.mean(logs)):.4f}")
