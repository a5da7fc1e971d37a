"""The peers report (benchmarks/peers/report.py): which stored rows it reads, and in which order."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from peers.report import (  # noqa: E402
    PREFIXES,
    aggregate,
    load_pgm_runs,
    load_rows,
    make_tables,
    mixed_cells,
    row_version,
    targets_block,
)

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results_peers"


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _row(method: str, eps: float, seed: int, l1: float, dataset: str = "titanic") -> dict:
    return {"dataset": dataset, "method": method, "epsilon": eps, "seed": seed, "l1": l1}


def test_v5_rows_replace_v4_rows_of_the_same_key_and_keep_the_rest(tmp_path):
    assert PREFIXES == ("v4_", "v5_", "v6_", "v7_", "v8_", "v9_", "v10_", "v11_", "v12_", "v13_", "v14_", "v15_",
                        "v16_", "v17_", "v18_", "v19_", "v20_", "v21_", "v22_")
    _write(tmp_path / "v4_titanic.jsonl", [_row("sosproj", 1.0, 0, 0.9), _row("sosproj", 1.0, 1, 0.8),
                                          _row("rp", 1.0, 0, 1.1)])
    _write(tmp_path / "v5_titanic.jsonl", [_row("sosproj", 1.0, 0, 0.7)])
    _write(tmp_path / "v3_titanic.jsonl", [_row("sosproj", 1.0, 1, 0.1), _row("tables", 1.0, 0, 0.1)])
    _write(tmp_path / "pgm_v4.jsonl", [_row("aim", 1.0, 0, 0.6)])
    got = {(r["method"], r["seed"]): r["l1"] for r in load_rows(tmp_path)}
    # v5 replaces v4 for (titanic, sosproj, 1, 0); the other v4 rows stay; v3 files are not read
    assert got == {("sosproj", 0): 0.7, ("sosproj", 1): 0.8, ("rp", 0): 1.1, ("aim", 0): 0.6}
    # the order of the prefixes decides: v5 then v4 would keep the v4 row
    got_rev = {(r["method"], r["seed"]): r["l1"] for r in load_rows(tmp_path, ("v5_", "v4_"))}
    assert got_rev[("sosproj", 0)] == 0.9


def test_v13_rows_replace_v10_rows_of_the_same_key_and_keep_the_rest(tmp_path):
    """The session-29 default rows (v13, per-order skip thresholds) replace the v10 default rows of their keys;
    the v10 rows of keys v13 does not re-run (adult at epsilon 0.03: the same release) stay."""
    _write(tmp_path / "v10_adult.jsonl", [_row("sosproj", 1.0, 0, 0.2496, "adult"),
                                          _row("sosproj", 0.03, 0, 0.5372, "adult")])
    _write(tmp_path / "v13_adult.jsonl", [_row("sosproj", 1.0, 0, 0.2406, "adult")])
    got = {(r["method"], r["epsilon"], r["seed"]): r["l1"] for r in load_rows(tmp_path)}
    assert got == {("sosproj", 1.0, 0): 0.2406, ("sosproj", 0.03, 0): 0.5372}


def test_v14_rows_replace_v13_rows_of_the_same_key_and_keep_the_rest(tmp_path):
    """The session-30 titanic default rows (v14, the private 1-way selection) replace the v13 rows of their keys;
    the v13 adult rows (identical releases, not re-run) stay."""
    _write(tmp_path / "v13_titanic.jsonl", [_row("sosproj", 0.3, 0, 1.08)])
    _write(tmp_path / "v13_adult.jsonl", [_row("sosproj", 1.0, 0, 0.2406, "adult")])
    _write(tmp_path / "v14_titanic.jsonl", [_row("sosproj", 0.3, 0, 0.85)])
    got = {(r["dataset"], r["epsilon"], r["seed"]): r["l1"] for r in load_rows(tmp_path)}
    assert got == {("titanic", 0.3, 0): 0.85, ("adult", 1.0, 0): 0.2406}


def test_v15_rows_replace_v13_default_rows_and_keep_the_v14_selection_rows(tmp_path):
    """The session-31 titanic default rows (v15, the 1-way bar 2.5 with its shrinkage) replace the v13 default rows of
    their keys; the v14 rows of the opt-in selection (method ``sosproj_sel``) and the v13 adult rows stay."""
    _write(tmp_path / "v13_titanic.jsonl", [_row("sosproj", 0.3, 0, 1.08)])
    _write(tmp_path / "v13_adult.jsonl", [_row("sosproj", 1.0, 0, 0.2406, "adult")])
    _write(tmp_path / "v14_titanic.jsonl", [_row("sosproj_sel", 0.3, 0, 0.85)])
    _write(tmp_path / "v15_titanic.jsonl", [_row("sosproj", 0.3, 0, 0.87)])
    got = {(r["dataset"], r["method"], r["epsilon"], r["seed"]): r["l1"] for r in load_rows(tmp_path)}
    assert got == {("titanic", "sosproj", 0.3, 0): 0.87, ("titanic", "sosproj_sel", 0.3, 0): 0.85,
                   ("adult", "sosproj", 1.0, 0): 0.2406}


def test_v16_rows_replace_v15_titanic_and_v13_adult_default_rows(tmp_path):
    """The session-32 default rows (v16, the 2-3-way James-Stein shrinkage) replace the v15 titanic and v13 adult
    default rows of their keys; keys v16 does not cover (adult at 0.03) and the selection rows stay."""
    _write(tmp_path / "v13_adult.jsonl", [_row("sosproj", 1.0, 0, 0.2406, "adult"),
                                          _row("sosproj", 0.03, 0, 0.53, "adult")])
    _write(tmp_path / "v14_titanic.jsonl", [_row("sosproj_sel", 1.0, 0, 0.72)])
    _write(tmp_path / "v15_titanic.jsonl", [_row("sosproj", 1.0, 0, 0.70)])
    _write(tmp_path / "v16_titanic.jsonl", [_row("sosproj", 1.0, 0, 0.69)])
    _write(tmp_path / "v16_adult.jsonl", [_row("sosproj", 1.0, 0, 0.235, "adult")])
    got = {(r["dataset"], r["method"], r["epsilon"], r["seed"]): r["l1"] for r in load_rows(tmp_path)}
    assert got == {("titanic", "sosproj", 1.0, 0): 0.69, ("titanic", "sosproj_sel", 1.0, 0): 0.72,
                   ("adult", "sosproj", 1.0, 0): 0.235, ("adult", "sosproj", 0.03, 0): 0.53}


def test_v6_rows_replace_v5_rows_of_the_same_key_and_keep_the_rest(tmp_path):
    _write(tmp_path / "v5_planted64.jsonl", [_row("sosproj", 0.3, 0, 0.45, "planted64"),
                                             _row("rp_trunc", 0.3, 0, 0.31, "planted64")])
    _write(tmp_path / "v6_planted64.jsonl", [_row("sosproj", 0.3, 0, 0.25, "planted64")])
    _write(tmp_path / "v4_planted64.jsonl", [_row("sosproj", 0.3, 0, 0.99, "planted64")])
    got = {(r["method"], r["seed"]): r["l1"] for r in load_rows(tmp_path)}
    # v6 replaces v5 (and v4) for (planted64, sosproj, 0.3, 0); the peers' v5 row stays
    assert got == {("sosproj", 0): 0.25, ("rp_trunc", 0): 0.31}
    got_rev = {(r["method"], r["seed"]): r["l1"] for r in load_rows(tmp_path, ("v6_", "v5_"))}
    assert got_rev[("sosproj", 0)] == 0.45


def test_v7_rows_replace_v6_rows_of_the_same_key_and_keep_the_rest(tmp_path):
    _write(tmp_path / "v6_titanic.jsonl", [_row("sosproj", 0.3, 0, 1.24), _row("sosproj", 10.0, 0, 0.38)])
    _write(tmp_path / "v7_titanic.jsonl", [_row("sosproj", 0.3, 0, 1.06)])
    _write(tmp_path / "v4_titanic.jsonl", [_row("rp_trunc", 0.3, 0, 1.65)])
    got = {(r["method"], r["epsilon"]): r["l1"] for r in load_rows(tmp_path)}
    # v7 replaces v6 for (titanic, sosproj, 0.3, 0); the v6 row of another epsilon and the peers' v4 row stay
    assert got == {("sosproj", 0.3): 1.06, ("sosproj", 10.0): 0.38, ("rp_trunc", 0.3): 1.65}


def test_v8_rows_replace_v7_rows_of_the_same_key_and_keep_the_rest(tmp_path):
    _write(tmp_path / "v7_adult.jsonl", [_row("sosproj", 1.0, 0, 0.2517, "adult"),
                                         _row("sosproj", 1.0, 1, 0.2538, "adult")])
    _write(tmp_path / "v8_adult.jsonl", [_row("sosproj", 1.0, 0, 0.2497, "adult")])
    _write(tmp_path / "v4_adult.jsonl", [_row("rp_trunc", 1.0, 0, 0.40, "adult")])
    got = {(r["method"], r["seed"]): r["l1"] for r in load_rows(tmp_path)}
    # v8 replaces v7 for (adult, sosproj, 1, 0); the v7 row of another seed and the peers' v4 row stay
    assert got == {("sosproj", 0): 0.2497, ("sosproj", 1): 0.2538, ("rp_trunc", 0): 0.40}
    got_rev = {(r["method"], r["seed"]): r["l1"] for r in load_rows(tmp_path, ("v8_", "v7_"))}
    assert got_rev[("sosproj", 0)] == 0.2517


def test_v10_rows_replace_v9_rows_and_v1_files_are_not_read(tmp_path):
    """``v10_`` sorts before ``v9_`` by name: the prefix order, not the file names, decides."""
    _write(tmp_path / "v9_adult.jsonl", [_row("sosproj", 1.0, 0, 0.25, "adult"),
                                         _row("sosproj", 3.0, 0, 0.16, "adult")])
    _write(tmp_path / "v10_adult.jsonl", [_row("sosproj", 1.0, 0, 0.24, "adult")])
    _write(tmp_path / "v1_adult.jsonl", [_row("sosproj", 1.0, 0, 9.9, "adult")])
    got = {(r["epsilon"], r["seed"]): r["l1"] for r in load_rows(tmp_path)}
    assert got == {(1.0, 0): 0.24, (3.0, 0): 0.16}


def test_row_version_reads_the_file_prefix():
    assert row_version("v18_nltcs.jsonl") == "v18"
    assert row_version("v4_nltcs_sosproj.jsonl") == "v4"
    assert row_version("pgm_v4.jsonl") == "pgm_v4"


def test_a_cell_that_mixes_two_versions_is_flagged_and_marked(tmp_path):
    """Seeds 0-1 re-run in v18 beside a v5 seed 2: the default's cell mixes two versions of the code."""
    _write(tmp_path / "v5_nltcs.jsonl", [_row("sosproj", 0.03, s, 0.2, "nltcs") for s in range(3)]
           + [_row("tables", 0.03, s, 0.2, "nltcs") for s in range(3)])
    _write(tmp_path / "v18_nltcs.jsonl", [_row("sosproj", 0.03, s, 0.19, "nltcs") for s in range(2)])
    rows = load_rows(tmp_path)
    assert mixed_cells(rows) == {("nltcs", "sosproj", 0.03): {"v5": 1, "v18": 2}}
    for r in rows:
        r.update(seconds=1.0, rmse=1.0, peak_mib=None)
    text = make_tables(aggregate(rows), rows)
    l1_row = next(line for line in text.splitlines() if line.startswith("| 0.03 |"))
    assert l1_row.count("‡") == 1                       # the default's cell, not the peer's
    assert "| nltcs | sosproj default | v18: 2, v5: 1 |" in text
    # re-running the last seed makes the cell single-version again
    _write(tmp_path / "v18_nltcs.jsonl", [_row("sosproj", 0.03, s, 0.19, "nltcs") for s in range(3)])
    assert mixed_cells(load_rows(tmp_path)) == {}


