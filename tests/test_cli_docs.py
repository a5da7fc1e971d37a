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


# ------------------------------------------------------------------ commands run verbatim

def _shell_commands(path: Path) -> list[str]:
    """The ``sosproj release`` / ``sosproj info`` lines of a page's bash blocks (comments stripped)."""
    out = []
    for block in _blocks(path, "bash"):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith(("sosproj release", "sosproj info")):
                out.append(line)
    return out


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_shell_commands_of_the_first_pages_run_verbatim(page, tmp_path, monkeypatch):
    import shlex

    import numpy as np

    from sosproj.cli.main import main

    commands = _shell_commands(ROOT / page)
    assert any("release cosine" in c for c in commands) and any("release marginals" in c for c in commands)
    rng = np.random.default_rng(0)
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "vectors.npy", rng.standard_normal((30, 5)))
    D = (rng.random((300, 6)) < 0.4).astype(int)
    np.savetxt(tmp_path / "records.csv", D, fmt="%d", delimiter=",", header="a,b,c,d,e,f", comments="")
    for command in commands:
        argv = shlex.split(command, comments=True)
        assert argv[0] == "sosproj"
        assert main([*argv[1:], "--quiet"] + (["--no-mosek-check"] if argv[1] == "info" else [])) == 0, command


def test_getting_started_describes_the_info_keys_of_a_release():
    namespace: dict = {}
    for code in _blocks(DOCS / "getting-started.md", "python"):
        exec(compile(code, "getting-started.md", "exec"), namespace)
    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    stated = re.search(r"rel\.info\s+# keys: ([\w, ]+) \(a dict: ([\w, ]+), \.\.\.\)", text)
    assert stated, "getting-started must state the keys of rel.info"
    info = namespace["rel"].info
    assert sorted(k.strip() for k in stated.group(1).split(",")) == sorted(info)
    assert all(k.strip() in info["projection"] for k in stated.group(2).split(","))
    assert "from sosproj.poly import" in text and "unit_ball" in text


# ------------------------------------------------------------------ demo numbers in the docs

DEMO_REPORT = ROOT / "benchmarks" / "results_demo_report" / "report.json"


def _demo_result() -> dict:
    import json

    return json.loads(DEMO_REPORT.read_text(encoding="utf-8"))


def test_demo_output_quoted_in_the_docs_is_the_recorded_demo_output():
    from sosproj.cli import demo

    res = _demo_result()
    cli = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert demo.render_text(res) in cli, "docs/cli.md must quote the recorded demo output verbatim"
    lines = demo.headline(res)
    assert len(lines) == 3
    gs = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    for phrase in re.findall(r"\d+(?:\.\d+)?-fold", " ".join(lines)):
        assert phrase in gs, f"getting-started.md must quote {phrase} from the demo"
    # the recorded report is the full demo, with the configuration of the code
    assert res["quick"] is False and res["cosine"]["n"] == demo.FULL.cosine_n
    assert res["cosine"]["draws"] == demo.FULL.draws and res["marginals"]["n"] == demo.FULL.marginal_n
    assert [r["method"] for r in res["cosine"]["rows"]] == list(demo.FULL.cosine_methods)
    assert [r["method"] for r in res["marginals"]["rows"]] == list(demo.FULL.marginal_methods)


def test_recorded_demo_errors_are_what_the_code_computes_now():
    """Rerun the cheap methods of the full demo (same seeds): the recorded errors must not be stale."""
    import dataclasses

    from sosproj.cli import demo
    from sosproj.cli.output import Console

    res = _demo_result()
    cfg = dataclasses.replace(demo.FULL, cosine_methods=("gaussian", "exact"), marginal_methods=("tables",),
                              draws=2)  # the first two of the recorded draws (same seeds)
    quiet = Console(quiet=True)
    now = {("cosine", r["method"]): r for r in demo.cosine_experiment(cfg, res["seed"], quiet)["rows"]}
    now.update({("marginals", r["method"]): r
                for r in demo.marginals_experiment(cfg, res["seed"], quiet)["rows"]})
    recorded = {(key, r["method"]): r for key in ("cosine", "marginals") for r in res[key]["rows"]}
    assert len(now) == 3
    for key, row in now.items():
        assert row["errors"] == pytest.approx(recorded[key]["errors"][:2], rel=1e-5), key
        assert row["feasible"] == recorded[key]["feasible"], key


def test_certify_summary_quoted_in_the_docs_is_what_the_recorded_report_prints():
    from sosproj.certificates.spec import Report

    first = Report.load(ROOT / "certificates" / "reports" / "quick" / "report.json").summary().splitlines()[0]
    assert first in (DOCS / "cli.md").read_text(encoding="utf-8")
