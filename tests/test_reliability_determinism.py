"""Determinism: the same seed gives bit-identical output, rng=None fresh entropy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sosproj.audit import audit_mechanism, standard_targets
from sosproj.mechanisms.cosine import release_cosine_similarities
from sosproj.mechanisms.marginal_tables import release_tables
from sosproj.mechanisms.marginals import release_marginals
from sosproj.mechanisms.perturb_and_project import perturb_and_project
from sosproj.privacy.discrete_gaussian import sample_discrete_gaussian
from sosproj.privacy.noise import gaussian_noise
from sosproj.sets import PSDCone

_D = np.random.default_rng(0).integers(0, 2, size=(40, 4))
_V = np.random.default_rng(1).standard_normal((6, 3))


def _value(out: Any) -> np.ndarray:
    for attr in ("value", "moments"):
        if hasattr(out, attr):
            return np.asarray(getattr(out, attr))
    return np.asarray(out)


CALLS: dict[str, Callable[[Any], Any]] = {
    "gaussian_noise": lambda rng: gaussian_noise((5, 3), 2.0, rng),
    "sample_discrete_gaussian": lambda rng: sample_discrete_gaussian((5, 3), 7.5, rng),
    "perturb_and_project": lambda rng: perturb_and_project(np.eye(3), PSDCone(), epsilon=1.0, delta=1e-6,
                                                           sensitivity=1.0, rng=rng),
    "release_cosine_similarities": lambda rng: release_cosine_similarities(_V, epsilon=1.0, delta=1e-6,
                                                                            sensitivity=1.0, rng=rng),
    "release_marginals": lambda rng: release_marginals(_D, 2, epsilon=1.0, delta=1e-6, method="symmetrize",
                                                       rng=rng),
    "release_tables": lambda rng: release_tables(_D, 2, epsilon=1.0, delta=1e-6, rng=rng),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_same_seed_bit_identical_and_none_fresh(name: str) -> None:
    call = CALLS[name]
    a, b = _value(call(1234)), _value(call(1234))
    assert a.tobytes() == b.tobytes()
    g1, g2 = np.random.default_rng(np.random.SeedSequence(99)), np.random.default_rng(np.random.SeedSequence(99))
    assert _value(call(g1)).tobytes() == _value(call(g2)).tobytes()
    c, d = _value(call(None)), _value(call(None))
    assert not np.array_equal(c, d)


def test_audit_is_reproducible() -> None:
    t = standard_targets(1.0, 1e-6)["perturb_and_project"]
    r1 = audit_mechanism(t.mechanism, t.D, t.D_prime, epsilon=1.0, delta=1e-6, trials=20_000, rng=5)
    r2 = audit_mechanism(t.mechanism, t.D, t.D_prime, epsilon=1.0, delta=1e-6, trials=20_000, rng=5)
    assert r1 == r2
