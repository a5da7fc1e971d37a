"""Summaries of adultcpu33's rows: ``paired.jsonl`` (paired.py) and ``rows_mst.jsonl`` (run_mst.py).

    R=benchmarks/results_marginals/adultcpu33
    python $R/summary.py paired $R/paired.jsonl
    python $R/summary.py mst $R/rows_mst.jsonl

Per cell: medians over the last ``KEEP`` rows of each variant (the first rows of a fresh snapshot may include
numba's compile: a rerun of the cell appends newer rows), ratios of medians, the residuals' hashes (paired) and the
1-minute load range.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections import defaultdict

KEEP = 2


def _gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def paired(path: str) -> None:
    rows = [json.loads(line) for line in open(path)]
    cells: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        cells[(r["epsilon"], r["seed"])][r["variant"]].append(r)
    print("eps  seed | CPU s base / new / new2 | wall s base / new / new2 | CPU new/base | wall new2/new | "
          "CPU new2/new | wall new2/base | sys base/new | identical | converged | load")
    acc = defaultdict(list)
    for (eps, seed), v in sorted(cells.items()):
        k = {name: rs[-KEEP:] for name, rs in v.items()}
        med = {name: {f: statistics.median(r[f] for r in rs) for f in ("cpu_s", "wall_s", "sys_s")}
               for name, rs in k.items()}
        shas = {r["sha"] for rs in k.values() for r in rs}
        conv = all(r["converged"] and r["extrap_converged"] is not False for rs in k.values() for r in rs)
        loads = [r[f] for rs in k.values() for r in rs for f in ("load_before", "load_after")]
        b, n, n2 = med["base"], med["new"], med.get("new2")
        rat = {"cpu_new_base": n["cpu_s"] / b["cpu_s"]}
        if n2:
            rat.update(wall_n2_n=n2["wall_s"] / n["wall_s"], cpu_n2_n=n2["cpu_s"] / n["cpu_s"],
                       wall_n2_b=n2["wall_s"] / b["wall_s"])
        for key, val in rat.items():
            acc[(eps, key)].append(val)
            acc[("all", key)].append(val)
        c2 = n2["cpu_s"] if n2 else float("nan")
        w2 = n2["wall_s"] if n2 else float("nan")
        print(f"{eps:<4g} {seed:>4} | {b['cpu_s']:.2f} / {n['cpu_s']:.2f} / {c2:.2f} | "
              f"{b['wall_s']:.2f} / {n['wall_s']:.2f} / {w2:.2f} | "
              f"{rat['cpu_new_base']:.3f} | {rat.get('wall_n2_n', float('nan')):.3f} | "
              f"{rat.get('cpu_n2_n', float('nan')):.3f} | {rat.get('wall_n2_b', float('nan')):.3f} | "
              f"{b['sys_s']:.2f}/{n['sys_s']:.2f} | {len(shas) == 1} | {conv} | {min(loads):.1f}-{max(loads):.1f}")
    print("\ngeometric means of the per-cell ratios:")
    for eps in sorted({e for e, _ in acc if e != "all"}) + ["all"]:
        print(f"  eps {eps}: " + ", ".join(f"{key} {_gm(acc[(eps, key)]):.3f}" for key in
                                             ("cpu_new_base", "wall_n2_n", "cpu_n2_n", "wall_n2_b") if acc[(eps, key)]))


def mst(path: str) -> None:
    rows = [json.loads(line) for line in open(path)]
    cells: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        cells[(r["epsilon"], r["seed"])][r["variant"]].append(r)
    print("eps  seed | CPU s new@1 / base / MST(1 thr) | CPU ratio new@1/MST, base/MST | wall s new@2 / MST shipped "
          "(its CPU) | wall ratio new@2/MST shipped | CPU new@2/MST(1 thr) | L1 new / MST | load")
    for (eps, seed), v in sorted(cells.items()):
        def m(name, f, v=v):
            xs = [r[f] for r in v.get(name, [])[-KEEP:] if r.get(f) is not None]
            return statistics.median(xs) if xs else float("nan")
        loads = [r[f] for rs in v.values() for r in rs for f in ("load_before", "load_after")]
        two = "new@k2" if "new@k2" in v else "new@2"
        n1, b, mo = m("new@1", "cpu_s"), m("base", "cpu_s"), m("mst_one_thread", "cpu_s")
        w2, ms, msc = m(two, "wall_s"), m("mst_shipped", "wall_s"), m("mst_shipped", "cpu_s")
        print(f"{eps:<4g} {seed:>4} | {n1:.2f} / {b:.2f} / {mo:.1f} | {n1 / mo:.4f}, {b / mo:.4f} | "
              f"{w2:.2f} / {ms:.1f} ({msc:.1f}) | {w2 / ms:.4f} | {m(two, 'cpu_s') / mo:.4f} ({two}) | "
              f"{m('new@1', 'l1') / m('mst_one_thread', 'l1'):.3f} | {min(loads):.1f}-{max(loads):.1f}")


if __name__ == "__main__":
    {"paired": paired, "mst": mst}[sys.argv[1]](sys.argv[2])
