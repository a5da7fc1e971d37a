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


print("adjoint", tm(lambda: lay.adjoint(t)))


def reductions():
    for G, _fcs in zip(lay.tab_groups, lay._faces):
        S = G.shape
        T = t[G.start : G.stop].reshape((len(G.members), *S))
        for p in range(len(S)):
            if p == len(S) - 1 and S[p] > 1:
                (T.reshape(-1, S[p]) @ np.full(S[p], 1.0 / S[p])).reshape(T.shape[:-1])
            else:
                np.add.reduce(T, axis=p + 1) * (1.0 / S[p])


print("reductions", tm(reductions))


def reductions2():
    for G, _fcs in zip(lay.tab_groups, lay._faces):
        S = G.shape
        T = t[G.start : G.stop].reshape((len(G.members), *S))
        m2 = T.sum(axis=3)
        m2.sum(axis=2)  # not same


print("reductions chained", tm(reductions2))


def fullsub():
    for G, _fcs in zip(lay.tab_groups, lay._faces):
        S = G.shape
        T = t[G.start : G.stop].reshape((len(G.members), *S))
        X = np.empty_like(T)
        c0 = np.zeros((T.shape[0], 1, S[1], S[2]))
        c1 = np.zeros((T.shape[0], S[0], 1, S[2]))
        c2 = np.zeros((T.shape[0], S[0], S[1], 1))
        np.subtract(T, c0, out=X)
        X -= c1
        X -= c2


print("full subtract (incl small allocs)", tm(fullsub))
print(
    "ngroups",
    len(lay.tab_groups),
    "sizes",
    sorted([len(G.members) for G in lay.tab_groups])[-5:],
    "min cells",
    min(G.stop - G.start for G in lay.tab_groups),
)
print("bincount", tm(lambda: np.bincount(lay._face_pos, weights=np.ones(lay._face_pos.size), minlength=lay.res_size)))
