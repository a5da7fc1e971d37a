"""Small-domain checks of the prototype: oracle vs brute force, Gram vs features, master vs cvxpy (Clarabel)."""
import itertools

import cvxpy as cp
import numpy as np
from catjoint37_proto import Oracle, Problem, centre

rng = np.random.default_rng(0)
sizes = (3, 5, 2, 4)
sets = [A for j in (1, 2, 3) for A in itertools.combinations(range(4), j)]
tabs = [rng.standard_normal(tuple(sizes[a] for a in A)) for A in sets]
v, X = Oracle(sizes, sets)(tabs, 7)
allp = np.array(list(itertools.product(*[range(s) for s in sizes])))
vals = sum(T[tuple(allp[:, a] for a in A)] for A, T in zip(sets, tabs, strict=True))
print("oracle: 7 smallest vs brute force, max abs diff", float(np.abs(np.sort(vals)[:7] - v).max()))
sizes = (3, 2, 4)
sets = [A for j in (1, 2) for A in itertools.combinations(range(3), j)]
y = [centre(rng.standard_normal(tuple(sizes[a] for a in A))) for A in sets]
w = rng.random(len(sets)) + 0.5
pr = Problem(sizes, sets, w, y, 10.0)
X = np.array(list(itertools.product(*[range(s) for s in sizes])))
K, b = pr.gram(X)
F = pr.features(X)
print("Gram vs features: max abs diff", float(np.abs(F.T @ F - K).max()))
q = pr.master_features(X)
qv = cp.Variable(len(X))
prob = cp.Problem(cp.Minimize(cp.sum_squares(F @ qv - np.concatenate(pr._t))), [qv >= 0, cp.sum(qv) == 10])
prob.solve(solver="CLARABEL")
print("master objective", pr.objective(X, q), "cvxpy/Clarabel", prob.value)
fit = pr.solve(tol=1e-9, master="features")
print("column generation from scratch", fit["objective"], "certified gap", fit["gap"], "support", fit["support"])
