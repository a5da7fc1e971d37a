"""Check that variant ``main`` of oneway_study.py is main 72e9960's release bit for bit: the same cells / seeds as the
fit rows, released by whatever ``sosproj`` is on PYTHONPATH (a 72e9960 snapshot, or this branch with the study knobs
off), printed with 6 decimals as in the raw rows. Usage: PYTHONPATH=SNAPSHOT:$PWD python check_main.py"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import oneway_study as ow  # noqa: E402
from catrule_study import score  # noqa: E402

import sosproj  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

print(f"# sosproj from {Path(sosproj.__file__).parent}")
for name, eps, seed in (("tit9-m1k", 0.1, 0), ("F:f-flat-m900", 0.03, 3), ("cat8-m400", 0.3, 1),
                        ("I:i-small-m350", 0.3, 5), ("tit9-geo5-m1k", 1.0, 2)):
    ds = ow.load(name)
    truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, options={"on_fail": "return"})
    err, meas = score(rel, truth, ds.m)
    print(f"{name} {eps:g} main {seed} {err:.6f} {meas}")
