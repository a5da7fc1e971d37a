"""Shared test configuration."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("OMP_NUM_THREADS", "2")

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
