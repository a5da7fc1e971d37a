"""Issue 15's targets at a glance, every number read from a stored record (docs/bench_support.md).

Each target names the record that measured it last (a file under ``benchmarks/`` or ``certificates/``) and a reader
that extracts the numbers from it; nothing is typed in by hand, so the block cannot go stale silently: a test
(``tests/test_bench_support_targets.py``) checks that the docs hold exactly what this script writes. Update a
target by pointing it at a newer record, then run::

    python benchmarks/support_targets.py          # rewrites the block between the support-targets markers

The targets (issue 15, "Targets"):

* support, unit ball, k = 3, degree 4, Gaussian W, cold start: n = 30 >= 10x today's ADMM (same run, same certified
  relative gap 1e-6); n = 64 <= 1 minute and n = 100 <= 10 minutes per tensor on 2 cores, certified gap <= 1e-5;
* projection, unit ball, k = 3, degree 4: ``dp`` n = 50 >= 4x the ADMM (same run); ``boundary`` n = 30 >= 3x;
* ``certificates/research.toml`` completes on 2 cores in <= 3 hours.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "bench_support.md"
TAG = "support-targets"


@dataclass(frozen=True)
class Reading:
    """What a record says about one target: met or not, the value in words, and the record's path."""

    met: bool
    value: str
    record: str


def _text(path: str) -> str:
    return (ROOT / path).read_text()


def support_ratio(path: str, n: int, bar: float) -> Reading:
    """``support_scale.py``'s SUMMARY line: the ADMM's median time over the fast solver's (CPU ratio)."""
    m = re.search(rf"SUMMARY n={n} .*?\(max gap ([0-9.e+-]+)\).*?ratios vs \S+: admm [0-9.]+x \(cpu ([0-9.]+)x\)",
                  _text(path))
    if m is None:
        raise ValueError(f"{path}: no SUMMARY line for n={n}")
    ratio, gap = float(m.group(2)), float(m.group(1))
    return Reading(ratio >= bar, f"{ratio:.1f}x the ADMM (CPU, medians of the run's tensors; largest certified gap "
                                 f"{gap:.1e})", path)


def e2e_cpu(sources: list[tuple[str, str]], n: int, limit_s: float) -> Reading:
    """``newton_only.py`` end-to-end lines: the CPU of set-up + solve of the runs whose ``## ...`` header names
    ``src``, for each ``(path, src)`` of ``sources`` (``e2e_n64.sh``'s headers ``## n=64 tensor T rep R src SRC``).

    A run counts when its status is ``solved`` with a certified gap <= 1e-5; the target is met when every
    run of every tensor is within ``limit_s``.
    """
    runs: dict[int, list[tuple[float, float]]] = {}
    for path, src in sources:
        _e2e_runs(path, n, src, runs)
    if not runs:
        raise ValueError(f"{sources}: no n={n} run")
    parts = [f"tensor {t}: " + " / ".join(f"{c:.2f} s" for c, _ in rs) for t, rs in sorted(runs.items())]
    worst = max(c for rs in runs.values() for c, _ in rs)
    gaps = max(g for rs in runs.values() for _, g in rs)
    return Reading(worst <= limit_s, f"{'; '.join(parts)} CPU, one BLAS thread (largest certified gap {gaps:.1e})",
                   ", ".join(p for p, _ in sources))


def _e2e_runs(path: str, n: int, src: str, runs: dict[int, list[tuple[float, float]]]) -> None:
    """Add the runs of ``src`` in ``path`` to ``runs`` (tensor -> [(CPU or inf when not certified, gap)])."""
    current = None
    for line in _text(path).splitlines():
        h = re.match(rf"## .*n={n} tensor (\d+)", line)
        if h:
            current = int(h.group(1)) if src in line else None
            continue
        r = re.match(rf"n={n} tensor (\d+): setup cpu ([0-9.]+)s \| total cpu ([0-9.]+)s .*?status (\w+) "
                     r"gap ([0-9.e+-]+)", line)
        if r and current is not None:
            ok = r.group(4) == "solved" and float(r.group(5)) <= 1e-5
            runs.setdefault(int(r.group(1)), []).append((float(r.group(3)) if ok else float("inf"), float(r.group(5))))


