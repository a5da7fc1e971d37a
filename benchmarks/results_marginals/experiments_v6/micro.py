import cProfile
import pstats
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way

d = np.load("/tmp/meas_adult_1.0_0.npz")
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
r = d["r"]
t = lay.forward(r)


def tm(f, n=20):
    f()
    a = time.process_time()
    for _ in range(n):
        f()
    return (time.process_time() - a) / n * 1e3


buf = np.empty_like(t)
rb = np.empty_like(r)
print("forward", tm(lambda: lay.forward(r)))
print("adjoint", tm(lambda: lay.adjoint(t)))
print("abs out", tm(lambda: np.abs(t, out=buf)))
print("abs alloc", tm(lambda: np.abs(t)))
print("mul res out", tm(lambda: np.multiply(r, r, out=rb)))
print("min", tm(lambda: t.min()))
print("norm", tm(lambda: np.linalg.norm(t)))
print("dot", tm(lambda: t @ t))
print("bincount", tm(lambda: np.bincount(lay._face_pos, weights=t[: lay._face_pos.size], minlength=lay.res_size)))
print("gather faces", tm(lambda: r[lay._face_pos]))
print("face_pos size", lay._face_pos.size, "tab", lay.tab_size, "res", lay.res_size)

cProfile.run("for _ in range(10): lay.adjoint(t)", "/tmp/as/adj.prof")
pstats.Stats("/tmp/as/adj.prof").sort_stats("tottime").print_stats(8)
cProfile.run("for _ in range(10): lay.forward(r)", "/tmp/as/fwd.prof")
pstats.Stats("/tmp/as/fwd.prof").sort_stats("tottime").print_stats(8)
