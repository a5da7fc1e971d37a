"""Run newton29's ``newton_only.py`` with module flags set first (issue 15, session 32; n100_30's script plus the
``rankone_newton`` flags).

Usage: PYTHONPATH=$PWD python benchmarks/results_support/n100_32/with_flags.py pn.FULL_SINGLE_RTOL=0.0 \
    rn.INNER_CHECK_FACTOR=None -- --n 48 --tensor 0 --tol 1e-6 --cache /tmp/x.pkl --opt dr_gap=0.3 --trace
(``pn.``: ``sosproj.sdp.partial_newton``, ``rn.``: ``sosproj.sdp.backends.rankone_newton``; a flag missing from
the code on PYTHONPATH, e.g. main's snapshot, is an error.)
"""
import runpy
import sys

from sosproj.sdp import partial_newton as pn
from sosproj.sdp.backends import rankone_newton as rn

mods = {"pn": pn, "rn": rn}
i = sys.argv.index("--")
for kv in sys.argv[1:i]:
    k, v = kv.split("=", 1)
    m, name = k.split(".", 1)
    assert hasattr(mods[m], name), k
    setattr(mods[m], name, eval(v))
    print(f"{m}.{name} = {getattr(mods[m], name)!r}", flush=True)
sys.argv = ["newton_only.py"] + sys.argv[i + 1:]
g = runpy.run_path("benchmarks/results_support/newton29/newton_only.py", run_name="__main__")
info = g["res"].info
print("inner: " + " ".join(f"{k}={info.get(k)}" for k in ("newton_inner_checks", "newton_inner_stop")), flush=True)
