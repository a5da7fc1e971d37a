"""n64_35: the same-run table of notes.md / docs/bench_support.md from same_run.txt and same_run_rep2.txt
(run from the repository root)."""
import re
import statistics as st

R = "benchmarks/results_support/n64_35/"
FILES = ((1, R + "same_run.txt"), (2, R + "same_run_rep2.txt"))
NAMES = {"base": "snapshot a4a5c3f", "new": "branch (defaults)", "cap01": "branch, `dr_cap_gap=0.1`"}
HEAD = re.compile(r"## n=64 tensor (\d) (\w+)\s+\S+ load ([\d.]+)")
LINE = re.compile(r"n=64 tensor (\d): .*total cpu ([\d.]+)s.*after rough phase cpu ([\d.]+)s.*status (\w+) gap (\S+) "
                  r".*dr_iterations=(\d+) .*newton_steps=(\d+) newton_cg=(\d+)")

rows: dict = {}
for rep, path in FILES:
    cur = None
    with open(path) as fh:
        for line in fh:
            m = HEAD.match(line)
            if m:
                cur = (int(m[1]), m[2])
                continue
            m = LINE.match(line)
            if m and cur:
                rows.setdefault(cur, []).append((rep, float(m[2]), m[4], m[5], m[6], m[7], m[8]))
out = ["| tensor | variant | rep 1 CPU s | rep 2 CPU s | DR steps | Newton steps / CG | gap | status |",
       "|---|---|---|---|---|---|---|---|"]
med: dict = {}
for t in (0, 1, 2):
    for v in NAMES:
        r = rows.get((t, v), [])
        med.setdefault(v, []).append(st.median([x[1] for x in r]) if r else float("nan"))
        if r:
            cells = [f"{x[1]:.2f}" for x in r] + ["-"] * (2 - len(r))
            a = r[0]
            out.append(f"| {t} | {NAMES[v]} | {cells[0]} | {cells[1]} | {a[4]} | {a[5]} / {a[6]} | {a[3]} | {a[2]} |")
out.append("")
out.append("Median over tensors 0-2 (each tensor the mean of its reps): "
           + ", ".join(f"{NAMES[v]} **{st.median(med[v]):.1f} s**" for v in NAMES)
           + "; per tensor branch / snapshot: " + ", ".join(f"{med['base'][t] / med['new'][t]:.2f}x" for t in range(3))
           + "; `dr_cap_gap=0.1` / snapshot: "
           + ", ".join(f"{med['base'][t] / med['cap01'][t]:.2f}x" for t in range(3)) + ".")
print("\n".join(out))
