"""adultcpu33: sosproj (this branch on 1 and 2 threads, main's snapshot) against MST on adult, same run.

Per cell (dataset adult, all 3-way, delta 1e-9), interleaved: new@1, MST one-thread, base, new@k2, MST as shipped,
new@1, base, new@k2. ``new@1`` / ``base``: one BLAS thread, sosproj's policy (1 thread); ``new@k2``: the same plus
``SOSPROJ_KERNEL_THREADS=2`` (the threaded dual step; the first run's rows ``new@2`` had ``SOSPROJ_NUM_THREADS=2``,
BLAS threads too); "MST one-thread": the environment of runtime_vs_pgm.py
(``ONE_THREAD``: one BLAS / XLA thread); "MST as shipped": no thread variable set (its libraries' defaults on this
2-core box). Rows (runtime_vs_pgm.py's fields plus ``variant``) are appended to OUT.

    python benchmarks/results_marginals/adultcpu33/run_mst.py OUT.jsonl NEW_SRC BASE_SRC EPS:SEED ...
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))
from runtime_vs_pgm import ONE_THREAD, run_peer, run_sosproj  # noqa: E402

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "XLA_FLAGS", "SOSPROJ_NUM_THREADS")


def main() -> None:
    out, new, base = sys.argv[1:4]
    plain = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    one = {**plain, **ONE_THREAD}
    # new@2 (the first run of this folder's rows_mst.jsonl): SOSPROJ_NUM_THREADS=2, BLAS and kernel threads;
    # new@k2 (from commit 938e089 on): SOSPROJ_KERNEL_THREADS=2, the kernel's threads only
    two = {**one, "SOSPROJ_KERNEL_THREADS": "2"}
    for cell in sys.argv[4:]:
        eps_s, seed_s = cell.split(":")
        eps, seed = float(eps_s), int(seed_s)
        plan = [("new@1", new, one), ("mst_one_thread", None, one), ("base", base, one), ("new@k2", new, two),
                ("mst_shipped", None, plain), ("new@1", new, one), ("base", base, one), ("new@k2", new, two)]
        for label, src, env in plan:
            if src is None:
                row = run_peer("mst", "adult", eps, seed, 3600.0, env, None)
            else:
                row = run_sosproj(src, "adult", eps, seed, env)
            row = {"variant": label, "dataset": "adult", "epsilon": eps, "seed": seed,
                   "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **row}
            with open(out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{label:15s} eps={eps:g} seed={seed} wall {row.get('wall_s')} cpu {row.get('cpu_s')} "
                  f"l1 {row.get('l1')} load {row['load_before']:.2f}", flush=True)


if __name__ == "__main__":
    main()
