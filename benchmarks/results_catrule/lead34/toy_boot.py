"""Toy check of the L1 bootstrap choice on single histograms (lead34; information, written before the rule).

Titanic's Age and Fare counts at the noise scales of the default release (epsilon 1 / 0.3 and the tau_1 = 0 variant),
and three Dirichlet(a) vectors of 30 values (a = 0.5, 2, 50) at sigma 60: the L1 error / m of the raw table, the
James-Stein table and the bootstrap's choice (40 draws), with the James-Stein or the raw table as the pilot; 300
noise draws each. Usage: python benchmarks/results_catrule/lead34/toy_boot.py > toy_boot.txt
"""

import numpy as np

import sosproj as sp
from sosproj.sdp.simplex import project_simplex

ds = sp.load_dataset("titanic")
m = ds.m


def tables(y, sig, n):
    f = max(0.0, 1 - (n - 3) * sig**2 / (y @ y)) if y @ y > 0 else 0.0
    return {"raw": project_simplex(m / n + y, m), "js": project_simplex(m / n + f * y, m)}


def choose(y, sig, n, rng, pilot, draws=40):
    xt = tables(y, sig, n)[pilot]
    loss = {"raw": 0.0, "js": 0.0}
    for _ in range(draws):
        z = rng.standard_normal(n)
        tb = tables((xt - m / n) + sig * (z - z.mean()), sig, n)
        for k in loss:
            loss[k] += np.abs(tb[k] - xt).sum()
    return min(loss, key=loss.get)


rng = np.random.default_rng(0)
cases = [("Age", np.bincount(ds.records[:, 3], minlength=91).astype(float), s) for s in (47.6, 99.4)]
cases += [("Fare", np.bincount(ds.records[:, 6], minlength=32).astype(float), s) for s in (80.7, 37.4)]
for a in (0.5, 2.0, 50.0):
    cases.append((f"dirichlet({a})", np.random.default_rng(5).dirichlet(np.full(30, a)) * m, 60.0))
print("pilot case sigma L1/m: raw js choice")
for pilot in ("js", "raw"):
    for name, c, sig in cases:
        n = c.size
        err = {"raw": [], "js": [], "choice": []}
        for _ in range(300):
            z = rng.standard_normal(n)
            y = (c - m / n) + sig * (z - z.mean())
            t = tables(y, sig, n)
            t["choice"] = t[choose(y, sig, n, rng, pilot)]
            for k in err:
                err[k].append(np.abs(t[k] - c).sum() / m)
        print(pilot, name, sig, " ".join(f"{np.mean(err[k]):.3f}" for k in ("raw", "js", "choice")), flush=True)
