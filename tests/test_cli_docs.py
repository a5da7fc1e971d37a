"""The README and the docs site: set-up commands, runnable examples, nav and API coverage."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_exactly_the_two_setup_commands():
    bash = _blocks(ROOT / "README.md", "bash")
    setup = [ln.strip() for ln in bash[0].splitlines() if ln.strip()]
    assert setup == ['pip install . && sosproj demo', 'pip install ".[test]" && python -m pytest']


def test_readme_python_example_is_ten_lines_and_runs(capsys):
    (code,) = _blocks(ROOT / "README.md", "python")
    assert len([ln for ln in code.splitlines() if ln.strip()]) == 10
    exec(compile(code, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("(200, 200)") and lines[1].endswith("(2, 2, 2)")


def test_getting_started_examples_run():
    namespace: dict = {}
    for code in _blocks(DOCS / "getting-started.md", "python"):
        exec(compile(code, "getting-started.md", "exec"), namespace)
    assert namespace["rel"].value.shape == (100, 100)
    assert namespace["mr"].table([0, 5, 7]).shape == (2, 2, 2)


def _nav_pages() -> set[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:"):]
    return set(re.findall(r":\s*([\w/.-]+\.md)\s*$", nav, flags=re.M))


def test_every_docs_page_is_in_the_nav_and_every_nav_page_exists():
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    fragments = {p for p in pages if Path(p).name.startswith("bench_")}
    nav = _nav_pages()
    assert pages - fragments - nav == set(), "add these pages to the nav in mkdocs.yml"
    assert nav - pages == set(), "these nav entries have no page"


def _public_modules(package_dir: Path, prefix: str) -> list[str]:
    out = []
    for info in pkgutil.iter_modules([str(package_dir)]):
        if info.name.startswith("_"):
            continue
        name = f"{prefix}.{info.name}"
        out.append(name)
        if info.ispkg:
            out += _public_modules(package_dir / info.name, name)
    return out


def test_api_reference_covers_every_public_module():
    documented = set()
    for page in (DOCS / "api").glob("*.md"):
        documented |= set(re.findall(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), flags=re.M))
    missing = set(_public_modules(ROOT / "sosproj", "sosproj")) - documented
    assert not missing, "run `python docs/api/generate.py` to document these modules"
    assert all(not m.split(".")[-1].startswith("_") for m in documented)


def test_cli_page_documents_every_verb_and_exit_code():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for verb in ("sosproj demo", "sosproj release", "sosproj certify", "sosproj info"):
        assert verb in text
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 4 |", "| 130 |"):
        assert code in text


@pytest.mark.parametrize("line", ["--quiet", "--json"])
def test_cli_page_documents_the_global_options(line):
    assert line in (DOCS / "cli.md").read_text(encoding="utf-8")
