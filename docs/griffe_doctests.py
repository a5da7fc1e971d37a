"""Griffe extension for the API reference: make free-form docstrings parse as numpy style.

Two habits of the sosproj docstrings confuse the numpy-style parser:

* a doctest directly after the summary or after a ``Parameters`` section: the
  ``>>>`` lines would be read as malformed parameters, and doctest output such as
  ``[1, 2]`` as Markdown reference links;
* a prose paragraph after the parameter list (e.g. "Returns the ..."): it would be
  read as more parameters.

This extension inserts an ``Examples`` heading before the first bare ``>>>`` line
and a ``Notes`` heading before a prose paragraph that follows a blank line inside
a ``Parameters``/``Returns``/``Attributes``/``Raises`` section. The source files are
not changed; only the docstring text griffe parses.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_LIST_SECTIONS = {"parameters", "other parameters", "returns", "yields", "attributes", "raises",
                  "warns", "receives"}
# a numpy item line: "name : type", "name", "a, b : type", "*args", "**kwargs", "TypeName"
_ITEM = re.compile(r"^\*{0,2}[A-Za-z_][\w.\[\], |*]*(\s*:.*)?$")


def _is_heading(lines: list[str], i: int) -> bool:
    return (i + 1 < len(lines) and lines[i].strip() != ""
            and set(lines[i + 1].strip()) == {"-"} and len(lines[i + 1].strip()) >= 3)


def normalize(text: str) -> str:
    """Return ``text`` with ``Examples``/``Notes`` headings inserted where the parser needs them."""
    lines = text.splitlines()
    out: list[str] = []
    section = None
    has_examples = False
    prev_blank = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if _is_heading(lines, i):
            section = stripped.lower()
            has_examples |= section == "examples"
            out += [line, lines[i + 1]]
            i += 2
            prev_blank = False
            continue
        if stripped.startswith(">>>") and not has_examples:
            if out and out[-1].strip():
                out.append("")
            out += [f"{indent}Examples", f"{indent}--------"]
            section, has_examples = "examples", True
        elif (section in _LIST_SECTIONS and prev_blank and stripped and not indent
              and not _ITEM.match(stripped)):
            out += [f"{indent}Notes", f"{indent}-----"]
            section = "notes"
        out.append(line)
        prev_blank = not stripped
        i += 1
    return "\n".join(out)


class DoctestExamples(griffe.Extension):
    """Rewrite each docstring once, as objects are loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = normalize(obj.docstring.value)
