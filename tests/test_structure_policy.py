"""Cross-cutting rules, checked across every set, solver and mechanism.

* Unknown options: every set (``project`` and ``support``) and every solver backend
  refuses them with one error class (``UnknownOptionError``) and one message shape,
  before any work.
* Privacy semantics: releases carry a frozen ``PrivacySpec``; the accountant's budget
  and ledger cannot be changed from outside; a charge under another adjacency is
  refused before any noise is drawn; ``noise_disabled`` lives in ``sosproj.testing``
  and marks the releases made under it.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import scipy.sparse as sp

from sosproj.errors import InvalidParameterError, PrivacyBudgetError, UnknownOptionError
from sosproj.mechanisms.cosine import release_cosine_similarities
from sosproj.mechanisms.marginals import release_marginals
from sosproj.mechanisms.perturb_and_project import perturb_and_project
from sosproj.mechanisms.release import Release
from sosproj.policy import ConvergenceWarning, apply_on_fail, check_on_fail, check_options
from sosproj.privacy.accountant import Charge, PrivacyAccountant
from sosproj.privacy.spec import Adjacency, PrivacySpec
from sosproj.sdp.backends import BACKENDS
from sosproj.sdp.cones import Cones
from sosproj.sdp.conic import ConicProblem
from sosproj.sdp.solve import ConicSolver, solve
from sosproj.sets import (
    BoundedDiagonalPSD,
    Box,
    FrobeniusBall,
    Intersection,
    PSDCone,
    PSDFrobeniusBall,
    Spectraplex,
    SymmetricMatrices,
)
from sosproj.testing import noise_disabled

SHAPE = re.compile(r"^(?P<where>.+) got unknown option\(s\) \['bogus_option'\]; accepted options: \[(?P<acc>.*)\]$")


def _sets() -> dict[str, object]:
    from sosproj.certificates.checks.even_sparse import SparseSpectraplex
    from sosproj.poly import MomentRelaxation, unit_ball
    from sosproj.sets.pseudo_moment import PseudoMomentSet

    return {
        "PSDCone": PSDCone(), "Spectraplex": Spectraplex(1.0), "PSDFrobeniusBall": PSDFrobeniusBall(1.0),
        "FrobeniusBall": FrobeniusBall(1.0), "Box": Box(-1.0, 1.0), "SymmetricMatrices": SymmetricMatrices(),
        "Intersection": Intersection([PSDCone(), Box(-1.0, 1.0)]), "BoundedDiagonalPSD": BoundedDiagonalPSD(1.0),
        "PseudoMomentSet": PseudoMomentSet(MomentRelaxation(unit_ball(2), 2), 2),
        "SparseSpectraplex": SparseSpectraplex(2, t=1.0),
    }


def _covers_every_set_class() -> None:
    import sosproj.sets as sets
    from sosproj.sets.base import ConvexSet

    public = {name for name in sets.__all__ if isinstance(getattr(sets, name), type)
              and issubclass(getattr(sets, name), ConvexSet) and getattr(sets, name) is not ConvexSet}
    assert public <= set(_sets())


def test_the_set_list_covers_every_public_set() -> None:
    _covers_every_set_class()


@pytest.mark.parametrize("name", sorted(_sets()))
@pytest.mark.parametrize("operation", ["project", "support"])
def test_every_set_refuses_unknown_options_the_same_way(name: str, operation: str) -> None:
    S = _sets()[name]
    Y = np.array([[1.0, 0.2], [0.2, -0.5]])
    with pytest.raises(UnknownOptionError) as info:
        getattr(S, operation)(Y, bogus_option=1)
    m = SHAPE.match(str(info.value))
    assert m is not None, str(info.value)
    assert m.group("where").startswith(f"{name}.{operation}")
    assert isinstance(info.value, InvalidParameterError) and isinstance(info.value, TypeError)


def test_set_options_are_the_hook_parameters() -> None:
    with pytest.raises(UnknownOptionError, match=r"accepted options: \['max_iter', 'method', 'on_fail', 'steps', "
                                                 r"'tol'\]"):
        Intersection([PSDCone(), Box(-1.0, 1.0)]).project(np.eye(2), maxiter=3)
    # the accepted ones still work
    X = Intersection([PSDCone(), Box(-1.0, 1.0)]).project(np.eye(2), tol=1e-6, max_iter=50)
    assert np.allclose(X, np.eye(2))


def _problem() -> ConicProblem:
    # nearest point of {x >= 1} to 3
    return ConicProblem(sp.csc_matrix([[2.0]]), np.array([-6.0]), sp.csc_matrix([[-1.0]]), np.array([-1.0]),
                        Cones(nonneg=1), offset=9.0)


@pytest.mark.parametrize("name", [*BACKENDS, "auto"])
def test_every_solver_refuses_unknown_options_the_same_way(name: str) -> None:
    with pytest.raises(UnknownOptionError) as info:
        solve(_problem(), solver=name, bogus_option=1)
    m = SHAPE.match(str(info.value))
    assert m is not None, str(info.value)
    expected = "admm" if name == "auto" else name
    assert m.group("where") == f"solver {expected!r}"


def test_solver_options_are_declared_with_defaults() -> None:
    from sosproj.sdp.backends import backend_class

    admm = backend_class("admm")
    assert admm.accepted_options()["anderson"] == 10
    assert backend_class("clarabel").accepted_options()["static_regularization_constant"] == 1e-7
    # a declared option reaches the solver
    res = ConicSolver(_problem(), "admm", tol=1e-9, anderson=0).solve()
    assert res.converged and abs(res.x[0] - 3.0) < 1e-6


def test_mechanism_project_options_go_through_the_same_check() -> None:
    with pytest.raises(UnknownOptionError, match=r"^Box\.project got unknown option"):
        perturb_and_project(np.zeros(2), Box(-1, 1), epsilon=1.0, delta=1e-6, sensitivity=1.0, rng=0,
                            project_options={"bogus_option": 1})


def test_policy_helpers() -> None:
    check_options({}, (), "x")
    assert check_on_fail("return") == "return"
    with pytest.raises(InvalidParameterError):
        check_on_fail("ignore")
    with pytest.warns(ConvergenceWarning, match="stopped"):
        apply_on_fail(False, "warn", "stopped")
    apply_on_fail(False, "return", "stopped")


# ------------------------------------------------------------------------------- privacy semantics


def test_release_carries_a_frozen_spec() -> None:
    rel = perturb_and_project(np.zeros(2), Box(-1, 1), epsilon=0.5, delta=1e-6, sensitivity=2.0, rng=0,
                              adjacency="add-remove")
    assert isinstance(rel.spec, PrivacySpec) and rel.spec.adjacency is Adjacency.ADD_REMOVE
    assert (rel.epsilon, rel.delta, rel.sensitivity, rel.calibration) == (0.5, 1e-6, 2.0, "analytic")
    assert rel.privacy == {"epsilon": 0.5, "delta": 1e-6, "adjacency": "add-remove", "sensitivity": 2.0,
                           "calibration": "analytic", "sigma": rel.sigma}
    with pytest.raises(dataclasses.FrozenInstanceError):
        rel.spec = PrivacySpec.create(epsilon=9, delta=1e-6, sensitivity=1)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        rel.epsilon = 9.0  # type: ignore[misc]
    cos = release_cosine_similarities(np.eye(3), epsilon=1.0, delta=1e-6, sensitivity=1.0, method="gaussian",
                                      rng=0)
    assert cos.spec.adjacency is Adjacency.REPLACE_ONE and cos.privacy["adjacency"] == "replace-one"


def test_accountant_state_cannot_be_changed_from_outside() -> None:
    acc = PrivacyAccountant(1.0, 1e-6)
    acc.charge(epsilon=0.5)
    with pytest.raises(AttributeError):
        acc.ledger.clear()  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        acc.ledger.append(Charge(kind="approx", label="x", epsilon=0.1, delta=0.0))  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        acc.ledger[0] = Charge(kind="approx", label="x", epsilon=0.0, delta=0.0)  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        acc.ledger[0].epsilon = 0.0  # type: ignore[misc]
    for name, value in (("epsilon", 100.0), ("delta", 0.5), ("adjacency", Adjacency.ADD_REMOVE),
                        ("ledger", ()), ("_ledger", ()), ("_epsilon", 100.0), ("accounting", "approx")):
        with pytest.raises(AttributeError):
            setattr(acc, name, value)
    with pytest.raises(AttributeError):
        del acc.epsilon
    assert acc.epsilon == 1.0 and len(acc.ledger) == 1 and acc.spent()[0] == pytest.approx(0.5, abs=1e-5)
    # the only way to grow the ledger: a checked charge
    with pytest.raises(PrivacyBudgetError):
        acc.charge(epsilon=0.6)
    assert len(acc.ledger) == 1


def test_accountant_fixes_its_adjacency() -> None:
    acc = PrivacyAccountant(5.0, 1e-6, adjacency=Adjacency.ADD_REMOVE)
    assert acc.adjacency is Adjacency.ADD_REMOVE and acc.summary()["adjacency"] == "add-remove"
    with pytest.raises(PrivacyBudgetError, match="adjacency"):
        acc.charge_gaussian(sigma=10.0, sensitivity=1.0)        # unstated: replace-one
    with pytest.raises(PrivacyBudgetError, match="adjacency"):
        acc.charge(spec=PrivacySpec.create(epsilon=0.1, delta=1e-8, sensitivity=1.0))
    with pytest.raises(PrivacyBudgetError, match="adjacency"):
        acc.charge_zcdp(0.01, adjacency="replace-one")
    assert acc.ledger == ()
    c = acc.charge_gaussian(sigma=10.0, spec=PrivacySpec.create(epsilon=1, delta=1e-6, sensitivity=1.0,
                                                                 adjacency="add-remove"))
    assert c.adjacency is Adjacency.ADD_REMOVE and acc.ledger == (c,)
    with pytest.raises(InvalidParameterError):
        PrivacyAccountant(1.0, 1e-6, adjacency="swap-two")


def _calls() -> dict[str, object]:
    V = np.random.default_rng(0).standard_normal((4, 3))
    D = (np.random.default_rng(1).random((30, 4)) < 0.5).astype(int)
    return {
        "perturb_and_project": lambda acc, rng: perturb_and_project(
            np.zeros(3), Box(-1, 1), epsilon=0.5, delta=1e-7, sensitivity=1.0, rng=rng, accountant=acc),
        "cosine": lambda acc, rng: release_cosine_similarities(
            V, epsilon=0.5, delta=1e-7, sensitivity=1.0, method="exact", rng=rng, accountant=acc),
        "marginals": lambda acc, rng: release_marginals(
            D, 2, epsilon=0.5, delta=1e-7, method="symmetrize", rng=rng, accountant=acc),
        "marginals_tables": lambda acc, rng: release_marginals(
            D, 2, epsilon=0.5, delta=1e-7, method="tables", rng=rng, accountant=acc),
    }


@pytest.mark.parametrize("name", sorted(_calls()))
def test_charge_under_another_adjacency_is_refused_before_any_draw(name: str) -> None:
    """Every mechanism's guarantee here is replace-one: an add-remove accountant refuses it, and the
    generator, which would record any draw in its state, is untouched."""
    call = _calls()[name]
    acc = PrivacyAccountant(10.0, 1e-6, adjacency="add-remove")
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    with pytest.raises(PrivacyBudgetError, match="adjacency"):
        call(acc, gen)
    assert gen.bit_generator.state == state and acc.ledger == ()
    same = PrivacyAccountant(10.0, 1e-6)
    call(same, gen)
    assert gen.bit_generator.state != state and len(same.ledger) == 1
    assert same.ledger[0].adjacency is Adjacency.REPLACE_ONE


def test_perturb_and_project_states_its_adjacency() -> None:
    acc = PrivacyAccountant(10.0, 1e-6)          # replace-one
    gen = np.random.default_rng(2)
    state = gen.bit_generator.state
    with pytest.raises(PrivacyBudgetError, match="adjacency"):
        perturb_and_project(np.zeros(2), Box(-1, 1), epsilon=1.0, delta=1e-6, sensitivity=1.0, rng=gen,
                            accountant=acc, adjacency="add-remove")
    assert gen.bit_generator.state == state and acc.ledger == ()


def test_noise_disabled_lives_in_testing_and_marks_releases() -> None:
    import sosproj.privacy
    import sosproj.privacy.noise

    assert not hasattr(sosproj.privacy.noise, "noise_disabled")
    assert "noise_disabled" not in sosproj.privacy.__all__
    with pytest.raises(AttributeError):
        sosproj.privacy.noise_disabled  # noqa: B018
    plain = perturb_and_project(np.zeros(2), Box(-1, 1), epsilon=1.0, delta=1e-6, sensitivity=1.0, rng=0)
    assert "noise_disabled" not in plain.info
    with noise_disabled():
        rel = perturb_and_project(np.zeros(2), Box(-1, 1), epsilon=1.0, delta=1e-6, sensitivity=1.0, rng=0)
        cos = release_cosine_similarities(np.eye(3), epsilon=1.0, delta=1e-6, sensitivity=1.0,
                                          method="gaussian", rng=0)
    assert rel.info["noise_disabled"] is True and np.array_equal(rel.value, np.zeros(2))
    assert cos.info["noise_disabled"] is True and np.allclose(cos.value, np.eye(3))


def test_legacy_release_constructor_means_replace_one() -> None:
    r = Release(np.eye(2), 1.0, 1.0, 1e-6, 1.0, "analytic", "demo")
    assert r.spec == PrivacySpec.create(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    with pytest.raises(InvalidParameterError):
        Release(np.eye(2), 1.0, mechanism="demo")


def test_accountant_survives_pickling_read_only() -> None:
    import pickle

    acc = PrivacyAccountant(1.0, 1e-6, adjacency="add-remove")
    acc.charge(epsilon=0.25, adjacency="add-remove")
    back = pickle.loads(pickle.dumps(acc))
    assert back.ledger == acc.ledger and back.adjacency is Adjacency.ADD_REMOVE
    with pytest.raises(AttributeError):
        back.epsilon = 3.0  # type: ignore[misc]
    back.charge(epsilon=0.25, adjacency="add-remove")
    assert len(back.ledger) == 2 and len(acc.ledger) == 1
