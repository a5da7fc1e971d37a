"""Shared test configuration."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytest_plugins = ["pytester"]  # tests/test_audit_skip_policy.py runs the skip policy on a sample suite

try:  # one BLAS thread: on a 2-core CI box, threaded eigh of small matrices thrashes
    from threadpoolctl import threadpool_limits

    _BLAS_LIMIT = threadpool_limits(limits=1, user_api="blas")
except ImportError:  # pragma: no cover
    _BLAS_LIMIT = None

try:  # hypothesis profile: deterministic and bounded in CI
    from hypothesis import HealthCheck, settings

    settings.register_profile("sosproj", max_examples=40, deadline=None, derandomize=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("sosproj")
except ImportError:  # pragma: no cover
    pass


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


# ------------------------------------------------------------------ skip policy
# A test may skip only for a declared missing optional dependency. With SOSPROJ_STRICT_SKIPS=1 (set by
# .ci/run) any other skip fails the session; the report lists each skip with its reason either way.
ALLOWED_SKIP_REASONS = {
    "mosek": "MOSEK or its licence (optional extra [mosek])",
    "licen": "a solver licence",
    "gpu": "a GPU",
    "cupy": "cupy (GPU)",
    "cuda": "CUDA (GPU)",
    "mbi": "the benchmark-only peer package mbi (extra [bench])",
}
_SKIPS: list[tuple[str, str]] = []


def skip_reason_allowed(reason: str) -> bool:
    """Whether a skip reason names one of the declared optional dependencies."""
    low = reason.lower()
    return any(key in low for key in ALLOWED_SKIP_REASONS)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _SKIPS.append((report.nodeid, reason))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    bad = [(node, why) for node, why in _SKIPS if not skip_reason_allowed(why)]
    if bad and os.environ.get("SOSPROJ_STRICT_SKIPS") == "1":
        lines = "\n".join(f"  {node}: {why}" for node, why in bad)
        print(f"\nSKIP POLICY: {len(bad)} test(s) skipped for a reason that is not a declared optional "
              f"dependency ({', '.join(sorted(set(ALLOWED_SKIP_REASONS.values())))}):\n{lines}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="module")
def relaxations():
    """``get(system, n, degree=4, **kw)``: one :class:`MomentRelaxation` per key and test module."""
    from sosproj.poly.relaxation import MomentRelaxation

    cache = {}

    def get(system, n, degree=4, **kw):
        key = (system.__name__, n, degree, tuple(sorted(kw.items())))
        if key not in cache:
            cache[key] = MomentRelaxation(system(n, **kw), degree)
        return cache[key]

    return get


@pytest.fixture
def measure_every_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """The categorical ``"auto"`` allocation without its skip rule (``AUTO_SKIP_SNR = (0, 0)``: every residual set
    measured), for tests of other parts that compare a noise-free release with the true tables or the noise
    scales with a formula; the skip rule itself is tested in ``tests/test_marginals_skip.py``."""
    from sosproj.mechanisms import marginals_pipeline as mp

    monkeypatch.setattr(mp, "AUTO_SKIP_SNR", (0.0, 0.0))


@pytest.fixture
def cube_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Route small binary layouts under ``reconstruction="auto"`` to the cube relaxation's path (the path of
    layouts above ``JOINT_AUTO_MAX_N`` attributes), not the exact polytope (issue 14, session 36)."""
    from sosproj.mechanisms import marginals_pipeline as mp

    monkeypatch.setattr(mp, "JOINT_AUTO_MAX_N", 0)