def newton_phase(path: str, n: int, rough_path: str, limit_s: float) -> Reading:
    """A Newton phase from a cached rough phase: its wall time plus the rough phase's CPU, against ``limit_s``."""
    r = re.search(rf"n={n} tensor \d+: .*?after rough phase cpu ([0-9.]+)s wall ([0-9.]+)s \| status (\w+) gap "
                  r"([0-9.e+-]+)", _text(path))
    rough = re.search(r"rough phase: cpu ([0-9.]+)s", _text(rough_path))
    if r is None or rough is None:
        raise ValueError(f"{path} / {rough_path}: no Newton phase / rough phase line for n={n}")
    wall, status, gap, rough_cpu = float(r.group(2)), r.group(3), float(r.group(4)), float(rough.group(1))
    total = wall + rough_cpu
    return Reading(status == "solved" and gap <= 1e-5 and total <= limit_s,
                   f"{status}, certified gap {gap:.1e}; Newton phase {wall:,.0f} s wall (2 threads) + the cached rough "
                   f"phase's {rough_cpu:,.0f} s CPU = {total / limit_s:.1f}x the {limit_s / 60:g} minutes", path)


def projection_ratio(path: str, regime: str, n: int, bar: float) -> Reading:
    """Same-run projection rows (``proj28/run_local.sh``): median CPU of the ADMM over ``solver="auto"``'s."""
    rows = [json.loads(line) for line in _text(path).splitlines() if line.strip()]
    cpu = {s: statistics.median(r["cpu"] for r in rows if (r["regime"], r["n"], r["solver"]) == (regime, n, s))
           for s in ("admm", "auto")}
    st = sorted({r["status"] for r in rows if (r["regime"], r["n"]) == (regime, n)})
    runs = sum((r["regime"], r["n"], r["solver"]) == (regime, n, "auto") for r in rows)
    ratio = cpu["admm"] / cpu["auto"]
    return Reading(ratio >= bar and st == ["solved"],
                   f"{ratio:.2f}x the ADMM (CPU, {runs} run{'s' if runs > 1 else ''} each; {'/'.join(st)})", path)


def research_minutes(path: str, limit_min: float) -> Reading:
    """The research suite's recorded run time (its README's bold total)."""
    m = re.search(r"Total\s+([0-9.]+) min of run time", _text(path))
    if m is None:
        raise ValueError(f"{path}: no total run time")
    minutes = float(m.group(1))
    return Reading(minutes <= limit_min, f"{minutes:g} min (n = 100's draws uncertified at their 900 s limit, outside "
                                         f"the fit)", path)


#: (target, reader): the last record of each target
TARGETS: list[tuple[str, Callable[[], Reading]]] = [
    ("support n = 30: >= 10x the ADMM, same run, certified gap 1e-6",
     lambda: support_ratio("benchmarks/results_support/lead34/run.txt", 30, 10.0)),
    ("support n = 64: <= 1 minute per tensor, certified gap <= 1e-5",
     lambda: e2e_cpu([("benchmarks/results_support/lead34/run.txt", "/tmp/lead34/mainsnap"),
                      ("benchmarks/results_support/n64_35/base_t12.txt", "snapshot a4a5c3f")], 64, 60.0)),
    ("support n = 100: <= 10 minutes per tensor, certified gap <= 1e-5",
     lambda: newton_phase("benchmarks/results_support/n100_32/lead_n100_g01_t2_defaults.txt", 100,
                          "benchmarks/results_support/newton29/newton_n100_g01_trace.txt", 600.0)),
    ("projection `dp` n = 50: >= 4x the ADMM, same run",
     lambda: projection_ratio("benchmarks/results_sdp/proj28/local.jsonl", "dp", 50, 4.0)),
    ("projection `boundary` n = 30: >= 3x the ADMM, same run",
     lambda: projection_ratio("benchmarks/results_sdp/proj28/local.jsonl", "boundary", 30, 3.0)),
    ("`research.toml` on 2 cores: <= 3 hours",
     lambda: research_minutes("certificates/reports/research/README.md", 180.0)),
]


def targets_block() -> str:
    """The Markdown table of every target: met or missed, the measured value, the record it comes from."""
    out = ["| target | status | measured | record |", "|---|---|---|---|"]
    for name, read in TARGETS:
        r = read()
        out.append(f"| {name} | {'met' if r.met else '**missed**'} | {r.value} | `{r.record}` |")
    return "\n".join(out)


def write_block(doc: Path, text: str) -> None:
    """Replace the part of ``doc`` between ``<!-- support-targets:start -->`` and ``...:end -->`` by ``text``."""
    s = doc.read_text()
    a, b = f"<!-- {TAG}:start -->", f"<!-- {TAG}:end -->"
    if a not in s or b not in s:
        raise SystemExit(f"{doc}: the {TAG} markers are missing")
    doc.write_text(s[:s.index(a) + len(a)] + "\n" + text + "\n" + s[s.index(b):])


if __name__ == "__main__":
    block = targets_block()
    if "--print" not in sys.argv[1:]:
        write_block(DOC, block)
    print(block)
