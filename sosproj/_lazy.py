"""Lazy attribute loading for package namespaces (PEP 562).

Importing :mod:`sosproj` stays cheap (no cvxpy or sympy import until used), and
each public name lives in exactly one module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def attach(package: str, submodules: list[str], names: dict[str, str]
           ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """Return ``(__getattr__, __dir__, __all__)`` for ``package``.

    ``names`` maps a public attribute to the module that defines it;
    ``submodules`` are importable as attributes.
    """
    all_names = sorted(set(submodules) | set(names))

    def __getattr__(name: str) -> Any:
        if name in names:
            module = importlib.import_module(names[name])
            return getattr(module, name)
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return list(all_names)

    return __getattr__, __dir__, all_names
