"""``python -m sosproj``: the CLI; with no arguments, version, solvers and a self-check."""

from __future__ import annotations

import sys
from typing import Any


def run_self_check() -> dict[str, Any]:
    """A one-second end-to-end check: calibration and one perturb-and-project release.

    Checks that the ``"classical"`` Gaussian calibration matches its closed form
    :math:`\\sigma = \\Delta\\sqrt{2\\ln(1.25/\\delta)}/\\varepsilon` and that a
    perturb-and-project release of a 4x4 identity onto the PSD cone is PSD.
    Returns ``{"ok": bool, "detail": str}``; never raises.

    >>> run_self_check()["ok"]
    True
    """
    try:
        import math

        import numpy as np

        from sosproj import gaussian_sigma, perturb_and_project
        from sosproj.sets import PSDCone

        sigma = gaussian_sigma(0.5, 1e-5, 1.0, calibration="classical")
        if abs(sigma - math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5) > 1e-9:
            return {"ok": False, "detail": "Gaussian calibration does not match its closed form"}
        rel = perturb_and_project(np.eye(4), PSDCone(), epsilon=1.0, delta=1e-6, sensitivity=1.0, rng=0)
        if float(np.linalg.eigvalsh(rel.value).min()) < -1e-8:
            return {"ok": False, "detail": "PSD projection returned a matrix that is not PSD"}
        return {"ok": True, "detail": "calibration and a perturb-and-project release onto the PSD cone"}
    except Exception as exc:  # noqa: BLE001 - a self-check reports, it does not crash
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}"}


def _banner() -> int:
    from sosproj._version import __version__
    from sosproj.cli.info import solver_status

    found = [name for name, st in solver_status().items() if st["installed"]]
    check = run_self_check()
    print(f"sosproj {__version__}")
    print("solvers found: " + (", ".join(found) if found else "none"))
    print(f"self-check: {'ok' if check['ok'] else 'FAILED'} ({check['detail']})")
    print("run 'sosproj --help' (or 'python -m sosproj --help') for the commands")
    return 0 if check["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m sosproj``: the banner without arguments, else the CLI.

    >>> main(["--version"])  # doctest: +ELLIPSIS
    sosproj ...
    0
    """
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        return _banner()
    from sosproj.cli.main import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
