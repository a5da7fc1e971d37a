"""Run newton29's ``newton_only.py`` with ``partial_newton`` module flags set first (issue 15, session 30).

Usage: PYTHONPATH=$PWD python benchmarks/results_support/n100_30/with_flags.py FULL_TANGENT=True -- \
    --n 48 --tensor 0 --tol 1e-6 --cache /tmp/x.pkl --opt dr_gap=0.3 --trace
"""
import runpy
import sys

from sosproj.sdp import partial_newton as pn

i = sys.argv.index("--")
for kv in sys.argv[1:i]:
    k, v = kv.split("=", 1)
    assert hasattr(pn, k), k
    setattr(pn, k, eval(v))
    print(f"partial_newton.{k} = {getattr(pn, k)!r}", flush=True)
sys.argv = ["newton_only.py"] + sys.argv[i + 1:]
runpy.run_path("benchmarks/results_support/newton29/newton_only.py", run_name="__main__")
