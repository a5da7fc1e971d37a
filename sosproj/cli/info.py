"""``sosproj info``: version, solvers found, MOSEK licence status, BLAS and threads.

Nothing here imports a solver: availability is read from package metadata, and
the MOSEK licence is checked in a short-lived subprocess with a timeout, so a
missing, expired or hanging licence server can neither crash nor block the CLI.

Examples
--------
>>> info = collect_info(check_mosek=False)
>>> sorted(info)
['blas', 'mosek', 'packages', 'platform', 'python', 'solvers', 'sosproj', 'threads']
>>> info["solvers"]["scs"]["installed"]
True
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import importlib.util
import os
import platform
import subprocess
import sys
from typing import Any

from sosproj._version import __version__
from sosproj.cli.output import Console

#: solver backends sosproj can use: distribution name -> import name
SOLVERS = {"scs": "scs", "clarabel": "clarabel", "cvxpy": "cvxpy", "mosek": "mosek"}
#: the other runtime dependencies reported by ``sosproj info``
PACKAGES = ("numpy", "scipy", "sympy", "matplotlib", "tqdm", "joblib", "threadpoolctl", "numba")
THREAD_VARS = ("SOSPROJ_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

_MOSEK_PROBE = (
    "import mosek\n"
    "env = mosek.Env()\n"
    "env.checkoutlicense(mosek.feature.pts)\n"
    "print('ok')\n"
)


def _version_of(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def solver_status() -> dict[str, dict[str, Any]]:
    """Which solver backends are importable, with their versions (no import done).

    >>> solver_status()["clarabel"]["installed"]
    True
    """
    out: dict[str, dict[str, Any]] = {}
    for dist, module in SOLVERS.items():
        found = importlib.util.find_spec(module) is not None
        out[dist] = {"installed": found, "version": _version_of(dist) if found else None}
    return out


def mosek_licence_status(timeout: float = 15.0) -> dict[str, Any]:
    """Check MOSEK's licence in a subprocess; never raises, never hangs past ``timeout`` s.

    Returns ``{"installed": bool, "licence": "ok" | "missing or invalid" |
    "check timed out" | "not installed", "detail": str | None}``.

    >>> mosek_licence_status()["licence"] in {"ok", "missing or invalid", "check timed out", "not installed"}
    True
    """
    if importlib.util.find_spec("mosek") is None:
        return {"installed": False, "licence": "not installed", "detail": "pip install 'sosproj[mosek]'"}
    try:
        proc = subprocess.run([sys.executable, "-c", _MOSEK_PROBE], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"installed": True, "licence": "check timed out", "detail": f"no answer within {timeout:g} s"}
    except OSError as exc:  # pragma: no cover - cannot start a subprocess
        return {"installed": True, "licence": "missing or invalid", "detail": str(exc)}
    if proc.returncode == 0 and "ok" in proc.stdout:
        return {"installed": True, "licence": "ok", "detail": None}
    last = (proc.stderr.strip().splitlines() or ["licence check failed"])[-1]
    return {"installed": True, "licence": "missing or invalid", "detail": last[:300]}


def blas_info() -> list[dict[str, Any]]:
    """BLAS/OpenMP libraries and their thread counts (threadpoolctl, else numpy's build config).

    >>> isinstance(blas_info(), list)
    True
    """
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        threadpool_info = None
    if threadpool_info is not None:
        keep = ("user_api", "internal_api", "version", "num_threads", "threading_layer", "architecture")
        return [{k: lib.get(k) for k in keep if k in lib} for lib in threadpool_info()]
    try:  # numpy >= 1.25
        import numpy as np

        cfg = np.show_config(mode="dicts")
        deps = cfg.get("Build Dependencies", {})
        return [{"user_api": kind, **{k: v for k, v in deps.get(kind, {}).items() if k in ("name", "version")}}
                for kind in ("blas", "lapack") if kind in deps]
    except Exception:  # noqa: BLE001 - informational only
        return []


def thread_settings() -> dict[str, Any]:
    """CPU count, CPUs usable by this process and the thread environment variables.

    >>> thread_settings()["cpu_count"] >= 1
    True
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    from sosproj.threads import active_limit

    limit = active_limit()
    return {"cpu_count": os.cpu_count() or 1, "usable_cpus": usable,
            "sosproj_blas_threads": "all" if limit is None else limit,
            "env": {v: os.environ.get(v) for v in THREAD_VARS}}


def collect_info(*, check_mosek: bool = True) -> dict[str, Any]:
    """Everything ``sosproj info`` reports, as a JSON-ready dict.

    >>> collect_info(check_mosek=False)["sosproj"] == __import__("sosproj").__version__
    True
    """
    return {
        "sosproj": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": {p: _version_of(p) for p in PACKAGES},
        "solvers": solver_status(),
        "mosek": mosek_licence_status() if check_mosek else {"licence": "not checked"},
        "blas": blas_info(),
        "threads": thread_settings(),
    }


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register the ``info`` verb on the ``sub`` subparsers (``parents``: shared options).

    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="sosproj").add_subparsers(dest="verb")
    >>> add_parser(sub, [])
    >>> sorted(sub.choices)
    ['info']
    """
    p = sub.add_parser("info", parents=parents, help="version, solvers, MOSEK licence, BLAS and threads",
                       description="Print the sosproj version, the solver backends found, the MOSEK "
                                   "licence status and the BLAS/thread settings.")
    p.add_argument("--no-mosek-check", action="store_true",
                   help="skip the MOSEK licence check (it runs a subprocess)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Print the environment report (text or ``--json``); exit code 0.

    >>> from sosproj.cli.main import build_parser
    >>> run(build_parser().parse_args(["info", "--no-mosek-check"]), Console(quiet=True))
    0
    """
    info = collect_info(check_mosek=not getattr(args, "no_mosek_check", False))
    console.emit(info)
    console.print(f"sosproj {info['sosproj']} (Python {info['python']}, {info['platform']})")
    console.print("solvers:")
    for name, st in info["solvers"].items():
        console.print(f"  {name:<9} {st['version'] if st['installed'] else 'not installed'}")
    mo = info["mosek"]
    console.print(f"MOSEK licence: {mo['licence']}" + (f" ({mo['detail']})" if mo.get("detail") else ""))
    console.print("packages: " + ", ".join(f"{k} {v or '-'}" for k, v in info["packages"].items()))
    console.print("BLAS / threads:")
    for lib in info["blas"]:
        console.print("  " + ", ".join(f"{k}={v}" for k, v in lib.items()))
    th = info["threads"]
    env = ", ".join(f"{k}={v}" for k, v in th["env"].items() if v is not None) or "no thread variables set"
    console.print(f"  cpus={th['cpu_count']} usable={th['usable_cpus']}; {env}")
    console.print(f"  sosproj's operations use {th['sosproj_blas_threads']} BLAS thread(s) "
                  "(thread policy; override with --threads N or SOSPROJ_NUM_THREADS)")
    return 0


__all__ = ["collect_info", "solver_status", "mosek_licence_status", "blas_info", "thread_settings"]
