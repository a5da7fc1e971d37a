"""Medians over the lead's repeats of adult epsilon 1 seed 2 (rows_mst_lead.jsonl, session 33) plus adultcpu33's own
row of that cell (rows_mst.jsonl): CPU ratio ours (one thread) / MST (one thread), wall ratio ours (two kernel threads)
/ MST as shipped. Usage: python benchmarks/results_marginals/adultcpu33/summary_mst_lead.py
"""
import json
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines() if line.strip()]


cell = [r for r in rows("rows_mst.jsonl") + rows("rows_mst_lead.jsonl")
        if r.get("epsilon") == 1.0 and r.get("seed") == 2]


def vals(variant: str, key: str) -> list[float]:
    return [float(r[key]) for r in cell if r.get("variant") == variant]


ours_cpu, mst_cpu = vals("new@1", "cpu_s"), vals("mst_one_thread", "cpu_s")
ours_wall = vals("new@k2", "wall_s") + vals("new@2", "wall_s")
mst_wall = vals("mst_shipped", "wall_s")
print(f"adult epsilon 1 seed 2: ours CPU (one thread) n={len(ours_cpu)} median {statistics.median(ours_cpu):.2f} s "
      f"(range {min(ours_cpu):.2f}-{max(ours_cpu):.2f}); MST CPU (one thread) n={len(mst_cpu)} median "
      f"{statistics.median(mst_cpu):.2f} s (range {min(mst_cpu):.2f}-{max(mst_cpu):.2f})")
print(f"CPU ratio of medians {statistics.median(ours_cpu) / statistics.median(mst_cpu):.4f}; worst pairing "
      f"{max(ours_cpu) / min(mst_cpu):.4f}; best {min(ours_cpu) / max(mst_cpu):.4f}")
print(f"wall: ours on two threads n={len(ours_wall)} median {statistics.median(ours_wall):.2f} s; MST as shipped "
      f"n={len(mst_wall)} median {statistics.median(mst_wall):.2f} s; ratio of medians "
      f"{statistics.median(ours_wall) / statistics.median(mst_wall):.4f}")
