"""Peers of sosproj's marginal pipeline, implemented from their papers in numpy/scipy.

* :mod:`peers.residual`  ResidualPlanner: residual measurement, optimal allocation, exact replace-one
  sensitivity, best linear unbiased reconstruction, truncate-and-rescale;
* :mod:`peers.grem_lnn`  GReM-LNN: reconstruction under local non-negativity;
* :mod:`peers.data`      the benchmark datasets (CSV + domain JSON, planted binary data);
* ``run_private_pgm.py`` AIM / MST as smartnoise-synth ships them (run by the separate benchmark venv).

Benchmark code only: sosproj never imports it.
"""
