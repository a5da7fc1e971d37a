"""Tables and plot of docs/bench_peers.md from the stored JSON rows of benchmarks/results_peers/*.jsonl.

Usage: ``python benchmarks/peers/report.py [--results DIR] [--doc FILE.md] [--img FILE.png]``.
Rewrites the part of the doc between ``<!-- generated:start -->`` and ``<!-- generated:end -->`` and
prints the ratio table.  Every number in that part comes from the rows.

Rows: the run files ``v4_*.jsonl``, then ``v5_*.jsonl``, ``v6_*.jsonl``, ``v7_*.jsonl``, ``v8_*.jsonl``, ``v9_*.jsonl``,
``v10_*.jsonl``, ``v11_*.jsonl``, ``v12_*.jsonl``, ``v13_*.jsonl`` (titanic / adult default rows under the
per-order skip thresholds, session 29), ``v14_*.jsonl`` (titanic default rows with the private 1-way selection,
session 30), ``v15_*.jsonl`` (titanic default rows with the 1-way bar 2.5 and its James-Stein shrinkage, session 31),
``v16_*.jsonl`` (titanic and adult default rows with the 2-3-way James-Stein shrinkage, session 32)
``v17_*.jsonl`` (titanic and adult default rows with the 3-way bar 12 and the PSD step's order limit, session 33)
and ``v18_*.jsonl`` (nltcs and planted32 default rows re-run on the current binary pipeline, session 34)
(``--prefix``, in that order:
a later version's row replaces the earlier one with the same (dataset, method, epsilon, seed), e.g. the
default re-run after the one-hot PSD fallback while the peers' ``v4`` rows of the same seeds stay, or
the planted64 default re-run in ``v6`` while the peers' ``v5`` rows stay); older row files stay in the folder and
are not read. AIM and MST: every stored run, from ``pgm*.jsonl`` and from the studies' ``rows*.jsonl`` files
below the results folder (AIM / MST noise is unseeded, so each run is one more draw; :func:`load_pgm_runs`).

Provenance: every row keeps the name of its file (``row_file``). A cell of one of sosproj's own methods whose rows
come from more than one version (``vN_``) mixes two versions of the code, e.g. a re-run of seeds 0-4 beside
older seeds 5-99; such a cell is marked ``‡`` in the tables, and the section "Row versions" lists the versions
behind every cell of sosproj's methods (``tests/test_bench_peers_report.py`` requires the default's cells to be
single-version).

Statistics: mean over seeds with a 95% Student-t interval; ratio ``default / best peer`` of means with a
delta-method 95% upper end ``r (1 + sqrt((h_a/a)^2 + (h_b/b)^2))`` (``h`` = half-widths; as if the
seeds of the two methods were independent draws); and the paired ratio: geometric mean of the
per-seed ratios with a 95% t-interval on the log-ratios (the post-processing peers and sosproj's
releases of one seed share the noise draw, so the per-seed ratio cancels most of it).
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ORDER = ("sosproj", "sosproj_sel", "sosproj_pairs", "sosproj_rp", "sosproj_lnn", "sosproj_ar", "sosproj_pairs_ar",
         "sosproj_pairs_tree_ar", "rp", "rp_trunc", "grem_lnn", "tables", "aim", "aim_dpmm", "mst", "mst_dpmm")
LABEL = {"sosproj": "sosproj default", "sosproj_sel": "sosproj selection=one-way",
         "sosproj_pairs": "sosproj selection=pairs", "sosproj_rp": "sosproj alloc=rp",
         "sosproj_lnn": "sosproj recon=lnn", "sosproj_ar": "sosproj default, add/remove",
         "sosproj_pairs_ar": "sosproj selection=pairs, add/remove",
         "sosproj_pairs_tree_ar": "sosproj selection=pairs + tree prior, add/remove",
         "rp": "RP (BLUE)", "rp_trunc": "RP+truncate", "grem_lnn": "GReM-LNN", "tables": "equal tables+cube",
         "aim": "AIM (smartnoise)", "aim_dpmm": "AIM (dpmm)", "mst": "MST (smartnoise)", "mst_dpmm": "MST (dpmm)"}
#: the implementations of each Private-PGM peer: smartnoise-synth 1.0.8 (rows without ``peer_impl``) and dpmm 0.1.9,
#: the authors' pre-refactoring code (rows with ``peer_impl = "dpmm"``, method renamed ``<peer>_dpmm`` on reading);
#: a target cell is judged against the stronger of them (docs/bench_peers.md, "Which AIM")
PGM_IMPLS = {"aim": ("aim", "aim_dpmm"), "mst": ("mst", "mst_dpmm")}
LINEAR_PEERS = ("rp", "rp_trunc", "grem_lnn", "tables")
#: sosproj's methods released under add/remove adjacency (AIM's and MST's): compared with them at the same guarantee
ADD_REMOVE_OWN = ("sosproj_ar", "sosproj_pairs_ar", "sosproj_pairs_tree_ar")
DATASETS = ("nltcs", "titanic", "adult", "planted32", "planted64")


def t975(n: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.975, n - 1)) if n > 1 else math.inf


#: Row files of the current runs (sosproj and the linear peers), read in this order (a later prefix's row
#: replaces an earlier one's with the same key); older files are kept, never read.
PREFIXES = ("v4_", "v5_", "v6_", "v7_", "v8_", "v9_", "v10_", "v11_", "v12_", "v13_", "v14_", "v15_", "v16_", "v17_",
            "v18_", "v19_", "v20_", "v21_", "v22_")
#: AIM / MST rows (written by their own runner, ``benchmarks/peers/run_private_pgm.py``, directly or through the
#: studies' harnesses): read whatever the prefix, every row of method ``aim`` / ``mst`` in these files
#: (:func:`load_pgm_runs`).
PGM_GLOB = "pgm*.jsonl"
PGM_RUN_GLOBS = (PGM_GLOB, "**/rows*.jsonl")


def load_rows(results: Path, prefixes: tuple[str, ...] | list[str] = PREFIXES) -> list[dict]:
    """Every stored row of the current runs (``{prefix}*.jsonl`` for each prefix, in the order given), one per
    (dataset, method, epsilon, seed), and every stored AIM / MST run (:func:`load_pgm_runs`): the LAST read wins,
    files in prefix order then file-name order (so a ``v5_`` row replaces the ``v4_`` row of its key, and a
    ``v6_`` row the ``v5_`` one)."""
    rows: dict = {}
    files = [f for p in prefixes for f in sorted(results.glob(f"{p}*.jsonl"))]
    for f in files:
        for x in f.read_text().splitlines():
            if x.strip():
                r = json.loads(x)
                r["row_file"] = f.name
                rows[(r["dataset"], r["method"], float(r["epsilon"]), int(r["seed"]))] = r
    return list(rows.values()) + load_pgm_runs(results)


def load_pgm_runs(results: Path) -> list[dict]:
    """Every AIM / MST run stored under ``results`` (:data:`PGM_RUN_GLOBS`), once each.

    AIM and MST draw unseeded noise, so every stored run is an independent draw and all of them count. A run of
    dpmm's implementation (``peer_impl = "dpmm"``) is kept as method ``aim_dpmm`` / ``mst_dpmm``. The same
    run recorded in two files (``pgm.jsonl`` and ``pgm_v4.jsonl``, a study's copy) has the same error to 12 digits
    and is kept once (the first file read); a cut-off run (``l1`` null) is kept once per (cell, seed). Each kept
    run gets ``seed`` = its index in the cell (so runs never replace each other), ``seconds`` (its own, or
    ``wall_s`` where the study recorded that) and ``row_file`` (its file, relative to ``results``).
    """
    runs: dict = {}
    for pattern in PGM_RUN_GLOBS:
        for f in sorted(results.glob(pattern)):
            for x in f.read_text().splitlines():
                if not x.strip():
                    continue
                r = json.loads(x)
                if r.get("method") not in ("aim", "mst"):
                    continue
                if r.get("peer_impl") == "dpmm":
                    r = dict(r, method=f"{r['method']}_dpmm")
                cell = (r["dataset"], r["method"], float(r["epsilon"]))
                run = round(float(r["l1"]), 12) if r.get("l1") is not None else ("cut off", r.get("seed"))
                if (cell, run) in runs:
                    continue
                r = dict(r, row_file=str(f.relative_to(results)))
                r.setdefault("seconds", r.get("wall_s") if r.get("wall_s") is not None else r.get("cutoff_s"))
                runs[(cell, run)] = r
    count: dict = defaultdict(int)
    out = []
    for (cell, _), r in runs.items():
        r["seed"] = count[cell]
        count[cell] += 1
        out.append(r)
    return out


def row_version(row_file: str) -> str:
    """The version of a row file: its ``vN`` prefix (``"v18"`` for ``v18_nltcs.jsonl``), else its stem
    (``"pgm_v4"``)."""
    head = row_file.split("_", 1)[0]
    return head if head[:1] == "v" and head[1:].isdigit() else row_file.rsplit(".", 1)[0]


def cell_versions(rows: list[dict]) -> dict:
    """``{(dataset, method, epsilon): {version: number of rows}}`` over the rows (:func:`row_version` of each
    row's ``row_file``; rows without one count as ``"?"``)."""
    out: dict = defaultdict(lambda: defaultdict(int))
    for r in rows:
        v = row_version(r["row_file"]) if "row_file" in r else "?"
        out[(r["dataset"], r["method"], float(r["epsilon"]))][v] += 1
    return {k: dict(v) for k, v in out.items()}


def mixed_cells(rows: list[dict], methods: tuple[str, ...] = ("sosproj",)) -> dict:
    """The cells of ``methods`` whose rows come from more than one version (see :func:`cell_versions`)."""
    return {k: v for k, v in cell_versions(rows).items() if k[1] in methods and len(v) > 1}


def aggregate(rows: list[dict]) -> dict:
    cells: dict = defaultdict(list)
    for r in rows:
        cells[(r["dataset"], r["method"], float(r["epsilon"]))].append(r)
    out = {}
    for key, rs in cells.items():
        ok = [r for r in rs if r.get("l1") is not None]
        l1 = np.array([r["l1"] for r in ok])
        n = len(l1)
        agg = {"n": n, "cutoffs": len(rs) - n,
               "seconds": float(np.median([r["seconds"] for r in rs if r.get("seconds") is not None] or [math.nan])),
               "peak_mib": max([r["peak_mib"] for r in rs if r.get("peak_mib") is not None], default=math.nan),
               "converged": all(r.get("converged", True) for r in ok)}
        if n:
            agg["l1"] = float(l1.mean())
            agg["h"] = float(t975(n) * l1.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf
            agg["rmse"] = float(np.mean([r.get("rmse", math.nan) for r in ok]))
        out[key] = agg
    return out


def fmt(x: float) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.3g}" if abs(x) < 1e4 else f"{x:.2e}"


def ratio(a: dict, b: dict) -> tuple[float, float]:
    r = a["l1"] / b["l1"]
    rel = math.sqrt((a["h"] / a["l1"]) ** 2 + (b["h"] / b["l1"]) ** 2) if b["l1"] > 0 else math.inf
    return r, r * (1 + rel)


def paired_ratio(rows: list[dict], ds: str, eps: float, a: str, b: str) -> tuple[float, float, float, int] | None:
    """Per-seed ratios ``l1(a) / l1(b)`` over the seeds both hold: geometric mean and its 95% t-interval
    (mean of the log-ratios +- t * sd / sqrt(n), exponentiated), and n.  ``None`` with fewer than 2 seeds."""
    by = {m: {int(r["seed"]): r["l1"] for r in rows if r["dataset"] == ds and r["method"] == m
              and float(r["epsilon"]) == eps and r.get("l1") is not None} for m in (a, b)}
    seeds = sorted(set(by[a]) & set(by[b]))
    if len(seeds) < 2:
        return None
    lr = np.log([by[a][s] / by[b][s] for s in seeds])
    h = t975(len(lr)) * lr.std(ddof=1) / math.sqrt(len(lr))
    return float(np.exp(lr.mean())), float(np.exp(lr.mean() - h)), float(np.exp(lr.mean() + h)), len(lr)


def fmt_paired(pr: tuple[float, float, float, int] | None) -> str:
    return "-" if pr is None else f"{pr[0]:.3f} [{pr[1]:.3f}, {pr[2]:.3f}] (n={pr[3]})"


def make_tables(agg: dict, rows: list[dict] | None = None) -> str:
    rows = rows or []
    own = tuple(m for m in ORDER if m.startswith("sosproj"))
    mixed = mixed_cells(rows, own)
    lines = []
    datasets = [d for d in DATASETS if any(k[0] == d for k in agg)]
    for ds in datasets:
        methods = [m for m in ORDER if any(k[0] == ds and k[1] == m for k in agg)]
        eps_all = sorted({k[2] for k in agg if k[0] == ds})
        lines += [f"#### {ds}: L1 per marginal / m (mean ± 95% half-width over seeds; n = seeds)", "",
                  "| epsilon | " + " | ".join(LABEL[m] for m in methods) + " |",
                  "|---|" + "---|" * len(methods)]
        for e in eps_all:
            cells = []
            for m in methods:
                a = agg.get((ds, m, e))
                if a is None:
                    cells.append("")
                elif "l1" not in a:
                    cells.append(f"cut off ({a['cutoffs']}x, {fmt(a['seconds'])} s)")
                else:
                    s = f"{fmt(a['l1'])} ± {fmt(a['h'])} (n={a['n']})"
                    if not a["converged"]:
                        s += " †"
                    if (ds, m, e) in mixed:
                        s += " ‡"
                    cells.append(s)
            lines.append(f"| {e:g} | " + " | ".join(cells) + " |")
        lines.append("")
    # ratio table: default vs best peer (a Private-PGM implementation gets a column once it has a stored run)
    pgm_cols = [p for p in ORDER if p in ("aim", "mst") or (p in PGM_IMPLS["aim"] + PGM_IMPLS["mst"]
                                                             and any(k[1] == p for k in agg))]
    lines += ["#### Ratios: sosproj default / best peer", "",
              "Best linear peer = lowest mean error in the cell. Unpaired: ratio of means, upper end of its "
              "delta-method 95% interval. Paired: geometric mean of the per-seed ratios with its 95% t-interval "
              "(RP, RP+truncate and GReM-LNN post-process the same noisy measurement as sosproj's alloc=rp, "
              "whose standard normals the default shares; equal tables draws its own noise, so against it the "
              "pairing is by seed only).", "",
              "| dataset | epsilon | best linear peer | ratio (upper) | paired ratio [95% interval] | "
              + " | ".join(f"vs {LABEL[p]}: error ratio, time ratio*" for p in pgm_cols) + " |",
              "|---|---|---|---|---|" + "---|" * len(pgm_cols)]
    for ds in datasets:
        for e in sorted({k[2] for k in agg if k[0] == ds}):
            d = agg.get((ds, "sosproj", e))
            if d is None or "l1" not in d:
                continue
            peers = [(agg[(ds, p, e)]["l1"], p) for p in LINEAR_PEERS if "l1" in agg.get((ds, p, e), {})]
            if peers:
                best = min(peers)[1]
                r, up = ratio(d, agg[(ds, best, e)])
                bl = (f"{LABEL[best]} | {r:.3f} ({fmt(up) if math.isfinite(up) else 'one seed'}) | "
                      f"{fmt_paired(paired_ratio(rows, ds, e, 'sosproj', best))}")
            else:
                bl = "- | - | -"
            pg = []
            for p in pgm_cols:
                a = agg.get((ds, p, e))
                if a is None:
                    pg.append("not run")
                elif "l1" not in a:
                    pg.append(f"cut off at {fmt(a['seconds'])} s")
                else:
                    r, up = ratio(d, a) if a["n"] > 1 else (d["l1"] / a["l1"], math.nan)
                    ups = fmt(up) if math.isfinite(up) else "one seed"
                    pg.append(f"{r:.3f} ({ups}), {d['seconds'] / a['seconds']:.4f} (n={a['n']})")
            lines.append(f"| {ds} | {e:g} | {bl} | " + " | ".join(pg) + " |")
    lines += ["", "\\* Time ratio = the default's median wall time in these rows / the peer's recorded wall time, from "
              "runs at other times and loads: NOT same-run, indicative only. The same-run CPU ratios are in "
              "[Runtime against AIM and MST, same run](#runtime-against-aim-and-mst-same-run)."]
    lines.append("")
    # paired ratios against every post-processing peer and the variants
    others = ("rp_trunc", "grem_lnn", "tables", "sosproj_sel", "sosproj_pairs", "sosproj_rp", "sosproj_lnn")
    lines += ["#### Paired ratios: sosproj default / each method (geometric mean of per-seed ratios, 95% interval)",
              "", "| dataset | epsilon | " + " | ".join(LABEL[m] for m in others) + " |",
              "|---|---|" + "---|" * len(others)]
    for ds in datasets:
        for e in sorted({k[2] for k in agg if k[0] == ds}):
            if (ds, "sosproj", e) not in agg:
                continue
            lines.append(f"| {ds} | {e:g} | " + " | ".join(fmt_paired(paired_ratio(rows, ds, e, "sosproj", m))
                                                         for m in others) + " |")
    lines.append("")
    # runtime / memory
    lines += ["#### Runtime (median seconds per release) and peak memory (MiB) at epsilon = 1", "",
              "| dataset | " + " | ".join(LABEL[m] for m in ORDER) + " |", "|---|" + "---|" * len(ORDER)]
    for ds in datasets:
        cells = []
        for m in ORDER:
            a = agg.get((ds, m, 1.0))
            cells.append("" if a is None else f"{fmt(a['seconds'])} s, {fmt(a['peak_mib'])} MiB")
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    lines += ["", "† GReM-LNN stopped at its iteration cap before the tolerance (0.1 counts) on at least one seed.",
              "‡ the cell's rows come from more than one version of sosproj (see Row versions).", ""]
    # provenance of sosproj's own cells
    versions = cell_versions(rows)
    lines += ["#### Row versions of sosproj's cells (row file prefix: rows)", "",
              "| dataset | method | " + " | ".join(f"{e:g}" for e in sorted({k[2] for k in agg})) + " |",
              "|---|---|" + "---|" * len({k[2] for k in agg})]
    for ds in datasets:
        for m in own:
            if not any(k[0] == ds and k[1] == m for k in versions):
                continue
            cells = []
            for e in sorted({k[2] for k in agg}):
                v = versions.get((ds, m, e))
                cells.append("" if v is None else ", ".join(f"{x}: {n}" for x, n in sorted(v.items())))
            lines.append(f"| {ds} | {LABEL[m]} | " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


#: Issue 14's error targets, checked cell by cell from the rows (:func:`targets_block`).
TARGET_DATASETS = ("nltcs", "titanic", "adult")
#: the linear-peer bar: paired ratio <= 1.00 and the upper end of its 95% interval <= 1.03
BAR_RATIO, BAR_UPPER = 1.00, 1.03
#: at epsilon <= 0.3 on titanic and adult: paired ratio against RP + truncate <= 0.5
TRUNC_EPS, TRUNC_RATIO = 0.3, 0.5
#: against AIM and MST at these epsilons: ratio of means <= 1.0
PGM_EPS = (0.3, 1.0, 3.0)


def targets_block(agg: dict, rows: list[dict]) -> str:
    """Issue 14's error targets at a glance, every cell computed from the stored rows (docs/benchmarks.md).

    * the default against the best linear peer of the cell (RP, RP + truncate, GReM-LNN, equal tables + cube):
      paired ratio <= 1.00 with the upper end of its 95% interval <= 1.03;
    * titanic and adult at epsilon <= 0.3: paired ratio against RP + truncate <= 0.5;
    * against AIM and MST at epsilon 0.3, 1, 3: ratio of means <= 1.0 (every stored run; cut-off runs and cells
      without a run are listed as such), judged at the same guarantee: the default released under add/remove
      adjacency (``sosproj_ar``), the adjacency of AIM's and MST's zCDP accounting (issue 14: "with the same privacy
      parameters and adjacency"); the replace-one default against the same runs is shown as information. Their
      runtime target is a same-run measurement, not in these rows.
    """
    def paired(ds: str, e: float, peer: str) -> tuple[float, float, float, int] | None:
        return paired_ratio(rows, ds, e, "sosproj", peer)

    out = ["| target | cells met | cells missed (value) | not measured |", "|---|---|---|---|"]
    met, missed = [], []
    for ds in TARGET_DATASETS:
        for e in sorted({k[2] for k in agg if k[0] == ds}):
            peers = [(agg[(ds, p, e)]["l1"], p) for p in LINEAR_PEERS if "l1" in agg.get((ds, p, e), {})]
            if not peers or "l1" not in agg.get((ds, "sosproj", e), {}):
                continue
            best = min(peers)[1]
            pr = paired(ds, e, best)
            if pr is None:
                continue
            ok = pr[0] <= BAR_RATIO and pr[2] <= BAR_UPPER
            (met if ok else missed).append(f"{ds} {e:g}: {pr[0]:.3f} [{pr[1]:.3f}, {pr[2]:.3f}] vs {LABEL[best]}")
    out.append(f"| default <= best linear peer (paired ratio <= {BAR_RATIO:.2f}, upper <= {BAR_UPPER:.2f}) | "
               f"{len(met)} | {'; '.join(missed) or '-'} | - |")
    met, missed = [], []
    for ds in ("titanic", "adult"):
        for e in sorted({k[2] for k in agg if k[0] == ds and k[2] <= TRUNC_EPS}):
            pr = paired(ds, e, "rp_trunc")
            if pr is None:
                continue
            (met if pr[0] <= TRUNC_RATIO else missed).append(f"{ds} {e:g}: {pr[0]:.3f}")
    out.append(f"| titanic, adult at epsilon <= {TRUNC_EPS:g}: <= {TRUNC_RATIO}x RP+truncate (paired) | {len(met)} | "
               f"{'; '.join(missed) or '-'} | - |")
    for peer in PGM_IMPLS:
        out.append(pgm_line(agg, peer, "sosproj_ar",
                            "same adjacency: the default with adjacency='add-remove', AIM's and MST's own"))
    for peer in PGM_IMPLS:
        out.append(pgm_line(agg, peer, "sosproj",
                            "information: the replace-one default against their add/remove runs (a stronger "
                            "guarantee than theirs: conservative)"))
    out.append(opt_in_line(agg))
    return "\n".join(out)


def pgm_line(agg: dict, peer: str, own: str, what: str) -> str:
    """The target line of one Private-PGM peer (AIM or MST) at :data:`PGM_EPS`: sosproj's method ``own`` against the
    stronger of the peer's implementations (the higher ratio of means), per (dataset, epsilon) cell."""
    impls = PGM_IMPLS[peer]
    met, missed, cut, absent = [], [], [], []
    for ds in TARGET_DATASETS:
        for e in PGM_EPS:
            d = agg.get((ds, own, e))
            found = [(impl, agg[(ds, impl, e)]) for impl in impls if (ds, impl, e) in agg]
            scored = [(impl, a) for impl, a in found if "l1" in a]
            if d is None or "l1" not in d or not found:
                absent.append(f"{ds} {e:g}")
            elif not scored:
                cut.append(f"{ds} {e:g}: " + ", ".join(f"{LABEL[i]} cut off at {fmt(a['seconds'])} s"
                                                      for i, a in found))
            else:
                judged = []
                for impl, a in scored:
                    r, up = ratio(d, a) if a["n"] > 1 and d["n"] > 1 else (d["l1"] / a["l1"], math.nan)
                    judged.append((r, up, impl, a["n"]))
                r, up, impl, n = max(judged)
                runs = f"upper {fmt(up)}, {n} runs" if math.isfinite(up) else "one run"
                note = f"{r:.3f} ({runs}" + (f", {LABEL[impl]})" if len(impls) > 1 else ")")
                others = [f"{LABEL[i]}: {x:.3f}" for x, _, i, _ in judged if i != impl]
                note += f" [{'; '.join(others)}]" if others else ""
                (met if r <= 1.0 else missed).append(f"{ds} {e:g}: {note}")
    return (f"| error <= 1.0x {peer.upper()} at epsilon 0.3, 1, 3 (ratio of means; the stronger implementation); "
            f"{what} | {len(met)}: {'; '.join(met) or '-'} | {'; '.join(missed) or '-'} | "
            f"{'; '.join(cut + ([', '.join(absent) + ': not run'] if absent else [])) or '-'} |")


#: the opt-in private selections (their noise scales depend on a private output, so they are never the default),
#: at AIM's adjacency (add/remove) and at replace-one. ``sosproj_pairs_tree_ar`` (the explicit tree prior) is left
#: out since session 39: ``selection="pairs"`` uses the tree prior itself, so it is the same release as
#: ``sosproj_pairs_ar`` (rows ``v22_pairs``), which has more seeds
OPT_IN = ("sosproj_pairs_ar", "sosproj_sel", "sosproj_pairs")
#: the selections run where the public skip rule runs, the categorical data (on binary data a release with
#: ``selection=`` is the default's)
OPT_IN_DATASETS = ("titanic", "adult")


def opt_in_line(agg: dict) -> str:
    """Information, not a target: the better opt-in private selection of each AIM cell that has rows for one
    (ratio of means against the stronger AIM implementation, as the default's line; add/remove rows first, the
    peer's adjacency: the first of :data:`OPT_IN` with rows in the cell is shown)."""
    met, missed = [], []
    for ds in OPT_IN_DATASETS:
        for e in PGM_EPS:
            opts = [(agg[(ds, m, e)]["l1"], m) for m in OPT_IN if "l1" in agg.get((ds, m, e), {})]
            aims = [agg[(ds, i, e)]["l1"] for i in PGM_IMPLS["aim"] if "l1" in agg.get((ds, i, e), {})]
            if not opts or not aims:
                continue
            same = [o for o in opts if o[1] in ADD_REMOVE_OWN]
            l1, m = min(same or opts)
            r = l1 / min(aims)
            (met if r <= 1.0 else missed).append(f"{ds} {e:g}: {r:.3f} ({LABEL[m]})")
    return (f"| information: the better opt-in private selection against AIM (the stronger implementation; not the "
            f"default) | {len(met)}: {'; '.join(met) or '-'} | {'; '.join(missed) or '-'} | - |")


def plot(agg: dict, img: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = [d for d in DATASETS if any(k[0] == d for k in agg)]
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.2 * len(datasets), 3.8), squeeze=False)
    handles: dict = {}
    for ax, ds in zip(axes[0], datasets):
        for m in ORDER:
            pts = sorted((k[2], v) for k, v in agg.items() if k[0] == ds and k[1] == m and "l1" in v)
            if not pts:
                continue
            e = np.array([p[0] for p in pts])
            y = np.array([p[1]["l1"] for p in pts])
            h = np.array([p[1]["h"] if math.isfinite(p[1]["h"]) else 0.0 for p in pts])
            style = "o-" if m.startswith("sosproj") else ("s--" if m.split("_")[0] in PGM_IMPLS else ".-")
            color = f"C{ORDER.index(m)}"  # one color per method across panels
            (line,) = ax.plot(e, y, style, label=LABEL[m], ms=5, color=color)
            handles[m] = line
            ax.fill_between(e, np.maximum(y - h, y * 1e-3), y + h, color=color, alpha=0.2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(ds)
        ax.set_xlabel("epsilon")
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("L1 per marginal / m (all 3-way marginals)")
    ms = [m for m in ORDER if m in handles]
    fig.legend([handles[m] for m in ms], [LABEL[m] for m in ms], loc="lower center", ncol=len(ms), fontsize=8)
    fig.suptitle("Error vs epsilon, delta = 1e-9, replace-one (AIM/MST and the 'add/remove' lines: add/remove), "
                 "95% CI bands")
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    img.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(img, dpi=110)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default=str(ROOT / "benchmarks/results_peers"))
    ap.add_argument("--doc", default=str(ROOT / "docs/bench_peers.md"))
    ap.add_argument("--img", default=str(ROOT / "docs/img/bench_peers.png"))
    ap.add_argument("--targets-doc", default=str(ROOT / "docs/benchmarks.md"),
                    help="the page whose generated part gets the issue-14 targets table")
    ap.add_argument("--prefix", nargs="+", default=list(PREFIXES),
                    help="row files of the current runs, PREFIX*.jsonl, read in this order (later rows win)")
    args = ap.parse_args(argv)
    rows = load_rows(Path(args.results), args.prefix)
    agg = aggregate(rows)
    text = make_tables(agg, rows)
    write_generated(Path(args.doc), text)
    write_generated(Path(args.targets_doc), targets_block(agg, rows), "peers-targets")
    plot(agg, Path(args.img))
    print(text)


def write_generated(doc: Path, text: str, tag: str = "generated") -> None:
    """Replace the part of ``doc`` between ``<!-- {tag}:start -->`` and ``<!-- {tag}:end -->`` by ``text``
    (nothing happens when the file or a marker is missing)."""
    if not doc.exists():
        return
    s = doc.read_text()
    a, b = f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"
    if a in s and b in s:
        doc.write_text(s[:s.index(a) + len(a)] + "\n" + text + "\n" + s[s.index(b):])


if __name__ == "__main__":
    main()