def test_the_stored_cells_of_sosproj_are_single_version():
    """Every cell of the default and of its variants in docs/bench_peers.md comes from one version of the code (a
    partial re-run must re-run every seed of the cell, or none)."""
    rows = load_rows(RESULTS)
    assert mixed_cells(rows) == {}
    assert mixed_cells(rows, ("sosproj", "sosproj_sel", "sosproj_rp", "sosproj_lnn")) == {}


def test_every_stored_aim_or_mst_run_counts_once(tmp_path):
    """AIM / MST runs from pgm*.jsonl and from studies' rows*.jsonl: a run stored twice (same error) counts once,
    runs never replace each other, a cut-off counts once per seed, ``wall_s`` stands in for ``seconds``."""
    aim = [_row("aim", 1.0, 0, 0.70), _row("mst", 1.0, 0, 0.80)]
    _write(tmp_path / "pgm.jsonl", aim)
    _write(tmp_path / "pgm_v4.jsonl", aim + [dict(_row("aim", 1.0, 0, None, "nltcs"), cutoff=True)])
    (tmp_path / "study").mkdir()
    _write(tmp_path / "study" / "rows_aim1.jsonl", [dict(_row("aim", 1.0, 7, 0.72), wall_s=90.0),
                                                     dict(_row("aim", 1.0, 8, 0.70), wall_s=95.0),
                                                     _row("sosproj", 1.0, 7, 0.69)])
    _write(tmp_path / "study" / "notes.jsonl", [_row("aim", 1.0, 0, 0.5)])      # not a rows*.jsonl file
    runs = load_pgm_runs(tmp_path)
    got = sorted((r["dataset"], r["method"], r["seed"], r["l1"]) for r in runs)
    assert got == [("nltcs", "aim", 0, None), ("titanic", "aim", 0, 0.70), ("titanic", "aim", 1, 0.72),
                   ("titanic", "mst", 0, 0.80)]
    assert {r["l1"]: r["row_file"] for r in runs if r["method"] == "aim"}[0.72] == "study/rows_aim1.jsonl"
    assert [r["seconds"] for r in runs if r["l1"] == 0.72] == [90.0]


