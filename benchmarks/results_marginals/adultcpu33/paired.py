"""adultcpu33: one default release per fresh process (as runtime_vs_pgm.py times it), interleaved variants per cell.

Usage (from the worktree root, one BLAS thread)::

    python benchmarks/results_marginals/adultcpu33/paired.py OUT.jsonl REPEATS CELL... -- VARIANT...

``CELL`` = ``dataset:epsilon:seed``; ``VARIANT`` = ``label=SRC[@THREADS]`` (``SRC`` a sosproj source tree, e.g. the
snapshot of main; ``THREADS`` sets ``SOSPROJ_NUM_THREADS``, the BLAS and kernel threads; ``kN`` sets
``SOSPROJ_KERNEL_THREADS=N``, the compiled kernels' threads only). Per cell and repeat the variants run in the given
order (A, B, C, A, B, C, ...). Each row: wall / CPU (user + sys) / sys seconds and minor page faults of the release
call, the process's peak RSS, the 1-minute load before and after, the converged flags and iterations, and a hash of the
released residuals (bit-identity across variants).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def child(src: str, name: str, eps: float, seed: int, out: str) -> None:
    sys.path.insert(0, str(Path(src).resolve()))
    import resource
    import time

    import sosproj as sp

    assert Path(sp.__file__).resolve().is_relative_to(Path(src).resolve()), sp.__file__
    ds = sp.load_dataset(name)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    ri = rel.info["reconstruction_info"]
    ep = ri.get("extrapolation_projection") or {}
    Path(out).write_text(json.dumps({
        "wall_s": wall, "cpu_s": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
        "sys_s": r1.ru_stime - r0.ru_stime, "minflt": r1.ru_minflt - r0.ru_minflt, "maxrss_mib": r1.ru_maxrss / 1024,
        "converged": ri.get("converged"), "iterations": ri.get("iterations"),
        "extrap_iterations": ep.get("iterations"), "extrap_converged": ep.get("converged"),
        "threads": ep.get("threads"), "sha": hashlib.sha256(rel.residuals.tobytes()).hexdigest()[:16]}))


def main() -> None:
    out, reps = sys.argv[1], int(sys.argv[2])
    k = sys.argv.index("--")
    cells, variants = sys.argv[3:k], sys.argv[k + 1:]
    with open(out, "a") as fh:
        for cell in cells:
            name, eps, seed = cell.split(":")
            for rep in range(reps):
                for var in variants:
                    label, spec = var.split("=", 1)
                    src, _, thr = spec.partition("@")
                    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
                    env.pop("SOSPROJ_NUM_THREADS", None)
                    env.pop("SOSPROJ_KERNEL_THREADS", None)
                    if thr.startswith("k"):            # @kN: the compiled kernels' threads only (BLAS stays 1)
                        env["SOSPROJ_KERNEL_THREADS"] = thr[1:]
                    elif thr:
                        env["SOSPROJ_NUM_THREADS"] = thr
                    env["PYTHONPATH"] = src
                    with tempfile.TemporaryDirectory() as tmp:
                        la = os.getloadavg()[0]
                        subprocess.run([sys.executable, __file__, "--child", src, name, eps, seed, f"{tmp}/r.json"],
                                       env=env, check=True)
                        row = json.loads(Path(f"{tmp}/r.json").read_text())
                    row = {"variant": label, "dataset": name, "epsilon": float(eps), "seed": int(seed), "rep": rep,
                           "load_before": la, "load_after": os.getloadavg()[0], **row}
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()
                    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    else:
        main()
