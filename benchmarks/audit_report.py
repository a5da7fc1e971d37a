"""Black-box audit of every registered mechanism (sosproj.audit.MECHANISMS), with negative controls.

Three parts, one JSON line per audit in ``benchmarks/results_audit/audit_report.jsonl``
(checked by ``tests/test_audit_recorded.py``) and a markdown summary on stdout:

* ``claims``: every mechanism at (0.5, 1e-5), (1, 1e-6), (2, 1e-6), real noise: must pass;
* ``controls``: the five negative controls (zero, uniform, sigma x 0.7, sensitivity x 0.7,
  grid-snapped noise) on the mechanisms in CONTROL_MECHANISMS at (1, 1e-6): must fail (on
  ``tables[discrete]`` the uniform one is missed, ``docs/privacy.md``); ``--kinds`` records a subset;
* ``power``: sigma x f for f in FACTORS at (1, 1e-6) per mechanism, at its registered
  number of runs: the detectable under-noising factor (largest f caught); ``--factors`` tries other factors
  (e.g. ``--factors 0.5`` records sigma/2 on its own after sigma x 0.7 was caught).

Every row records the audit's event-selection rule (``selection``, ``quantiles``); rows without
them were recorded with the former rule (``selection="rescaled"``, 199 thresholds). A fixed
``SOSPROJ_MEMORY_LIMIT`` keeps the mechanisms' memory refusals independent of what other processes
hold on a shared box (the command line in each record's header shows it).

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 SOSPROJ_MEMORY_LIMIT=4000000000 python benchmarks/audit_report.py \
        --n-jobs 2 > benchmarks/results_audit/audit_report.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from sosproj.audit import KINDS, MECHANISMS, NegativeControl, audit_release

CLAIMS = [(0.5, 1e-5), (1.0, 1e-6), (2.0, 1e-6)]
CONTROL_CLAIM = (1.0, 1e-6)
CONTROL_MECHANISMS = ["perturb_and_project[box]", "cosine[gaussian]", "cosine[exact]", "marginals[gaussian]",
                      "tables[discrete]"]
FACTORS = [0.7, 0.5, 0.3]
OUT = Path(__file__).parent / "results_audit" / "audit_report.jsonl"


def _audit(name: str, eps: float, delta: float, control: str | None, factor: float, n_jobs: int,
           seed: int) -> dict:
    case = MECHANISMS[name]
    D, D2 = case.pair()
    f = case.release(eps, delta)
    if control is not None:
        f = NegativeControl(f, control, factor)
    t0 = time.perf_counter()
    r = audit_release(f, D, D2, epsilon=eps, delta=delta, trials=case.trials, output=case.output, rng=seed,
                      n_jobs=n_jobs)
    return {"mechanism": name, "epsilon": eps, "delta": delta, "control": control,
            "factor": factor if control in ("scale", "sensitivity") else None, "trials": case.trials,
            "passed": r.passed, "mu_lower_bound": r.bound, "mu_claimed": r.claimed_bound,
            "epsilon_lower_bound": r.epsilon_lower_bound, "event": r.event, "counts": list(r.counts),
            "seconds": round(time.perf_counter() - t0, 2), "seed": seed, "selection": r.info["selection"],
            "quantiles": r.info["quantiles"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--parts", default="claims,controls,power")
    ap.add_argument("--only", default="", help="comma-separated mechanism names (default: all)")
    ap.add_argument("--out", default=str(OUT), help="JSON-lines file (appended to)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated negative controls (default: all)")
    ap.add_argument("--factors", default=",".join(f"{f:g}" for f in FACTORS),
                    help="comma-separated sigma factors of the power part, tried in this order until one is caught "
                         "(default: 0.7,0.5,0.3)")
    args = ap.parse_args()
    out = Path(args.out)
    names = [n for n in MECHANISMS if not args.only or n in args.only.split(",")]
    out.parent.mkdir(exist_ok=True)
    mem = os.environ.get("SOSPROJ_MEMORY_LIMIT")
    header = {"command": "PYTHONPATH=. OPENBLAS_NUM_THREADS=1 " + (f"SOSPROJ_MEMORY_LIMIT={mem} " if mem else "")
                         + "python benchmarks/audit_report.py "
                         f"--n-jobs {args.n_jobs} --parts {args.parts}" + (f" --only {args.only}" if args.only else "")
                         + (f" --out {args.out}" if args.out != str(OUT) else "")
                         + (f" --kinds {args.kinds}" if args.kinds != ",".join(KINDS) else "")
                         + (f" --factors {args.factors}" if args.factors != ",".join(f"{f:g}" for f in FACTORS)
                            else ""),
              "machine": f"{platform.machine()} {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
              "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    t_all = time.perf_counter()
    with out.open("a") as fh:
        fh.write(json.dumps({"header": header}) + "\n")
        rows = []

        def emit(row: dict, part: str) -> None:
            row["part"] = part
            rows.append(row)
            fh.write(json.dumps(row) + "\n")
            fh.flush()

        eps, delta = CONTROL_CLAIM
        for part in args.parts.split(","):  # in the order given
            if part == "controls":
                for name in [n for n in CONTROL_MECHANISMS if n in names]:
                    for kind in [k for k in KINDS if k in args.kinds.split(",")]:
                        emit(_audit(name, eps, delta, kind, 0.7, args.n_jobs, seed=11), "controls")
            elif part == "power":
                for name in names:
                    for f in [float(x) for x in args.factors.split(",")]:
                        row = _audit(name, eps, delta, "scale", f, args.n_jobs, seed=12)
                        emit(row, "power")
                        if not row["passed"]:
                            break
            elif part == "claims":
                for name in names:
                    for e, d in CLAIMS:
                        emit(_audit(name, e, d, None, 1.0, args.n_jobs, seed=13), "claims")
            else:
                raise SystemExit(f"unknown part {part!r}; use claims, controls, power")
        fh.write(json.dumps({"footer": {"wall_seconds": round(time.perf_counter() - t_all, 1),
                                        "load_end": round(os.getloadavg()[0], 1)}}) + "\n")

    print(f"<!-- {header['command']}; {header['machine']}; wall {time.perf_counter() - t_all:.0f} s -->")
    print("| part | mechanism | claim | control | runs/input | mu lb (claim) | eps lb | verdict | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ctrl = "-" if r["control"] is None else r["control"] + (f" x{r['factor']}" if r["factor"] else "")
        print(f"| {r['part']} | {r['mechanism']} | ({r['epsilon']:g}, {r['delta']:g}) | {ctrl} | {r['trials']} | "
              f"{r['mu_lower_bound']:.3f} ({r['mu_claimed']:.3f}) | {r['epsilon_lower_bound']:.2f} | "
              f"{'pass' if r['passed'] else 'FAIL'} | {r['seconds']:.0f} |")


if __name__ == "__main__":
    main()