#: the AIM lines of the targets block: the target at the same adjacency (the default under add/remove) and the
#: replace-one default against the same runs (information)
AIM_SAME = ("| error <= 1.0x AIM at epsilon 0.3, 1, 3 (ratio of means; the stronger implementation); same adjacency: "
            "the default with adjacency='add-remove', AIM's and MST's own")
AIM_REPLACE_ONE = ("| error <= 1.0x AIM at epsilon 0.3, 1, 3 (ratio of means; the stronger implementation); "
                   "information: the replace-one default against their add/remove runs (a stronger guarantee than "
                   "theirs: conservative)")


def test_the_aim_target_is_judged_at_the_peers_adjacency(tmp_path):
    """The AIM / MST target reads the default released under add/remove (``sosproj_ar``, their adjacency); a cell
    with replace-one rows only is 'not run' there and judged on the information line."""
    rows = [_row("sosproj", 1.0, s, 0.70) for s in range(3)] + [_row("sosproj_ar", 1.0, s, 0.50) for s in range(3)]
    rows += [_row("sosproj", 3.0, s, 0.40) for s in range(3)]
    rows += [_row("aim", 1.0, 0, 0.60), _row("aim", 1.0, 1, 0.62), _row("aim", 3.0, 0, 0.45)]
    rows += [_row("mst", 1.0, 0, 0.90)]
    for r in rows:
        r.update(seconds=1.0, rmse=1.0, peak_mib=None)
    text = targets_block(aggregate(rows), rows)
    line = {t.split(" | ")[0]: t for t in text.splitlines()}
    same, info = line[AIM_SAME], line[AIM_REPLACE_ONE]
    assert "titanic 1: 0.820 (upper" in same and same.split(" | ")[1].startswith("1:")
    assert "titanic 3" in same.split(" | ")[3] and "not run" in same.split(" | ")[3]
    assert "titanic 1: 1.148 (upper" in info and "titanic 3: 0.889 (one run, AIM (smartnoise))" in info
    mst = line[AIM_SAME.replace("1.0x AIM", "1.0x MST")]
    assert "titanic 1: 0.556 (one run, MST (smartnoise))" in mst


