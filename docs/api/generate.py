"""Regenerate the API reference pages ``docs/api/*.md`` from the package layout.

Run from the repository root: ``python docs/api/generate.py``. Every public module
(no leading underscore) of every sosproj subpackage gets a ``::: sosproj.pkg.module``
block (mkdocstrings renders it from the docstrings); ``tests/test_cli_docs.py`` fails
when a public module is missing from the pages, so rerun this after adding one.
"""

from __future__ import annotations

import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api"

TITLES = {
    "core": ("Core: errors, validation, random generators, audits",
             "The error family, input validation at the door, SPEC 7 random-generator handling "
             "and empirical privacy audits."),
    "mechanisms": ("Mechanisms", "Perturb-and-project and the private releases built on it."),
    "privacy": ("Privacy", "Gaussian noise calibration, samplers and budget accounting."),
    "sets": ("Convex sets", "The `ConvexSet` protocol: projections, support functions, membership."),
    "poly": ("Polynomial systems", "Monomials, polynomial systems and moment relaxations."),
    "sdp": ("SDP layer", "Solver-neutral conic forms of projection and support problems, and backends."),
    "certificates": ("Certificates", "Gaussian-complexity estimates, rate fits and bound checks."),
    "data": ("Data", "Bundled datasets, moment tensors and contingency tables."),
    "audit": ("Audit", "Empirical privacy audits."),
    "cli": ("Command line", "The `sosproj` console script (see also [Command line](../cli.md))."),
}


def public_modules(package: str) -> list[str]:
    """Dotted names of the public modules under ``package`` (recursively), sorted."""
    sys.path.insert(0, str(ROOT))
    pkg_path = ROOT / Path(*package.split("."))
    out = []
    for info in pkgutil.iter_modules([str(pkg_path)]):
        if info.name.startswith("_"):
            continue
        name = f"{package}.{info.name}"
        if info.ispkg:
            out.append(name)
            out.extend(public_modules(name))
        else:
            out.append(name)
    return sorted(out)


def groups() -> dict[str, list[str]]:
    """Page name -> modules documented on it."""
    pages: dict[str, list[str]] = {"core": []}
    for info in pkgutil.iter_modules([str(ROOT / "sosproj")]):
        if info.name.startswith("_"):
            continue
        if info.ispkg:
            mods = [f"sosproj.{info.name}"] + public_modules(f"sosproj.{info.name}")
            pages[info.name] = mods
        else:
            pages["core"].append(f"sosproj.{info.name}")
    return pages


def main() -> None:
    pages = groups()
    index = ["# API reference", "",
             "Generated from the docstrings (every public function has a runnable example, "
             "checked by `pytest --doctest-modules`).", "", "::: sosproj", "    options:",
             "      show_root_heading: false", "      members: false", ""]
    for page, mods in pages.items():
        if not mods:
            continue
        title, blurb = TITLES.get(page, (page.capitalize(), ""))
        lines = [f"# {title}", "", blurb, ""]
        for mod in mods:
            lines += [f"::: {mod}", ""]
        (API / f"{page}.md").write_text("\n".join(lines), encoding="utf-8")
        index.append(f"* [{title}]({page}.md)")
    (API / "index.md").write_text("\n".join(index) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
