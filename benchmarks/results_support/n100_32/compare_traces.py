"""Per-Newton-step comparison of two ``newton_only.py --trace`` records (issue 15, session 32): CG steps, CG CPU,
CPU per CG step, line-search decomposition CPU per step, and the certificates. Not same-run (one n = 100 process at
a time): CPU per CG step is the load control.

Usage: python benchmarks/results_support/n100_32/compare_traces.py OLD.txt NEW.txt
"""
import re
import sys


def parse(path: str) -> tuple[list[dict], list[str]]:
    steps: list[dict] = []
    certs: list[str] = []
    cg_cpu = None
    dec = 0.0
    for line in open(path):
        m = re.match(r"\s+newton_dir \(CG\): cpu ([\d.]+)s", line)
        if m:
            cg_cpu, dec = float(m.group(1)), 0.0
            continue
        m = re.search(r"\] cpu ([\d.]+)s$", line.rstrip())
        if m and cg_cpu is not None:
            dec += float(m.group(1))
            continue
        m = re.match(r"\s+newton\s+(\d+) dres (\S+) cg\s+(\d+) step (\S+)", line)
        if m and cg_cpu is not None:
            steps.append({"step": int(m.group(1)), "dres": m.group(2), "cg": int(m.group(3)), "cg_cpu": cg_cpu,
                          "dec": dec, "t": m.group(4)})
            cg_cpu = None
            continue
        if "certifier.lower" in line or line.startswith("n="):
            certs.append(line.strip())
    return steps, certs


old, oc = parse(sys.argv[1])
new, nc = parse(sys.argv[2])
print("step | old dres, CG, CG cpu s, s/CG, decomp s | new dres, CG, CG cpu s, s/CG, decomp s")
for i in range(max(len(old), len(new))):
    row = [f"{i + 1:4d}"]
    for s in (old, new):
        if i < len(s):
            r = s[i]
            row.append(f"{r['dres']} {r['cg']:4d} {r['cg_cpu']:8.2f} {r['cg_cpu'] / max(r['cg'], 1):5.2f} "
                       f"{r['dec']:7.2f}")
        else:
            row.append(" " * 40)
    print(" | ".join(row))
for name, s in (("old", old), ("new", new)):
    cg = sum(r["cg"] for r in s)
    cpu = sum(r["cg_cpu"] for r in s)
    print(f"{name}: {len(s)} steps, {cg} CG, CG cpu {cpu:.1f} s ({cpu / max(cg, 1):.2f} s per CG step), "
          f"line-search decompositions {sum(r['dec'] for r in s):.1f} s")
for name, c in (("old", oc), ("new", nc)):
    print(f"{name} certificates:")
    for line in c:
        print("  " + line[:300])
