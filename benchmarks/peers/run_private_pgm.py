"""Runner for the Private-PGM peers AIM and MST as ``smartnoise-synth`` ships them.

Executed by the separate benchmark venv's python (``/work/venv-peers``, see docs/bench_peers.md), never
imported by sosproj::

    <venv-peers>/bin/python benchmarks/peers/run_private_pgm.py METHOD CSV DOMAIN_JSON EPS DELTA SEED OUT.npz

``METHOD`` is ``aim`` or ``mst``.  The records are read from the CSV and coded with the PUBLIC domain of
the JSON (columns matched by name, in the JSON's order), then handed to the package's own algorithm
(``AIMSynthesizer.AIM`` with the workload of all 3-way marginals and no cell limit;
``MSTSynthesizer.MST``), bypassing only the package's data transformer (which would infer the domain
from the data).  Privacy: the package calibrates zCDP ``rho = cdp_rho(EPS, DELTA)`` (OpenDP's
zCDP -> (eps, delta) conversion) under add/remove adjacency; the harness documents what that means
under replace-one.  Gaussian noise comes from OpenDP's CSPRNG (not seedable); ``SEED`` seeds numpy
(exponential mechanism, sampling).  OUT gets ``synth`` (m x d int codes, JSON attribute order),
``time`` (wall seconds, fit + sample), ``cpu`` (its CPU
seconds, this process) and ``maxrss_kb``.
"""

from __future__ import annotations

import io
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
    import itertools

    import pandas as pd
    from mbi import Dataset, Domain

    np.random.seed(seed)  # noqa: NPY002 - the package draws from numpy's legacy global generator
    with open(dom_json) as fh:
        sizes = json.load(fh)
    names = list(sizes)
    df = pd.read_csv(csv)[names]
    dom = Domain(names, [int(sizes[a]) for a in names])
    data = Dataset(df, domain=dom)
    m = len(df)
    t0, c0 = time.perf_counter(), time.process_time()
    with redirect_stdout(io.StringIO()):
        if method == "aim":
            from snsynth.aim.aim import AIMSynthesizer
            from snsynth.utils import cdp_rho

            syn = AIMSynthesizer(epsilon=eps, delta=delta, degree=3, max_cells=10**12)
            syn.rho = cdp_rho(eps, delta)
            workload = list(itertools.combinations(dom.attrs, 3))
            syn.AIM(data, workload)
            synth = syn.synthesizer.synthetic_data(rows=m).df[names].to_numpy()
        elif method == "mst":
            from snsynth.mst.mst import MSTSynthesizer

            syn = MSTSynthesizer(epsilon=eps, delta=delta)
            syn.MST(data, eps, delta)
            synth = syn.undo_compress_fn(syn.synthesizer.synthetic_data(rows=m)).df[names].to_numpy()
        else:
            raise SystemExit(f"unknown method {method!r}; use aim or mst")
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    np.savez(out, synth=np.asarray(synth, dtype=np.int64), time=elapsed, cpu=cpu,
             maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


if __name__ == "__main__":
    main()
