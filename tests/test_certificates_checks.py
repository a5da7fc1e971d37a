"""The registered checks at tiny sizes: verdicts, recorded constants, and wrong bounds that fail."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.certificates import get_check, list_checks, run_check
from sosproj.certificates.registry import (
    Check,
    CheckUnavailable,
    Outcome,
    bound_verdict,
    combine,
    exponent_verdict,
)
from sosproj.errors import InvalidParameterError

EXPECTED = {"stability", "cosine_set", "injective_norm", "sparse_lemma", "even_sparse", "end_to_end",
            "cube_vs_ball"}

STAB = {"n": 4, "sets": ["box", "frobenius", "psd_frobenius"], "sigmas": [0.1, 0.3, 1.0], "trials": 40,
        "n_boot": 200}


def test_registry_lists_every_claim_with_statement_and_reference():
    assert EXPECTED <= set(list_checks())
    for name in EXPECTED:
        c = get_check(name)
        assert c.statement and c.reference and set(c.quick) <= set(c.defaults)
    with pytest.raises(InvalidParameterError, match="no check named"):
        get_check("nope")
    with pytest.raises(InvalidParameterError, match="no parameter"):
        get_check("stability").resolve_params({"trails": 3})


def test_stability_constant_one_holds_and_records_the_measured_constant():
    r = run_check("stability", STAB, rng=0)
    assert r.verdict == "pass", r.reason
    assert 0.3 < r.measured["constant"] <= 1.0
    assert r.measured["firm_nonexpansive_violations"] == 0
    assert r.theoretical["holds_with_paper_constant"]
    assert len(r.table) == 9 and {row["set"] for row in r.table} == set(STAB["sets"])


def test_stability_with_a_deliberately_wrong_constant_fails():
    # test-only wrong variant: E||P(A+W)-P(A)||^2 <= 0.3 sigma G(S) is false (ratios reach ~0.6-0.9)
    r = run_check("stability", {**STAB, "constant": 0.3}, rng=0)
    assert r.verdict == "fail", r.reason


def test_cosine_set_bound_and_wrong_constant():
    params = {"ns": [3, 6], "trials": 10, "n_boot": 200}
    r = run_check("cosine_set", params, rng=1)
    assert r.verdict == "pass", r.reason
    assert 0.2 < r.measured["constant"] < 2.0 and np.isfinite(r.measured["exponent"])
    wrong = run_check("cosine_set", {**params, "constant": 0.2}, rng=1)
    assert wrong.verdict == "fail", wrong.reason


def test_sparse_lemma_is_tight_and_fails_with_a_smaller_constant():
    params = {"n": 2, "t": 1, "ks": [2], "max_degree": 4, "trials": 1, "kinds": ["ones", "gaussian"]}
    r = run_check("sparse_lemma", params, rng=2)
    assert r.verdict != "skip", r.reason  # every dependency is part of sosproj: never skip
    assert r.verdict == "pass", r.reason
    # the all-ones tensor attains ||A||_inf t^{k/2} with a real t-sparse unit vector: ratio 1
    assert r.measured["constant"] == pytest.approx(1.0, abs=1e-3)
    wrong = run_check("sparse_lemma", {**params, "constant": 0.9}, rng=2)
    assert wrong.verdict == "fail", wrong.reason


def test_injective_norm_records_exponent_and_constant():
    r = run_check("injective_norm", {"ns": [3, 4], "trials": 4, "n_boot": 100, "power_starts": 2}, rng=3)
    assert r.verdict != "skip", r.reason  # every dependency is part of sosproj: never skip
    assert r.verdict in ("pass", "inconclusive"), r.reason
    assert np.isfinite(r.measured["exponent"]) and r.measured["constant"] > 0
    # the SoS value bounds the true injective norm from above (power method gives a lower estimate)
    for row in r.table:
        assert row["draws_sos_below_power_method"] == 0
        assert row["G_sos"] >= row["injective_lower_estimate"] - 1e-3


def test_even_sparse_and_cube_vs_ball_run_at_tiny_sizes():
    r = run_check("even_sparse", {"ns": [16], "ts": [1.0, 2.0], "trials": 4, "n_boot": 100}, rng=4)
    assert r.verdict in ("pass", "inconclusive"), r.reason
    assert r.measured["constant"] > 0
    c = run_check("cube_vs_ball", {"ns": [3, 4], "trials": 3, "n_boot": 100}, rng=5)
    assert c.verdict == "pass", c.reason
    assert c.measured["ratio_max"] <= 1.0 + 1e-3


def test_end_to_end_cosine_claim():
    r = run_check("end_to_end", {"claims": ["cosine"], "cosine_ns": [4, 8], "trials": 3,
                                 "complexity_trials": 4, "n_boot": 100}, rng=6)
    assert r.verdict != "skip", r.reason  # every dependency is part of sosproj: never skip
    assert r.verdict in ("pass", "inconclusive"), r.reason
    assert r.measured["constant"] < 1.0


def _raises_unavailable(p, rng, progress):
    raise CheckUnavailable("a dependency")


def _raises_bug(p, rng, progress):
    raise ZeroDivisionError("boom")


def test_missing_dependency_skips_and_exceptions_are_recorded():
    skip = Check("x", "X", "s", "r", _raises_unavailable).run(rng=0)
    assert skip.verdict == "skip" and "not available" in skip.reason and skip.ok
    err = Check("y", "Y", "s", "r", _raises_bug).run(rng=0)
    assert err.verdict == "error" and "ZeroDivisionError" in err.reason and not err.ok
    ok = Check("z", "Z", "s", "r", lambda p, g, pr: Outcome("pass", "fine", {"c": np.float64(1)}),
               defaults={"a": 1}).run({"a": 2}, rng=0)
    assert ok.params == {"a": 2} and ok.as_dict()["measured"] == {"c": 1.0}


def test_verdict_helpers():
    assert bound_verdict(0.1, 0.9, 1.0) == "pass"
    assert bound_verdict(1.1, 1.5, 1.0) == "fail"
    assert bound_verdict(0.9, 1.1, 1.0) == "inconclusive"
    assert exponent_verdict(1.0, 1.2, 0.75, 0.1) == "fail"
    assert exponent_verdict(0.5, 0.8, 0.75, 0.1) == "pass"
    assert combine(["pass", "skip"]) == "pass"
    assert combine(["pass", "error", "fail"]) == "error"


def test_injective_norm_research_mode_is_certified_resumable_and_honest(tmp_path, monkeypatch):
    """Per-draw certificates and tightness, cached per draw (a rerun recomputes nothing), and a
    verdict that uses only sizes whose gap was certified."""
    from sosproj.certificates.checks import injective_norm as inj

    params = {"ns": [3, 4], "trials": 3, "n_boot": 50, "power_starts": 2, "solver": "lowrank", "tol": 1e-7,
              "certified_gap": 1e-5, "atoms": True, "windows": 2, "cache_dir": str(tmp_path / "cache")}
    r = run_check("injective_norm", params, rng=7)
    assert r.verdict in ("pass", "inconclusive"), r.reason
    assert r.measured["certified_ns"] == [3, 4]
    for row in r.table:
        assert row["certified"] and row["max_certified_relative_gap"] <= 1e-5
        assert 0.0 <= row["tight_fraction"] <= 1.0
        assert row["best_point_mean"] <= row["G_sos"] + 1e-9      # feasible points never beat the bound
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 6
    assert len(r.measured["local_exponents"]) == 1

    def boom(*args, **kwargs):
        raise AssertionError("a cached draw was recomputed")

    monkeypatch.setattr(inj, "evaluate_draw", boom)
    again = run_check("injective_norm", params, rng=7)
    assert again.measured["exponent"] == r.measured["exponent"]
    # an impossible gap requirement leaves no certified size: no exponent, no pass
    strict = run_check("injective_norm", {**params, "certified_gap": 1e-300}, rng=7)
    assert strict.measured["certified_ns"] == [] and strict.verdict == "inconclusive"
    assert not np.isfinite(strict.measured["exponent"])


def test_injective_norm_time_limit_reaches_the_solver_and_keys_the_cache(tmp_path):
    """``time_limit`` (seconds per draw) is the set's solver limit, and a time-limited run never reuses
    (or is reused by) the draws of an unlimited one: the cache tag differs."""
    from sosproj.certificates.checks import injective_norm as inj

    S = inj._set_for(3, 4, 3, "lowrank", 11, 2.5)
    assert S.time_limit == 2.5 and S.solver == "lowrank"
    assert inj._set_for(3, 4, 3, "lowrank", 12).time_limit is None
    params = {"ns": [3], "trials": 2, "n_boot": 20, "power_starts": 2, "solver": "lowrank", "tol": 1e-7,
              "certified_gap": 1e-5, "cache_dir": str(tmp_path / "cache")}
    run_check("injective_norm", params, rng=3)
    run_check("injective_norm", {**params, "time_limit": 600}, rng=3)
    names = sorted(p.name for p in (tmp_path / "cache").rglob("*.json"))
    assert len(names) == 4 and len({n.rsplit("_", 1)[1] for n in names}) == 2


def test_injective_norm_jobs_by_n_runs_a_size_on_its_own_worker_count(tmp_path, monkeypatch):
    """``jobs_by_n`` overrides ``n_jobs`` per size (sizes too large to solve side by side run serially)."""
    import joblib

    def no_pool(*a, **k):
        raise AssertionError("a size with jobs_by_n = 1 went to a worker pool")

    monkeypatch.setattr(joblib, "Parallel", no_pool)
    params = {"ns": [3, 4], "trials": 2, "n_boot": 20, "power_starts": 2, "solver": "lowrank", "tol": 1e-7,
              "certified_gap": 1e-5, "n_jobs": 2, "jobs_by_n": {"3": 1, "4": 1}}
    r = run_check("injective_norm", params, rng=3)
    assert [row["n"] for row in r.table] == [3, 4]
    pooled = run_check("injective_norm", {**params, "jobs_by_n": {"3": 1}}, rng=3)   # n = 4 takes n_jobs = 2
    assert pooled.verdict == "error" and "worker pool" in pooled.reason
