"""Shared test configuration."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")

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
