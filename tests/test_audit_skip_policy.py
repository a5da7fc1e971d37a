"""The skip policy and the certificate checks' error path: nothing that hides a bug may pass as a skip.

* A test may skip only for a declared optional dependency (``tests/conftest.py``); with
  ``SOSPROJ_STRICT_SKIPS=1`` (set by ``.ci/run``) any other skip fails the session.
* A certificate check that hits a code error (e.g. an ``AttributeError`` from a sosproj set)
  reports ``"error"``, never ``"skip"``, and a report with an errored check is not ok.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sosproj import sets
from sosproj.certificates import run_check
from sosproj.certificates.spec import Report

ROOT = Path(__file__).resolve().parents[1]


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, body: str, strict: bool) -> pytest.RunResult:
    pytester.makeconftest((ROOT / "tests" / "conftest.py").read_text())
    pytester.makepyfile(test_sample=textwrap.dedent(body))
    monkeypatch.setenv("SOSPROJ_STRICT_SKIPS", "1" if strict else "0")
    return pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")


def test_strict_mode_fails_an_undeclared_skip_and_allows_a_declared_one(pytester: pytest.Pytester,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    body = """
        import pytest

        def test_ok():
            assert True

        def test_mosek():
            pytest.skip("MOSEK licence not found")
        """
    assert _run(pytester, monkeypatch, body, strict=True).ret == 0
    bad = body + """
        def test_hidden_bug():
            pytest.skip("module not importable")
        """
    res = _run(pytester, monkeypatch, bad, strict=True)
    assert res.ret == 1 and "SKIP POLICY" in res.stdout.str() and "test_hidden_bug" in res.stdout.str()
    assert _run(pytester, monkeypatch, bad, strict=False).ret == 0


class _Broken:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise AttributeError("a renamed attribute inside sosproj")


@pytest.mark.parametrize("check,params", [
    ("stability", {"n": 3, "sets": ["cosine"], "sigmas": [0.1], "trials": 3, "n_boot": 20}),
    ("cosine_set", {"ns": [3, 4], "trials": 3, "n_boot": 20}),
])
def test_code_error_in_a_check_is_an_error_not_a_skip(monkeypatch: pytest.MonkeyPatch, check: str,
                                                      params: dict) -> None:
    monkeypatch.setattr(sets, "BoundedDiagonalPSD", _Broken)
    r = run_check(check, params, rng=0)
    assert r.verdict == "error" and "AttributeError" in r.reason, (r.verdict, r.reason)
    assert not r.ok
    assert not Report("suite", "", True, 0, (r,), "now", 0.0).ok


def test_code_error_in_a_relaxation_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from sosproj import poly

    monkeypatch.setattr(poly, "unit_ball", _Broken)
    r = run_check("injective_norm", {"ns": [3], "trials": 2, "n_boot": 20, "power_starts": 1}, rng=0)
    assert r.verdict == "error" and "AttributeError" in r.reason, (r.verdict, r.reason)


def test_code_error_in_end_to_end_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sosproj.mechanisms.cosine as cosine

    monkeypatch.delattr(cosine, "release_cosine_similarities")   # the import inside the check now fails
    r = run_check("end_to_end", {"claims": ["cosine"], "cosine_ns": [3, 4], "trials": 2, "complexity_trials": 2,
                                 "n_boot": 20}, rng=0)
    assert r.verdict == "error" and "ImportError" in r.reason, (r.verdict, r.reason)
    assert not r.ok
