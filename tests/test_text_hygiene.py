"""Docs and sources hold no control characters: a LaTeX command written through a non-raw Python string
(``"\\times"``, ``"\\varepsilon"``, ``"\\bar"``) turns into a tab, a vertical tab or a backspace and renders
as garbage (``$8 <TAB>imes 155$``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted([*ROOT.glob("docs/**/*.md"), *ROOT.glob("sosproj/**/*.py"), *ROOT.glob("certificates/**/*.md"),
                ROOT / "README.md"])
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\t(?=[a-z])")


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_control_characters(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    bad = [(i + 1, line[:60]) for i, line in enumerate(text.splitlines()) if CONTROL.search(line)]
    assert not bad, f"control characters (a LaTeX escape written through a non-raw string?) at {bad[:3]}"