def test_the_targets_block_states_a_miss_and_a_met_cell(tmp_path):
    rows = []
    for s in range(3):
        rows += [_row("sosproj", 0.3, s, 0.5 + 0.01 * s), _row("rp_trunc", 0.3, s, 1.2), _row("rp", 0.3, s, 1.3),
                 _row("sosproj", 1.0, s, 0.7), _row("grem_lnn", 1.0, s, 0.69 + 0.001 * s),
                 _row("rp_trunc", 1.0, s, 1.5)]
    rows += [_row("aim", 1.0, 0, 0.8), _row("aim", 1.0, 1, 0.75)]
    for r in rows:
        r.update(seconds=1.0, rmse=1.0, peak_mib=None)
    text = targets_block(aggregate(rows), rows)
    line = {t.split(" | ")[0]: t for t in text.splitlines()}
    assert "titanic 1: 1.0" in line["| default <= best linear peer (paired ratio <= 1.00, upper <= 1.03)"]
    assert "titanic 0.3: 0.4" not in text and " | 1 | - | - |" in line[
        "| titanic, adult at epsilon <= 0.3: <= 0.5x RP+truncate (paired)"]
    assert "titanic 1: 0.903 (upper" in line[
        AIM_REPLACE_ONE]


def test_a_cell_is_judged_against_the_stronger_implementation_of_aim(tmp_path):
    """dpmm's runs (``peer_impl = "dpmm"``) are their own peer column; the target takes the stronger one."""
    rows = [_row("sosproj", 1.0, s, 0.70) for s in range(3)]
    _write(tmp_path / "pgm.jsonl", [_row("aim", 1.0, 0, 0.80), _row("aim", 1.0, 1, 0.76)])
    (tmp_path / "study").mkdir()
    _write(tmp_path / "study" / "rows_dpmm.jsonl",
           [dict(_row("aim", 1.0, s, 0.60 + 0.01 * s), peer_impl="dpmm") for s in range(2)])
    runs = load_pgm_runs(tmp_path)
    assert sorted({r["method"] for r in runs}) == ["aim", "aim_dpmm"]
    rows += runs
    for r in rows:
        r.update(seconds=1.0, rmse=1.0, peak_mib=None)
    agg = aggregate(rows)
    text = targets_block(agg, rows)
    line = {t.split(" | ")[0]: t for t in text.splitlines()}
    aim = line[AIM_REPLACE_ONE]
    # smartnoise alone would be met (0.70 / 0.78 = 0.897); dpmm's runs (mean 0.605) make it a miss, 1.157
    assert "titanic 1: 1.157" in aim and "AIM (dpmm)" in aim and "AIM (smartnoise): 0.897" in aim
    assert aim.split(" | ")[1].startswith("0:")
    assert "vs AIM (dpmm): error ratio" in make_tables(agg, rows)


