"""Benchmark: projecting a noisy order-3 moment tensor onto degree-4 pseudo-moment sets.

Compares, in one run and on the same inputs, sosproj's structured ADMM
(``solver="admm"``; ``"auto"`` runs it below order 400), its projection variant (``solver="lowrank"``:
smaller-side spectral projection, float32 early, projection penalty; ``"auto"`` from order 400),
its semismooth Newton augmented
Lagrangian extension (``solver="ssnal"``, phase one ADMM then Newton-CG), direct SCS (sosproj's compiled
conic form, native quadratic objective), direct Clarabel, and the same model
written in cvxpy and solved by SCS (cvxpy+SCS), all at the same tolerance. Each (case,
solver) runs in a fresh subprocess so that the peak resident memory (ru_maxrss) is
its own; times are medians of ``--repeat`` runs (single runs for large n).
Reported: build time (compilation to conic form + solver workspace; for
cvxpy: model construction + canonicalization), solve time, total, iterations,
the recomputed relative residuals and gap, peak memory, the largest entry-wise
difference to the direct-SCS answer, and the end-to-end time ratios to direct SCS
and to cvxpy+SCS, and (columns "x admm", "|dX| admm") the time ratio and largest
orbit difference to the ADMM in the same run. BLAS threads: ``OPENBLAS_NUM_THREADS`` (default 1).

Inputs (``--regime``):

* ``dp``: a planted data set of m = 2000 rows (unit sphere points, or Boolean rows
  with planted correlations), T = mean of x^(tensor 3), plus i.i.d. Gaussian noise on
  all n^3 entries at the level of the Gaussian mechanism with epsilon = 1,
  delta = 1e-6 and the paper's sensitivity 2/m (sigma ~ 0.0042);
* ``boundary``: 20 atoms on the sphere plus noise 0.05: the projection lands on a
  degenerate face (the slowest case for first-order methods).

A solver may carry settings as ``name:{json}`` (e.g. ``'lowrank:{"rho_factor": 1}'``), and the prefix
``base/`` (e.g. ``base/lowrank``) runs it from another copy of sosproj (``--baseline-tree``, e.g.
``git archive e4cbbe6 sosproj | tar -x -C /tmp/base``) in the same run; the CPU
seconds of each case's process and the load average at its start and end are reported with the
wall times.

Usage::

    python benchmarks/moment_projection.py                       # full grid (long)
    python benchmarks/moment_projection.py --quick               # n in {8, 12}
    python benchmarks/moment_projection.py --system unit_ball --n 30 --solvers admm scs --regime dp
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

TOL = 1e-6
CLARABEL_MAX_ORDER = 50       # dense KKT blocks beyond this take minutes per iteration on 2 cores
if os.environ.get("SOSPROJ_BENCH_CLARABEL_MAX_ORDER"):
    CLARABEL_MAX_ORDER = int(os.environ["SOSPROJ_BENCH_CLARABEL_MAX_ORDER"])


def make_input(system: str, n: int, regime: str, seed: int = 0):
    from sosproj.poly import MomentRelaxation, boolean_cube, unit_ball
    from sosproj.privacy.calibration import gaussian_sigma

    rng = np.random.default_rng(seed)
    R = MomentRelaxation((unit_ball if system == "unit_ball" else boolean_cube)(n), 4)
    ro = R.readout(3)
    if system == "unit_ball":
        atoms = 2000 if regime == "dp" else 20
        X = rng.standard_normal((atoms, n))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    else:
        atoms = 2000
        z = rng.random((atoms, 1)) < 0.5
        p = np.where(z, 0.7, 0.2) * rng.uniform(0.5, 1.0, size=(1, n))
        X = (rng.random((atoms, n)) < p).astype(float)
    T = np.einsum("ri,rj,rk->ijk", X, X, X) / len(X)
    sigma = gaussian_sigma(1.0, 1e-6, 2.0 / 2000) if regime == "dp" else 0.05
    Y = T + sigma * rng.standard_normal(T.shape)
    return R, ro, Y


def cvxpy_model(R, ro, Y):
    """The projection written directly in cvxpy (orbit-weighted least squares, blocks >> 0)."""
    import cvxpy as cp

    y = cp.Variable(R.n_moments)
    cons = []
    for blk in R.psd_blocks:
        if blk.order == 1:
            cons.append(blk.A @ y >= 0)
        else:
            M = cp.reshape(blk.A @ y, (blk.order, blk.order), order="C")
            cons.append((M + M.T) / 2 >> 0)
    A_eq, b_eq = R.equalities
    cons.append(A_eq @ y == b_eq)
    w = np.asarray(ro.weights, dtype=float)
    Ybar = ro.from_tensor(Y)
    obj = cp.sum(cp.multiply(w, cp.square(ro.matrix @ y - Ybar)))
    return cp.Problem(cp.Minimize(obj), cons), y


def run_case(system: str, n: int, solver: str, regime: str, time_limit: float | None, tol: float = TOL) -> dict:
    from sosproj.sdp.compile import compile_projection
    from sosproj.sdp.solve import ConicSolver

    R, ro, Y = make_input(system, n, regime)
    out = {"system": system, "n": n, "order": R.psd_blocks[0].order, "n_moments": R.n_moments,
           "solver": solver, "regime": regime, "load_start": os.getloadavg()[0]}
    # "name" or "name:{json settings}" (e.g. lowrank:{"rho_factor": 1, "anderson": 10})
    name, _, spec = solver.partition(":")
    settings = json.loads(spec) if spec else {}
    c0 = time.process_time()
    if name in ("scs", "clarabel", "admm", "ssnal", "lowrank", "auto"):
        t0 = time.perf_counter()
        prob = compile_projection(R, 3, Y, solver=name)
        ws = ConicSolver(prob, name, tol=tol, time_limit=time_limit, **settings)
        t1 = time.perf_counter()
        res = ws.solve(on_fail="return")
        t2 = time.perf_counter()
        out["backend"] = res.solver
        y = res.x
        out.update(build=t1 - t0, solve=t2 - t1, iterations=res.iterations, status=res.status,
                   pres=res.primal_residual, dres=res.dual_residual, gap=res.duality_gap)
        # ssnal's phases: ADMM iterations, Newton steps, CG iterations, multiplier updates, final penalty
        out.update({key: float(val) for key, val in res.info.items()
                    if (name == "ssnal" and (key.startswith("ssnal_") or key in ("admm_iterations", "admm_time")))
                    or key.startswith("side_") or key.startswith("admm_rho")})
    else:
        t0 = time.perf_counter()
        model, yv = cvxpy_model(R, ro, Y)
        data = model.get_problem_data("SCS")          # canonicalization, timed as build
        t1 = time.perf_counter()
        kw = {"eps_abs": tol, "eps_rel": tol, "max_iters": 100_000}
        if time_limit:
            kw["time_limit_secs"] = time_limit
        model.solve(solver="SCS", **kw)
        t2 = time.perf_counter()
        stats = model.solver_stats
        solve_only = float(stats.solve_time or 0.0)
        y = yv.value
        # cvxpy's solve() re-runs canonicalization (cached); count its own solver time as solve
        out.update(build=(t1 - t0) + max(0.0, (t2 - t1) - solve_only), solve=solve_only,
                   iterations=int(stats.num_iters or 0), status=model.status, pres=None, dres=None, gap=None)
        del data
    out["total"] = out["build"] + out["solve"]
    out["cpu"] = time.process_time() - c0
    out["load_end"] = os.getloadavg()[0]
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    if y is not None:
        out["X_orbits"] = np.asarray(ro(np.asarray(y))).tolist()
    return out


#: solver prefix of runs from the baseline tree (``--baseline-tree``)
BASE_PREFIX = "base/"


def spawn(system: str, n: int, solver: str, regime: str, time_limit: float | None, timeout: float,
          tol: float = TOL, baseline_tree: str | None = None) -> dict:
    env = dict(os.environ)
    if solver.startswith(BASE_PREFIX):
        if not baseline_tree or not os.path.isdir(os.path.join(baseline_tree, "sosproj")):
            raise SystemExit(f"{solver}: --baseline-tree must name a directory holding a sosproj package")
        solver = solver[len(BASE_PREFIX):]
        env["PYTHONPATH"] = os.path.abspath(baseline_tree)
    cmd = [sys.executable, __file__, "--child", system, str(n), solver, regime, str(time_limit or 0), str(tol)]
    env.setdefault("OMP_NUM_THREADS", "2")
    # one BLAS thread: on an oversubscribed 2-core machine a threaded eigh was 40x slower
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"system": system, "n": n, "solver": solver, "regime": regime, "status": f"timeout>{timeout:.0f}s"}
    lines = [ln for ln in cp.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"system": system, "n": n, "solver": solver, "regime": regime,
                "status": "crashed: " + (cp.stderr.strip().splitlines() or ["?"])[-1][:80]}
    return json.loads(lines[-1])


def fmt(v, spec):
    width = int("".join(ch for ch in spec.split(".")[0] if ch.isdigit()) or 0)
    return "-".rjust(width) if v is None else format(v, spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--tol", type=float, default=TOL, help=f"solver tolerance (default {TOL})")
    ap.add_argument("--quick", action="store_true", help="only n in {8, 12}")
    ap.add_argument("--system", choices=["unit_ball", "boolean_cube"], default=None)
    ap.add_argument("--n", type=int, nargs="*", default=None)
    ap.add_argument("--solvers", nargs="*", default=["admm", "scs", "clarabel", "cvxpy+scs"])
    ap.add_argument("--regime", choices=["dp", "boundary"], default="dp")
    ap.add_argument("--time-limit", type=float, default=None, help="solver time limit (s)")
    ap.add_argument("--timeout", type=float, default=900.0, help="wall limit per case (s)")
    ap.add_argument("--json", default=None, help="write all rows to this JSON file")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case (medians reported)")
    ap.add_argument("--repeat-max-n", type=int, default=16, help="repeat only cases with n <= this")
    ap.add_argument("--baseline-tree", default=None,
                    help="directory with another sosproj package, for solvers named base/NAME")
    args = ap.parse_args()
    if args.child:
        system, n, solver, regime, tl = args.child[:5]
        tol = args.child[5] if len(args.child) > 5 else TOL
        import sosproj

        row = run_case(system, int(n), solver, regime, float(tl) or None, float(tol))
        row["sosproj_path"] = os.path.dirname(os.path.dirname(os.path.abspath(sosproj.__file__)))
        print(json.dumps(row))
        return
    grid = {"unit_ball": [8, 12, 16, 24, 30], "boolean_cube": [12, 20, 30]}
    if args.quick:
        grid = {"unit_ball": [8, 12], "boolean_cube": [12]}
    if args.system:
        grid = {args.system: args.n or grid[args.system]}
    rows = []
    if args.baseline_tree:
        print(f"# base/ solvers run sosproj from {os.path.abspath(args.baseline_tree)}")
    print(f"# regime={args.regime} tol={args.tol} OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '2')} "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '1')} "
          f"medians of {args.repeat} runs for n <= {args.repeat_max_n}, single runs above")
    head = (f"{'system':<13}{'n':>3}{'order':>6}{'N':>8} {'solver':<14}{'build s':>9}{'solve s':>9}"
            f"{'total s':>9}{'iters':>7} {'status':<12}{'pres':>9}{'dres':>9}{'gap':>9}{'peak MiB':>9}"
            f"{'|dX|':>9}{'x scs':>7}{'x cvx':>7}{'build%':>9}{'x admm':>7}{'|dX| admm':>10}{'cpu s':>9}"
            f"{'cpu/admm':>8}{'load0':>6}{'load1':>6}")
    print(head)
    from sosproj.poly import MomentRelaxation, boolean_cube, unit_ball

    for system, ns in grid.items():
        for n in ns:
            group = []
            for solver in args.solvers:
                order = MomentRelaxation.estimate((unit_ball if system == "unit_ball" else boolean_cube)(n),
                                                  4)["block_orders"][0]
                if solver == "clarabel" and order > CLARABEL_MAX_ORDER:
                    r = {"system": system, "n": n, "solver": solver, "order": order,
                         "status": f"skipped (order {order} > {CLARABEL_MAX_ORDER}: dense KKT)"}
                else:
                    reps = args.repeat if n <= args.repeat_max_n else 1
                    runs = [spawn(system, n, "cvxpy" if solver == "cvxpy+scs" else solver, args.regime,
                                  args.time_limit, args.timeout, args.tol, args.baseline_tree)
                            for _ in range(reps)]
                    r = runs[0]
                    if all("total" in x for x in runs):
                        r["runs"] = [{k: x.get(k) for k in ("total", "cpu", "iterations", "status", "load_start",
                                                             "load_end")} for x in runs]
                        for key in ("build", "solve", "total", "cpu"):
                            r[key] = float(np.median([x[key] for x in runs]))
                        r["peak_mib"] = max(x["peak_mib"] for x in runs)
                        r["repeats"] = reps
                r["solver"] = solver
                group.append(r)
            base = next((r for r in group if r["solver"] == "scs" and "X_orbits" in r), None)
            admm = next((r for r in group if r["solver"] == "admm" and "X_orbits" in r), None)
            cvx = next((r for r in group if r["solver"] == "cvxpy+scs" and r.get("total")), None)
            for r in group:
                if base is not None and "X_orbits" in r:
                    r["diff"] = float(np.max(np.abs(np.subtract(r["X_orbits"], base["X_orbits"]))))
                    r["ratio"] = r["total"] / base["total"] if base.get("total") else None
                if cvx is not None and r.get("total"):
                    r["ratio_cvxpy"] = r["total"] / cvx["total"]
                if admm is not None and r.get("total") and "X_orbits" in r:
                    r["ratio_admm"] = r["total"] / admm["total"]
                    r["ratio_admm_cpu"] = r["cpu"] / admm["cpu"]
                    r["diff_admm"] = float(np.max(np.abs(np.subtract(r["X_orbits"], admm["X_orbits"]))))
                rows.append(r)
                print(f"{system:<13}{n:>3}{r.get('order', 0):>6}{r.get('n_moments', 0):>8} {r['solver']:<14}"
                      f"{fmt(r.get('build'), '9.2f')}{fmt(r.get('solve'), '9.2f')}{fmt(r.get('total'), '9.2f')}"
                      f"{fmt(r.get('iterations'), '7d')} {str(r.get('status'))[:12]:<12}"
                      f"{fmt(r.get('pres'), '9.1e')}{fmt(r.get('dres'), '9.1e')}{fmt(r.get('gap'), '9.1e')}"
                      f"{fmt(r.get('peak_mib'), '9.0f')}{fmt(r.get('diff'), '9.1e')}{fmt(r.get('ratio'), '7.2f')}"
                      f"{fmt(r.get('ratio_cvxpy'), '7.2f')}"
                      f"{fmt(100 * r['build'] / r['solve'] if r.get('solve') else None, '9.1f')}"
                      f"{fmt(r.get('ratio_admm'), '7.2f')}{fmt(r.get('diff_admm'), '10.1e')}"
                      f"{fmt(r.get('cpu'), '9.2f')}{fmt(r.get('ratio_admm_cpu'), '8.2f')}"
                      f"{fmt(r.get('load_start'), '6.1f')}{fmt(r.get('load_end'), '6.1f')}",
                      flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump([{k: v for k, v in r.items() if k != "X_orbits"} for r in rows], fh, indent=1)


if __name__ == "__main__":
    main()
