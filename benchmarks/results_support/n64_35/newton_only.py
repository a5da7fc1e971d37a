"""(n64_35: copied from ``newton29/newton_only.py``, plus ``--pn KEY=VALUE`` to set ``sosproj.sdp.partial_newton``
module constants, e.g. ``--pn MAX_NEGATIVE=24``.)

The Newton phase of ``rankone_newton`` alone, from a cached rough phase (issue 15, session 29, branch newton29;
copied from ``n64_28/newton_only.py``, plus ``--time-limit``, ``--rough-only`` and per-phase timings).

The first run of a (n, tensor) computes the candidate and the rough Douglas-Rachford dual with the code on
PYTHONPATH and pickles ``_rough_dual``'s return to ``--cache``; later runs load it, so only the Newton phase (and
the candidate, ~1 s) is timed. Prints the CPU / wall of the whole solve and of the Newton phase, and the
per-Newton-step face sizes (``--trace``).

Usage: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD \
    python benchmarks/results_support/n64_28/newton_only.py \
    --n 64 --tensor 0 --cache /tmp/n64_rough_64_0.pkl [--trace]
"""
import argparse
import os
import pickle
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--tensor", type=int, default=0)
ap.add_argument("--tol", type=float, default=1e-6)
ap.add_argument("--cache", required=True)
ap.add_argument("--trace", action="store_true")
ap.add_argument("--time-limit", type=float, default=None)
ap.add_argument("--rough-only", action="store_true", help="write the cache and stop")
ap.add_argument("--profile", type=int, default=0, help="print this many lines of a CPU-time cProfile of the solve")
ap.add_argument("--opt", nargs="*", default=[], help="backend options key=value (python literals)")
ap.add_argument("--pn", nargs="*", default=[], help="partial_newton module constants KEY=value (python literals)")
ap.add_argument("--ssnal", nargs="*", default=[], help="ssnal class defaults key=value (python literals)")
a = ap.parse_args()
R = MomentRelaxation(unit_ball(a.n), 4)
rng = np.random.default_rng([2026, a.n])
for _ in range(a.tensor + 1):
    W = rng.standard_normal((a.n, a.n, a.n))
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", a.tol, 3)
for kv in a.opt:
    k, v = kv.split("=", 1)
    settings[k] = eval(v)
for kv in a.ssnal:
    k, v = kv.split("=", 1)
    rn.SsnalBackend.options[k] = eval(v)
from sosproj.sdp import partial_newton as _pn  # noqa: E402

for kv in a.pn:
    k, v = kv.split("=", 1)
    assert hasattr(_pn, k), k
    setattr(_pn, k, eval(v))
orig = rn.RankOneNewtonBackend._rough_dual
times = {}


def cached(self, q, pv, deadline):
    if os.path.exists(a.cache):
        with open(a.cache, "rb") as fh:
            out = pickle.load(fh)
    else:
        c0, t0 = time.process_time(), time.perf_counter()
        out = orig(self, q, pv, deadline)
        with open(a.cache, "wb") as fh:
            pickle.dump(out, fh)
        print(f"rough phase: cpu {time.process_time() - c0:.1f}s wall {time.perf_counter() - t0:.1f}s "
              f"steps {out[1]} status {out[2]} | load {os.getloadavg()[0]:.2f}", flush=True)
        if a.rough_only:
            raise SystemExit(0)
    times["rough_end"] = (time.process_time(), time.perf_counter())
    return out


rn.RankOneNewtonBackend._rough_dual = cached
if a.trace:
    from sosproj.sdp import partial_newton as pn
    dec = pn.PartialPsdBlock.decompose

    def traced(self, w):
        c0 = time.process_time()
        out = dec(self, w)
        print(f"   decompose: k={self.lam_n.size if self.partial else f'full (neg {self.d - self.npos})'} "
              f"lam={np.round(self.lam_n if self.partial else self.lam[:min(12, self.d - self.npos)], 4)} "
              f"cpu {time.process_time() - c0:.2f}s", flush=True)
        return out
    pn.PartialPsdBlock.decompose = traced
    init = rn._FaceSsnal.__init__

    def verbose_init(self, *args, **kw):
        init(self, *args, **kw)
        self.newton_verbose = True
    rn._FaceSsnal.__init__ = verbose_init
STATS: dict = {}


def _timed(cls, name, label, show=False):
    fn = getattr(cls, name)

    def wrapped(*args, **kw):
        c0 = time.process_time()
        out = fn(*args, **kw)
        dt = time.process_time() - c0
        n, tot = STATS.get(label, (0, 0.0))
        STATS[label] = (n + 1, tot + dt)
        if show:
            extra = ""
            if isinstance(out, dict) and "lower" in out:
                extra = (f" lower {out['lower']:.9f} lam_min {out['lambda_min_dual']:.3e} "
                         f"dres {out['dual_residual_inf']:.2e}")
            print(f"   {label}: cpu {dt:.2f}s{extra}", flush=True)
        return out
    setattr(cls, name, wrapped)


if a.trace:
    from sosproj.sdp import partial_newton as pn2
    from sosproj.sdp import support_bounds as sb2
    from sosproj.sdp.backends import ssnal as ss2
    _timed(sb2.SupportCertifier, "lower", "certifier.lower", show=True)
    _timed(sb2.SupportCertifier, "bounds", "certifier.bounds", show=True)
    _timed(pn2.PartialPsdBlock, "jacobian", "jacobian product")
    _timed(pn2.PartialPsdBlock, "_resolvents", "resolvent Choleskys")
    _timed(pn2.PartialPsdBlock, "tangent", "tangent (Woodbury factors)")
    _timed(ss2.SsnalBackend, "_woodbury", "woodbury build")
    _timed(ss2.SsnalBackend, "_phi", "phi (line search evals)")
    _timed(ss2.SsnalBackend, "_newton_dir", "newton_dir (CG)", show=True)
cs0 = time.process_time()
solver = ConicSolver(prob, "rankone_newton", tol=a.tol, time_limit=a.time_limit, **settings)
setup_cpu = time.process_time() - cs0
if a.profile:
    import cProfile
    import pstats
    pr = cProfile.Profile(time.process_time)
    pr.enable()
c0, t0 = time.process_time(), time.perf_counter()
res = solver.solve(on_fail="return")
c1, t1 = time.process_time(), time.perf_counter()
if a.profile:
    pr.disable()
cr, tr = times["rough_end"]
print(f"n={a.n} tensor {a.tensor}: setup cpu {setup_cpu:.2f}s | "
      f"total cpu {c1 - c0:.2f}s wall {t1 - t0:.2f}s | after rough phase cpu {c1 - cr:.2f}s "
      f"wall {t1 - tr:.2f}s | status {res.status} gap {res.info.get('cert_relative_gap'):.2e} "
      f"upper {-res.info.get('cert_lower', np.nan):.9f} | " + " ".join(
          f"{k}={res.info.get(k)}" for k in ("dr_iterations", "newton_rounds", "newton_steps", "newton_cg",
                                             "newton_update_checks", "partial_decompositions",
                                             "full_decompositions", "missed_decompositions"))
      + f" | load {os.getloadavg()[0]:.2f}", flush=True)
for k, (cnt, tot) in STATS.items():
    print(f"  {k:30s} calls {cnt:5d} cpu {tot:8.2f}s", flush=True)
if a.profile:
    pr.dump_stats(f"/tmp/n64_newton_{a.n}_{a.tensor}.prof")
    pstats.Stats(pr).sort_stats("cumulative").print_stats(a.profile)
    pstats.Stats(pr).sort_stats("tottime").print_stats(25)
