"""The default memory budget of ``check_memory``: a fraction of available memory, with a floor."""

import pytest

from sosproj import validation as va
from sosproj.errors import ResourceLimitError


def test_default_budget_has_a_floor_when_available_memory_dips(monkeypatch):
    monkeypatch.delenv("SOSPROJ_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(va, "available_memory_bytes", lambda: 1000)     # a momentary dip under load
    va.check_memory(10**6, "a small problem")                            # 1 MB < the 256 MiB floor: accepted
    with pytest.raises(ResourceLimitError) as err:
        va.check_memory(va.MEMORY_FLOOR_BYTES + 1, "a large problem")
    assert err.value.limit_bytes == va.MEMORY_FLOOR_BYTES


def test_explicit_limits_have_no_floor(monkeypatch):
    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", "2000")
    with pytest.raises(ResourceLimitError):
        va.check_memory(10**6, "x")
    monkeypatch.delenv("SOSPROJ_MEMORY_LIMIT")
    with pytest.raises(ResourceLimitError):
        va.check_memory(10**6, "x", limit_bytes=2000)


def test_default_budget_is_a_fraction_of_available_memory(monkeypatch):
    monkeypatch.delenv("SOSPROJ_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(va, "available_memory_bytes", lambda: 10 * 1024**3)
    va.check_memory(5 * 1024**3, "x")
    with pytest.raises(ResourceLimitError) as err:
        va.check_memory(7 * 1024**3, "x")
    assert err.value.limit_bytes == int(0.6 * 10 * 1024**3)
