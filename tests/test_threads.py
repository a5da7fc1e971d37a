"""The BLAS thread policy (sosproj.threads), observed through threadpoolctl's reported state."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scs  # noqa: F401 - loads a single-threaded OpenBLAS build, as the full suite does
from threadpoolctl import threadpool_info, threadpool_limits

from sosproj import threads
from sosproj.errors import InputTypeError, InvalidParameterError
from sosproj.sets.base import ConvexSet, ProjectionInfo, SupportResult

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


#: BLAS libraries whose thread count can be changed (a single-threaded build, like SCS's bundled
#: OpenBLAS, always reports 1); filled by the ``two_threads`` fixture
ADJUSTABLE: set[str] = set()


def blas_counts() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info()
            if lib["user_api"] == "blas" and (not ADJUSTABLE or lib["filepath"] in ADJUSTABLE)}


class Recorder(ConvexSet):
    """A set whose operations record the BLAS threads in force while they run."""

    def __init__(self) -> None:
        self.seen: list[set[int]] = []

    def _project(self, Y, **options):
        self.seen.append(blas_counts())
        return Y, ProjectionInfo("identity", 0, 0.0, True, True)

    def _support(self, W, **options):
        self.seen.append(blas_counts())
        return SupportResult(0.0, None, {})

    def _violation(self, X):
        self.seen.append(blas_counts())
        return 0.0


@pytest.fixture
def two_threads(monkeypatch):
    """Start from two BLAS threads (the test session pins one) and no user override."""
    monkeypatch.delenv(threads.ENV_VAR, raising=False)
    threads.set_num_threads(None)
    with threadpool_limits(limits=2, user_api="blas"):
        ADJUSTABLE.clear()
        ADJUSTABLE.update(lib["filepath"] for lib in threadpool_info()
                          if lib["user_api"] == "blas" and lib["num_threads"] == 2)
        assert ADJUSTABLE, "no BLAS library with an adjustable thread count"
        yield
    threads.set_num_threads(None)


def test_entry_points_run_on_one_thread_and_restore(two_threads):
    S = Recorder()
    S.project(np.zeros(3))
    S.support(np.zeros(3))
    S.contains(np.zeros(3))
    assert S.seen == [{1}, {1}, {1}]
    assert blas_counts() == {2}  # restored after each call


def test_environment_variable_overrides_the_policy(two_threads, monkeypatch):
    monkeypatch.setenv(threads.ENV_VAR, "2")
    S = Recorder()
    with threadpool_limits(limits=1, user_api="blas"):
        S.support(np.zeros(2))
    assert S.seen == [{2}]


def test_all_leaves_the_libraries_alone(two_threads, monkeypatch):
    monkeypatch.setenv(threads.ENV_VAR, "all")
    S = Recorder()
    S.support(np.zeros(2))
    assert S.seen == [{2}]
    assert threads.policy_threads() is None


def test_argument_beats_environment(two_threads, monkeypatch):
    monkeypatch.setenv(threads.ENV_VAR, "2")
    S = Recorder()
    with threads.blas_threads(1):
        S.support(np.zeros(2))
    threads.set_num_threads(1)
    S.support(np.zeros(2))
    assert S.seen == [{1}, {1}]


def test_all_inside_a_limited_region_restores_the_cores_then_the_limit(two_threads):
    with threads.blas_threads():
        assert blas_counts() == {1}
        with threads.blas_threads("all"):
            assert blas_counts() == {os.cpu_count()}
        assert blas_counts() == {1}
    assert blas_counts() == {2}


def test_libraries_loaded_inside_a_region_are_limited_by_the_next_region(two_threads, monkeypatch):
    """A BLAS loaded after the outer region was applied (as scipy's or a solver's BLAS imported by the
    first call) must not keep its default threads in the nested regions of sosproj's solver loops."""
    import types

    with threads.blas_threads():
        assert blas_counts() == {1}
        threadpool_limits(limits=2, user_api="blas")  # stands for a library that arrives with 2 threads
        monkeypatch.setitem(sys.modules, "sosproj_test_new_blas", types.ModuleType("x"))  # ... by an import
        S = Recorder()
        S.support(np.zeros(2))
        assert S.seen == [{1}]


@pytest.mark.parametrize("bad, err", [("0", InvalidParameterError), ("two", InvalidParameterError),
                                      ("-1", InvalidParameterError)])
def test_bad_environment_value_is_refused_with_the_variable_named(two_threads, monkeypatch, bad, err):
    monkeypatch.setenv(threads.ENV_VAR, bad)
    with pytest.raises(err, match=threads.ENV_VAR):
        Recorder().support(np.zeros(2))


def test_bad_argument_types():
    with pytest.raises(InputTypeError):
        threads.set_num_threads(1.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        threads.policy_threads(0)


def test_mechanism_runs_under_the_policy(two_threads, monkeypatch):
    import sosproj.mechanisms.cosine as cosine

    seen = []
    real = cosine.gaussian_noise

    def spy(*a, **k):
        seen.append(blas_counts())
        return real(*a, **k)

    monkeypatch.setattr(cosine, "gaussian_noise", spy)
    cosine.release_cosine_similarities(np.eye(3), epsilon=1.0, delta=1e-6, sensitivity=1.0,
                                       method="gaussian", rng=0)
    assert seen == [{1}]


CLI_PROBE = """
import json, sys
import numpy  # numpy's BLAS only: scipy's arrives inside the verb, as in `sosproj demo`
from threadpoolctl import threadpool_limits, threadpool_info
threadpool_limits(limits=2, user_api="blas")
import sosproj.cli.info as info
seen = []
real = info.collect_info
def spy(**k):
    libs = [l for l in threadpool_info() if l["user_api"] == "blas" and "scs" not in l["filepath"]]
    assert any("scipy.libs" in l["filepath"] for l in libs), "scipy's BLAS must be loaded and limited"
    seen.append(sorted({l["num_threads"] for l in libs}))
    return real(**k)
info.collect_info = spy
from sosproj.cli.main import main
code = main(sys.argv[1:] + ["--quiet", "info", "--no-mosek-check"])
print(json.dumps({"code": code, "seen": seen}))
"""


@pytest.mark.parametrize("flags, env, expected", [([], None, [1]), (["--threads", "2"], None, [2]),
                                                  ([], "2", [2]), (["--threads", "1"], "2", [1])])
def test_cli_applies_the_policy_and_its_overrides(flags, env, expected):
    e = {k: v for k, v in os.environ.items() if k != threads.ENV_VAR}
    e["PYTHONPATH"] = REPO
    if env is not None:
        e[threads.ENV_VAR] = env
    out = subprocess.run([sys.executable, "-c", CLI_PROBE, *flags], capture_output=True, text=True,
                         env=e, timeout=120, check=True).stdout.strip().splitlines()[-1]
    assert json.loads(out) == {"code": 0, "seen": [expected]}


def test_info_reports_the_threads_in_force(capsys):
    from sosproj.cli.main import main

    assert main(["--threads", "2", "--json", "info", "--no-mosek-check"]) == 0
    assert json.loads(capsys.readouterr().out)["threads"]["sosproj_blas_threads"] == 2
    assert main(["--json", "info", "--no-mosek-check"]) == 0
    assert json.loads(capsys.readouterr().out)["threads"]["sosproj_blas_threads"] == threads.policy_threads()


def test_cli_refuses_a_bad_threads_value():
    from sosproj.cli.main import main

    assert main(["--threads", "zero", "--quiet", "info", "--no-mosek-check"]) == 2
