"""How often the black-box audit catches the under-scaled and uniform controls on ``tables[discrete]``.

The recorded audit (``benchmarks/results_audit/split_tables_discrete.jsonl``) is one seed per control;
this repeats the sigma x 0.7 (``scale``) and ``uniform`` controls at the registered 6,000 runs per input
over 10 other seeds (100-109), with the shipped selection rule (``"split"``) and the previous one
(``"calibration"``). Output stored in ``benchmarks/results_audit/split_study.txt``; quoted by
``docs/privacy.md``.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 SOSPROJ_MEMORY_LIMIT=4000000000 python benchmarks/audit_split_study.py \
        > benchmarks/results_audit/split_study.txt
"""

from __future__ import annotations

import time

import numpy as np

from sosproj.audit import MECHANISMS, NegativeControl, audit_release


def main() -> None:
    case = MECHANISMS["tables[discrete]"]
    D, D2 = case.pair()
    for kind in ("scale", "uniform"):
        for sel in ("split", "calibration"):
            t = time.time()
            caught, bs = 0, []
            for seed in range(100, 110):
                f = NegativeControl(case.release(1.0, 1e-6), kind, 0.7)
                r = audit_release(f, D, D2, epsilon=1.0, delta=1e-6, trials=case.trials, output=case.output,
                                  rng=seed, n_jobs=2, selection=sel)
                caught += not r.passed
                bs.append(r.bound)
            print(kind, sel, f"caught {caught}/10", "median mu lb", round(float(np.median(bs)), 3),
                  f"{time.time() - t:.0f}s", flush=True)


if __name__ == "__main__":
    main()
