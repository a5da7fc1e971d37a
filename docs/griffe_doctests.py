"""Griffe extension for the API reference: give bare doctests an ``Examples`` heading.

Many sosproj docstrings end with a doctest directly after the summary or after a
``Parameters`` section. The numpy-style parser would read those ``>>>`` lines as
malformed parameters, and Markdown would read doctest output such as ``[1, 2]`` as
reference links. Inserting an ``Examples`` heading before the first bare ``>>>``
line makes the parser render the doctests as code. The source files are not
changed; only the docstring text griffe parses.
"""

from __future__ import annotations

from typing import Any

import griffe


def add_examples_heading(text: str) -> str:
    """Insert a numpy ``Examples`` heading before the first doctest not already under one."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped == "Examples" and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            return text
        if stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            head = [f"{indent}Examples", f"{indent}--------"]
            if i > 0 and lines[i - 1].strip():
                head.insert(0, "")
            return "\n".join(lines[:i] + head + lines[i:])
    return text


class DoctestExamples(griffe.Extension):
    """Rewrite each docstring once, as objects are loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = add_examples_heading(obj.docstring.value)
