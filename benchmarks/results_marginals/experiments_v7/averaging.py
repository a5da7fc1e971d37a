# ruff: noqa: UP031, E501
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
total_it = int(sys.argv[2])
chunk = 5
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
rt = d["r"]
P = MarginalProjector(lay, w, tol=1e-3, max_iter=chunk)
E = P._empty
m = float(rt[E])
st = None
tot = 0
wins = [4, 10, 20, 40]  # in chunks
hist = []
first = {}
ema = {0.9: None, 0.97: None}
t0 = time.process_time()
while tot < total_it:
    c, info, st = P.solve_state(rt, on_fail="return", warm_start=st)
    tot += info["iterations"]
    hist.append(st.r.copy())
    hist = hist[-max(wins) :]
    th = {"inst": P._theta(lay.forward(st.r), m)}
    for W in wins:
        if len(hist) >= W:
            th[f"win{W * chunk}"] = P._theta(lay.forward(np.mean(hist[-W:], axis=0)), m)
    for a in ema:
        ema[a] = st.r.copy() if ema[a] is None else a * ema[a] + (1 - a) * st.r
        th[f"ema{a}"] = P._theta(lay.forward(ema[a]), m)
    for k, v in th.items():
        if v <= 1e-3 and k not in first:
            first[k] = tot
    if tot % 250 == 0:
        print(tot, {k: round(v, 4) for k, v in th.items()}, "%.0f" % (time.process_time() - t0), flush=True)
    if info["converged"]:
        print("converged", tot)
        break
print("first theta<=1e-3:", first)
