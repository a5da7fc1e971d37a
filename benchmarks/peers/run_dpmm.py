"""Runner for AIM and MST as ``dpmm`` ships them (the private-pgm authors' mechanisms, adapted), a cross-check of
``run_private_pgm.py`` (smartnoise-synth).

Executed by a separate benchmark venv's python (``/work/venv-dpmm``: ``pip install dpmm==0.1.9``), never imported
by sosproj; same arguments and output as ``run_private_pgm.py``::

    <venv-dpmm>/bin/python benchmarks/peers/run_dpmm.py METHOD CSV DOMAIN_JSON EPS DELTA SEED OUT.npz

``dpmm.models.aim.AIM`` is private-pgm's ``mechanisms/aim.py`` (``FactoredInference`` warm-started across the
rounds, 1,000 iterations per estimate, ``max_model_size`` 80 MB: the authors' defaults for official comparisons)
and ``dpmm.models.mst.MST`` its ``mechanisms/mst.py``. The records are coded with the PUBLIC domain of the JSON
(columns matched by name, in the JSON's order) and handed to the mechanism with that domain, bypassing only the
package's data transformer (which would infer the domain from the data); AIM's workload is all 3-way marginals
with no cell limit (as in ``run_private_pgm.py``). Privacy: zCDP ``rho = cdp_rho(EPS, DELTA)`` under add/remove
adjacency, as for the smartnoise runner. ``SEED`` seeds the mechanism's ``RandomState`` (selection, sampling; the
noise as well where dpmm draws it from numpy). OUT gets ``synth`` (m x d int codes, JSON attribute order),
``time`` (wall seconds, fit + sample), ``cpu`` (its CPU seconds) and ``maxrss_kb``.
"""

from __future__ import annotations

import io
import itertools
import json
import resource
import sys
import time
import warnings
from contextlib import redirect_stdout

import numpy as np

warnings.filterwarnings("ignore")


def main() -> None:
    method, csv, dom_json, eps, delta, seed, out = sys.argv[1:8]
    eps, delta, seed = float(eps), float(delta), int(seed)
    import pandas as pd

    with open(dom_json) as fh:
        sizes = json.load(fh)
    names = list(sizes)
    df = pd.read_csv(csv)[names].astype(int)
    m = len(df)
    prng = np.random.RandomState(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    with redirect_stdout(io.StringIO()):
        if method == "aim":
            from dpmm.models.aim import AIM

            mech = AIM(epsilon=eps, delta=delta, prng=prng, degree=3, max_cells=10**12, n_jobs=1,
                       domain={a: int(sizes[a]) for a in names})
            mech.fit(df, W=[(cl, 1.0) for cl in itertools.combinations(names, 3)])
        elif method == "mst":
            from dpmm.models.mst import MST

            mech = MST(epsilon=eps, delta=delta, prng=prng, n_jobs=1, domain={a: int(sizes[a]) for a in names})
            mech.fit(df)
        else:
            raise SystemExit(f"unknown method {method!r}; use aim or mst")
        synth = mech.generate(n_records=m)[names].to_numpy()
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    np.savez(out, synth=np.asarray(synth, dtype=np.int64), time=elapsed, cpu=cpu,
             maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


if __name__ == "__main__":
    main()