def test_the_opt_in_selections_are_shown_against_aim_as_information_only(tmp_path):
    """The better opt-in selection of a cell is compared with the stronger AIM on its own line; the default's AIM
    line is unchanged by it (the target is the default's)."""
    rows = [_row("sosproj", 1.0, s, 0.70) for s in range(3)] + [_row("sosproj_pairs", 1.0, s, 0.55) for s in range(3)]
    rows += [_row("sosproj_sel", 1.0, s, 0.72) for s in range(3)]
    _write(tmp_path / "pgm.jsonl", [_row("aim", 1.0, 0, 0.60), _row("aim", 1.0, 1, 0.62)])
    rows += load_pgm_runs(tmp_path)
    for r in rows:
        r.update(seconds=1.0, rmse=1.0, peak_mib=None)
    text = targets_block(aggregate(rows), rows)
    line = {t.split(" | ")[0]: t for t in text.splitlines()}
    key = ("| information: the better opt-in private selection against AIM (the stronger implementation; not "
           "the default)")
    info = line[key]
    assert "titanic 1: 0.902 (sosproj selection=pairs)" in info and info.split(" | ")[1].startswith("1:")
    # with add/remove rows (the peer's adjacency) those are shown, even where a replace-one row is lower
    rows2 = rows + [dict(_row("sosproj_pairs_ar", 1.0, s, 0.58), seconds=1.0, rmse=1.0, peak_mib=None)
                    for s in range(3)]
    line2 = {t.split(" | ")[0]: t for t in targets_block(aggregate(rows2), rows2).splitlines()}
    assert "titanic 1: 0.951 (sosproj selection=pairs, add/remove)" in line2[key]
    aim = line[AIM_REPLACE_ONE]
    assert "titanic 1: 1.148" in aim and aim.split(" | ")[1].startswith("0:")


def test_the_generated_docs_are_what_the_stored_rows_give():
    """docs/bench_peers.md and docs/benchmarks.md hold exactly what report.py writes from the stored rows (no
    stale number: re-run ``python benchmarks/peers/report.py`` after adding rows)."""
    rows = load_rows(RESULTS)
    agg = aggregate(rows)
    docs = Path(__file__).resolve().parents[1] / "docs"
    for page, tag, text in [("bench_peers.md", "generated", make_tables(agg, rows)),
                            ("benchmarks.md", "peers-targets", targets_block(agg, rows))]:
        s = (docs / page).read_text()
        a, b = f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"
        assert s[s.index(a) + len(a):s.index(b)] == "\n" + text + "\n", page
