"""Prototype: converged rank-one candidates (batched Riemannian Newton with Hessian modification)."""
import sys
import time

import numpy as np

from sosproj.certificates.checks.injective_norm import symmetrize_tensor
from sosproj.sdp.lowrank_support import TensorRounding


def old(T, starts=128, iters=100, polish=4, rng=0):
    tr = object.__new__(TensorRounding)
    tr.k = T.ndim
    tr.tensor = lambda q: T
    return tr.best_point(None, starts=starts, iters=iters, polish=polish, rng=rng)


def mats(T, Z):
    """H[a] = T(., ., z_a) for k = 3: (A, n, n)."""
    n = T.shape[0]
    return np.moveaxis((T.reshape(n * n, n) @ Z).reshape(n, n, -1), 2, 0)


def newton_ascent(T, starts=128, rng=0, iters=60, tol=1e-10, warm=0, shift0=None, prune=None):
    n = T.shape[0]
    k = 3
    gen = np.random.default_rng(rng)
    Z = gen.standard_normal((n, starts))
    Z /= np.linalg.norm(Z, axis=0)
    for _ in range(warm):            # plain power steps
        G = np.einsum("aij,ja->ia", mats(T, Z), Z)
        Z = G / np.linalg.norm(G, axis=0)
    S = Z.shape[1]
    radius = np.full(S, 0.5)
    f_old = np.full(S, -np.inf)
    Z_old = Z.copy()
    done = np.zeros(S, bool)
    vals = np.full(S, -np.inf)
    it_used = 0
    evals = 0
    for it in range(iters):
        act = np.flatnonzero(~done)
        if act.size == 0:
            break
        it_used += 1
        evals += act.size
        Za = Z[:, act]
        H = mats(T, Za)
        G = np.einsum("aij,ja->ia", H, Za)
        lam = np.einsum("ia,ia->a", Za, G)
        # reject steps that lowered the value: back to the old point, smaller radius
        bad = lam < f_old[act] - 1e-14 * np.abs(f_old[act])
        if bad.any():
            b = act[bad]
            Z[:, b] = Z_old[:, b]
            radius[b] *= 0.25
            Za = Z[:, act]
            Hb = mats(T, Z[:, b])
            H[bad] = Hb
            G[:, bad] = np.einsum("aij,ja->ia", Hb, Z[:, b])
            lam[bad] = np.einsum("ia,ia->a", Z[:, b], G[:, bad])
            evals += b.size
        vals[act] = lam
        grad = G - lam * Za
        gn = np.linalg.norm(grad, axis=0)
        # Riemannian Hessian on the tangent space: P((k-1)H - lam I)P, with -1 on z
        M = (k - 1) * H - lam[:, None, None] * np.eye(n)
        Mz = np.einsum("aij,ja->ai", M, Za)
        zMz = np.einsum("ai,ia->a", Mz, Za)
        M = (M - np.einsum("ia,aj->aij", Za, Mz) - np.einsum("ai,ja->aij", Mz, Za)
             + (zMz + 1.0)[:, None, None] * np.einsum("ia,ja->aij", Za, Za))
        M -= 2.0 * np.einsum("ia,ja->aij", Za, Za)  # z eigenvalue -1
        e, U = np.linalg.eigh(M)
        emax = e[:, -1]
        conv = (gn <= tol * np.maximum(1.0, np.abs(lam))) & (emax < 0)
        scale = np.maximum(1.0, np.abs(lam))
        mu = np.maximum(0.0, emax + 1e-2 * scale)
        c = np.einsum("aji,ja->ai", U, grad)
        d = -np.einsum("aij,aj->ia", U, c / (e - mu[:, None]))
        dn = np.linalg.norm(d, axis=0)
        sc = np.minimum(1.0, radius[act] / np.maximum(dn, 1e-300))
        d *= sc
        radius[act[~bad]] = np.minimum(1.0, radius[act[~bad]] * 2.0)
        Z_old[:, act] = Za
        f_old[act] = lam
        Zn = Za + d
        Zn /= np.linalg.norm(Zn, axis=0)
        Z[:, act] = Zn
        done[act[conv]] = True
        Z[:, act[conv]] = Za[:, conv]
        if prune is not None and it >= 3:
            best = vals.max()
            low = (~done) & (vals < best - prune * abs(best))
            done[low] = True
    b = int(np.argmax(vals))
    return float(vals[b]), Z[:, b], it_used, evals, int(done.sum())


def kkt(T, z):
    G = np.einsum("ijk,j,k->i", T, z, z)
    lam = float(z @ G)
    return float(np.linalg.norm(G - lam * z)) / max(1.0, abs(lam))


if __name__ == "__main__":
    ns = [int(a) for a in sys.argv[1:]] or [30, 64, 100]
    for n in ns:
        rng = np.random.default_rng([2026, n])
        for t in range(3):
            T = symmetrize_tensor(rng.standard_normal((n, n, n)))
            out = []
            c0 = time.process_time()
            v, z = old(T)
            out.append(f"old {v:.6f} kkt {kkt(T, z):.1e} ({time.process_time() - c0:.2f}s)")
            c0 = time.process_time()
            v, z, its, ev, nd = newton_ascent(T)
            out.append(f"newton {v:.6f} kkt {kkt(T, z):.1e} it {its} ev {ev} ({time.process_time() - c0:.2f}s)")
            c0 = time.process_time()
            v, z, its, ev, nd = newton_ascent(T, warm=10)
            out.append(f"newton_w10 {v:.6f} kkt {kkt(T, z):.1e} it {its} ev {ev} ({time.process_time() - c0:.2f}s)")
            print(n, t, " | ".join(out), flush=True)
