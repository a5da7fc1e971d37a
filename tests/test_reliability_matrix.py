"""Reliability matrix: every public entry point x every bad-input class -> the error raised.

Each row is a public function (or constructor / method); each column a bad-input class.
A cell is either a call that must raise exactly the listed error of the sosproj family
(with a message that contains no data values), or ``NA`` with the reason the class cannot
apply. ``docs/reliability.md`` is generated from this table (``python
tests/test_reliability_matrix.py`` prints it) and a test keeps the two in sync; another
test checks that every public name of the package namespaces has a row or an explicit,
reasoned exclusion, so a new public function cannot be left out silently.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sps

from sosproj.errors import (
    InputTypeError,
    InvalidInputError,
    InvalidParameterError,
    ResourceLimitError,
    SosprojError,
)

CLASSES = ("nan", "inf", "shape", "dtype", "empty", "range", "nonbinary", "oversize")
CLASS_TITLES = {"nan": "NaN", "inf": "inf", "shape": "wrong shape", "dtype": "wrong dtype", "empty": "empty",
                "range": "out-of-range parameter", "nonbinary": "non-binary", "oversize": "oversize"}
NAN, INF = float("nan"), float("inf")
E_IN, E_TY, E_PAR, E_RES = InvalidInputError, InputTypeError, InvalidParameterError, ResourceLimitError
TINY_MEMORY = "2000"  # bytes: SOSPROJ_MEMORY_LIMIT used by every "oversize" cell


@dataclass(frozen=True)
class NA:
    """A bad-input class that cannot apply to this function (with the reason)."""

    reason: str


@dataclass(frozen=True)
class Cell:
    """A call that must raise ``error``. ``bug`` marks a known defect in the called code:
    the test is a strict xfail (it starts failing, i.e. reminds us to update the table,
    as soon as the defect is fixed)."""

    call: Callable[[], Any]
    error: type[BaseException]
    note: str = ""
    bug: str = ""
    run: bool = True  # False only for a defect cell too slow to run (the reason is in ``bug``)


ROWS: dict[str, dict[str, Cell | NA]] = {}

NO_DATA = NA("no data argument")
SCALAR_MEM = NA("O(1) memory")
INPUT_MEM = NA("memory proportional to the input already held")


def row(name: str, **cells: Cell | NA) -> None:
    assert name not in ROWS, name
    missing = set(CLASSES) - set(cells)
    assert not missing, f"{name}: missing classes {missing}"
    ROWS[name] = cells


def nanify(a: Any, value: float = NAN) -> np.ndarray:
    a = np.array(a, dtype=float, copy=True)
    a.flat[0] = value
    return a


def _p(fn: Callable[..., Any], /, *args: Any, **base: Any) -> Callable[..., Callable[[], Any]]:
    """Bind a valid call; ``_p(...)(**override)`` returns a thunk with some arguments replaced."""

    def make(*new_args: Any, **override: Any) -> Callable[[], Any]:
        a = new_args if new_args else args
        return lambda: fn(*a, **{**base, **override})

    return make


def scalar_row(name: str, fn: Callable[..., Any], base: dict[str, Any], arg: str, range_override: dict[str, Any],
               *, nan_error: type = E_PAR, oversize: NA | Cell = SCALAR_MEM) -> None:
    """Row for a function of scalar parameters only; bad values go into ``arg``."""
    f = _p(fn, **base)
    row(name,
        nan=Cell(f(**{arg: NAN}), nan_error),
        inf=Cell(f(**{arg: INF}), nan_error),
        shape=Cell(f(**{arg: np.array([1.0, 2.0])}), E_TY, "an array where a scalar is expected"),
        dtype=Cell(f(**{arg: "1.0"}), E_TY),
        empty=Cell(f(**{arg: np.array([])}), E_TY, "an empty array where a scalar is expected"),
        range=Cell(f(**range_override), E_PAR),
        nonbinary=NO_DATA, oversize=oversize)


# =================================================================== privacy

from sosproj.privacy import accountant as acc_mod  # noqa: E402
from sosproj.privacy import calibration, discrete_gaussian, noise, rounding  # noqa: E402

PRIV = {"epsilon": 1.0, "delta": 1e-6}
scalar_row("privacy.gaussian_sigma", calibration.gaussian_sigma, {**PRIV, "sensitivity": 1.0}, "epsilon",
           {"delta": 1.5})
scalar_row("privacy.discrete_gaussian_sigma", discrete_gaussian.discrete_gaussian_sigma,
           {**PRIV, "sensitivity": 1.0}, "sensitivity", {"epsilon": -1.0})
scalar_row("privacy.discrete_gaussian_delta", discrete_gaussian.discrete_gaussian_delta,
           {"sigma2": 4.0, "epsilon": 1.0, "sensitivity": 1}, "sigma2", {"sensitivity": 0})
scalar_row("privacy.rational_sigma2", discrete_gaussian.rational_sigma2, {"sigma2": 2.0}, "sigma2",
           {"sigma2": -2.0})
scalar_row("privacy.zcdp_epsilon_cks20", acc_mod.zcdp_epsilon_cks20, {"rho": 0.1, "delta": 1e-6}, "rho",
           {"delta": 0.0})
scalar_row("privacy.zcdp_epsilon_bs16", acc_mod.zcdp_epsilon_bs16, {"rho": 0.1, "delta": 1e-6}, "rho",
           {"rho": -0.1})
scalar_row("privacy.gaussian_epsilon", acc_mod.gaussian_epsilon, {"mu": 0.5, "delta": 1e-6}, "mu",
           {"delta": 2.0})
scalar_row("privacy.optimal_composition_delta", acc_mod.optimal_composition_delta,
           {"eps0": 0.1, "delta0": 0.0, "k": 10, "epsilon": 0.5}, "eps0", {"eps0": 0.0})
scalar_row("privacy.optimal_composition_epsilon", acc_mod.optimal_composition_epsilon,
           {"eps0": 0.1, "delta0": 0.0, "k": 10, "delta": 1e-6}, "delta", {"k": 0})
scalar_row("privacy.PrivacyAccountant", acc_mod.PrivacyAccountant, PRIV, "epsilon", {"epsilon": 0.0})
_acc = acc_mod.PrivacyAccountant(1.0, 1e-6)
scalar_row("privacy.PrivacyAccountant.charge_gaussian", _acc.charge_gaussian,
           {"sigma": 100.0, "sensitivity": 1.0}, "sigma", {"sigma": -1.0})
scalar_row("privacy.PrivacyAccountant.charge", _acc.charge, {"epsilon": 1e-9}, "epsilon", {"delta": 1.0})
scalar_row("privacy.PrivacyAccountant.charge_zcdp", _acc.charge_zcdp, {"rho": 1e-12}, "rho", {"rho": 0.0})
scalar_row("privacy.power_of_two_at_least", rounding.power_of_two_at_least, {"scale": 3.0}, "scale",
           {"scale": 0.0})

scalar_row("privacy.gaussian_delta", calibration.gaussian_delta, {"sigma": 1.0, "epsilon": 1.0}, "sigma",
           {"sigma": -1.0})

for _name, _fn in [("privacy.basic_composition", acc_mod.basic_composition),
                   ("privacy.advanced_composition", acc_mod.advanced_composition)]:
    _extra = {"delta_slack": 1e-6} if "advanced" in _name else {}
    _f = _p(_fn, **_extra)
    row(_name,
        nan=Cell(_f(nanify([0.1, 0.2]), [0.0, 0.0]), E_IN),
        inf=Cell(_f([0.1, 0.2], nanify([0.0, 0.0], INF)), E_IN),
        shape=Cell(_f([0.1, 0.2], [0.0]), E_IN, "epsilons and deltas of different lengths"),
        dtype=Cell(_f(["a", "b"], [0.0, 0.0]), E_TY),
        empty=Cell(_f([], []), E_IN),
        range=Cell(_f([0.1, -0.2], [0.0, 0.0]), E_PAR),
        nonbinary=NO_DATA, oversize=INPUT_MEM)

_g = _p(noise.gaussian_noise, (3,), 1.0, rng=0)
row("privacy.gaussian_noise",
    nan=Cell(_g((3,), NAN), E_PAR), inf=Cell(_g((3,), INF), E_PAR),
    shape=Cell(_g((-1, 2), 1.0), E_PAR),
    dtype=Cell(_g((3,), 1.0, rng="seed"), E_TY),
    empty=NA("an empty shape is a valid request (returns an empty array)"),
    range=Cell(_g((3,), -1.0), E_PAR), nonbinary=NO_DATA,
    oversize=NA("allocates exactly the requested shape; the caller checks memory"))

_d = _p(discrete_gaussian.sample_discrete_gaussian, 3, 2.0, rng=0)
row("privacy.sample_discrete_gaussian",
    nan=Cell(_d(3, NAN), E_PAR), inf=Cell(_d(3, INF), E_PAR),
    shape=Cell(_d((-1, 2), 1.0), E_PAR, "negative dimension"),
    dtype=Cell(_d(3, "2.0"), E_TY),
    empty=NA("an empty shape is a valid request (returns an empty array)"),
    range=Cell(_d(3, 0.0), E_PAR), nonbinary=NO_DATA,
    oversize=NA("allocates exactly the requested shape in bounded batches"))

_lp = _p(discrete_gaussian.discrete_gaussian_logpmf, [0, 1], 2.0)
row("privacy.discrete_gaussian_logpmf",
    nan=Cell(_lp([0, NAN], 2.0), E_IN), inf=Cell(_lp([0, INF], 2.0), E_IN),
    shape=Cell(_lp([0.5], 2.0), E_IN, "non-integer points"),
    dtype=Cell(_lp(["a"], 2.0), E_TY), empty=NA("an empty array of points is valid"),
    range=Cell(_lp([0], -1.0), E_PAR), nonbinary=NO_DATA, oversize=INPUT_MEM)

for _name, _fn, _extra in [("privacy.round_to_grid", rounding.round_to_grid, {}),
                           ("privacy.snap", rounding.snap, {"bound": 4.0}),
                           ("privacy.on_grid", rounding.on_grid, {})]:
    _f = _p(_fn, [0.3, 0.7], 0.25, **_extra)
    row(_name,
        nan=Cell(_f(nanify([0.3, 0.7]), 0.25), E_IN), inf=Cell(_f(nanify([0.3, 0.7], INF), 0.25), E_IN),
        shape=NA("elementwise: any shape is valid"), dtype=Cell(_f("abc", 0.25), E_TY),
        empty=NA("an empty array is valid (returned unchanged)"),
        range=Cell(_f([0.3], -0.25), E_PAR), nonbinary=NO_DATA, oversize=INPUT_MEM)

# ===================================================================== audit

from sosproj import audit  # noqa: E402


class _Toy:
    def sample(self, x: float, rng: np.random.Generator, size: int) -> np.ndarray:
        return x + rng.standard_normal((size, 1))

    def exact(self, x: float) -> np.ndarray:
        return np.array([x])


_au = _p(audit.audit_mechanism, _Toy(), 0.0, 1.0, epsilon=1.0, delta=1e-6, trials=1000, rng=0)
row("audit.audit_mechanism",
    nan=Cell(_au(epsilon=NAN), E_PAR), inf=Cell(_au(delta=INF), E_PAR),
    shape=Cell(_au(direction=[0.0, 0.0]), E_IN, "a zero direction (no difference to test)"),
    dtype=Cell(_au("not a mechanism", 0.0, 1.0), E_TY),
    empty=Cell(_au(_Toy(), 1.0, 1.0), E_IN, "identical inputs: empty difference"),
    range=Cell(_au(trials=10), E_PAR), nonbinary=NO_DATA,
    oversize=NA("memory bounded by batch_size x output size"))
scalar_row("audit.standard_targets", audit.standard_targets, PRIV, "epsilon", {"delta": 0.0})
_cp = _p(audit.clopper_pearson, 5, 10, 0.05)
row("audit.clopper_pearson",
    nan=Cell(_cp(NAN, 10, 0.05), E_IN), inf=Cell(_cp(INF, 10, 0.05), E_IN),
    shape=NA("elementwise in k"), dtype=Cell(_cp("5", 10, 0.05), E_TY), empty=NA("an empty k is valid"),
    range=Cell(_cp(11, 10, 0.05), E_PAR), nonbinary=NO_DATA, oversize=INPUT_MEM)
row("audit.GaussianMeasurement",
    nan=NA("takes a callable, no numeric data"), inf=NA("takes a callable, no numeric data"),
    shape=NA("takes a callable, no numeric data"),
    dtype=Cell(lambda: audit.GaussianMeasurement(lambda d, r: d, verify_trials="10"), E_TY),
    empty=NA("takes a callable, no numeric data"),
    range=Cell(lambda: audit.GaussianMeasurement(lambda d, r: d, noise="laplace"), E_PAR),
    nonbinary=NO_DATA, oversize=NA("samples are drawn in batches"))



def _toy_release(x: Any, rng: Any) -> np.ndarray:
    return np.asarray(x, dtype=float) + noise.gaussian_noise(np.shape(x), 1.0, rng)


_ar = _p(audit.audit_release, _toy_release, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=1000,
         rng=0)
row("audit.audit_release",
    nan=Cell(_ar(epsilon=NAN), E_PAR), inf=Cell(_ar(delta=INF), E_PAR),
    shape=Cell(_ar(_toy_release, np.zeros(1), np.ones(2)), E_IN, "outputs of different sizes on D and D_prime"),
    dtype=Cell(_ar("not a release", np.zeros(1), np.ones(1)), E_TY),
    empty=Cell(_ar(_toy_release, np.ones(1), np.ones(1)), E_IN, "identical inputs: no difference to test"),
    range=Cell(_ar(trials=10), E_PAR), nonbinary=NO_DATA,
    oversize=Cell(_ar(), E_RES, "the stored outputs (2 x trials x output size) are estimated first"))
_sr = _p(audit.sample_release, _toy_release, np.zeros(1), 10, rng=0)
row("audit.sample_release",
    nan=NA("the data go to the release function, which validates them"),
    inf=NA("the data go to the release function, which validates them"),
    shape=NA("the data go to the release function, which validates them"),
    dtype=Cell(_sr(_toy_release, np.zeros(1), "10"), E_TY),
    empty=Cell(_sr(_toy_release, np.zeros(1), 0), E_PAR, "zero runs"),
    range=Cell(_sr(chunk=0), E_PAR), nonbinary=NO_DATA,
    oversize=NA("memory: runs x output size, the caller's choice"))
scalar_row("audit.claimed_mu", audit.claimed_mu, PRIV, "epsilon", {"delta": 2.0})

# ================================================================ mechanisms

from sosproj.mechanisms.cosine import release_cosine_similarities  # noqa: E402
from sosproj.mechanisms.marginal_tables import release_tables  # noqa: E402
from sosproj.mechanisms.marginals import release_marginals  # noqa: E402
from sosproj.mechanisms.perturb_and_project import perturb_and_project  # noqa: E402
from sosproj.sets import Box  # noqa: E402

_A = np.zeros((3, 3))
_pp = _p(perturb_and_project, _A, Box(-1, 1), **PRIV, sensitivity=1.0, rng=0)
row("mechanisms.perturb_and_project",
    nan=Cell(_pp(nanify(_A), Box(-1, 1)), E_IN), inf=Cell(_pp(nanify(_A, INF), Box(-1, 1)), E_IN),
    shape=Cell(_pp(_A, Box(-np.ones(2), np.ones(2))), E_IN, "input shape differs from the set's"),
    dtype=Cell(_pp(np.array([["a"]]), Box(-1, 1)), E_TY), empty=Cell(_pp(np.zeros((0, 3)), Box(-1, 1)), E_IN),
    range=Cell(_pp(sensitivity=0.0), E_PAR), nonbinary=NA("real-valued input"),
    oversize=NA("memory proportional to the input already held; the set's projection checks its own"))

_V = np.random.default_rng(0).standard_normal((6, 3))
_cs = _p(release_cosine_similarities, _V, **PRIV, sensitivity=1.0, method="gaussian", rng=0)
row("mechanisms.release_cosine_similarities",
    nan=Cell(_cs(nanify(_V)), E_IN), inf=Cell(_cs(nanify(_V, INF)), E_IN),
    shape=Cell(_cs(np.ones(3)), E_IN, "a 1-D array"), dtype=Cell(_cs(np.array([["a", "b"]])), E_TY),
    empty=Cell(_cs(np.zeros((0, 3))), E_IN), range=Cell(_cs(delta=0.0), E_PAR),
    nonbinary=NA("real-valued input"), oversize=Cell(_cs(), E_RES, "n x n work arrays over the memory budget"))

_D = np.random.default_rng(1).integers(0, 2, size=(20, 4))
_mg = _p(release_marginals, _D, 2, **PRIV, method="symmetrize", rng=0)
row("mechanisms.release_marginals",
    nan=Cell(_mg(nanify(_D), 2), E_IN), inf=Cell(_mg(nanify(_D, INF), 2), E_IN),
    shape=Cell(_mg(np.ones(4), 2), E_IN, "a 1-D array"), dtype=Cell(_mg(np.array([["a"]]), 1), E_TY),
    empty=Cell(_mg(np.zeros((0, 4)), 2), E_IN), range=Cell(_mg(_D, 0), E_PAR),
    nonbinary=Cell(_mg(_D * 2, 2), E_IN),
    oversize=Cell(_mg(_D, 4), E_RES, "n^k noisy tensor over the memory budget"))

_tb = _p(release_tables, _D, 2, **PRIV, rng=0)
row("mechanisms.release_tables",
    nan=Cell(_tb(nanify(_D), 2), E_IN), inf=Cell(_tb(nanify(_D, INF), 2), E_IN),
    shape=Cell(_tb(np.ones(4), 2), E_IN, "a 1-D array"), dtype=Cell(_tb(np.array([["a"]]), 1), E_TY),
    empty=Cell(_tb(np.zeros((0, 4)), 2), E_IN), range=Cell(_tb(_D, 2, epsilon=-1.0), E_PAR),
    nonbinary=Cell(_tb(_D * 2, 2), E_IN), oversize=Cell(_tb(), E_RES, "ADMM workspace over the memory budget"))

# ====================================================================== sets

from sosproj import sets as S  # noqa: E402

_Y = np.array([[2.0, 0.5, 0.1], [0.5, -1.0, 0.3], [0.1, 0.3, 0.7]])


def set_row(name: str, make: Callable[[], Any], bad_param: Callable[[], Any], *, shape_bad: Any = None,
            oversize: Cell | NA = INPUT_MEM, range_bug: str = "") -> None:
    def proj(Y: Any) -> Callable[[], Any]:
        return lambda: make().project(Y)

    row(name,
        nan=Cell(proj(nanify(_Y)), E_IN), inf=Cell(proj(nanify(_Y, INF)), E_IN),
        shape=(Cell(proj(shape_bad), E_IN) if shape_bad is not None else NA("any shape is in the ambient space")),
        dtype=Cell(proj(np.array([["a"]])), E_TY), empty=Cell(proj(np.zeros((0, 0))), E_IN),
        range=Cell(bad_param, E_PAR, bug=range_bug), nonbinary=NA("real-valued input"), oversize=oversize)


_rect = np.ones((2, 3))
set_row("sets.Box.project", lambda: S.Box(-1, 1), lambda: S.Box(1, -1))
set_row("sets.FrobeniusBall.project", lambda: S.FrobeniusBall(1.0), lambda: S.FrobeniusBall(-1.0))
set_row("sets.PSDCone.project", lambda: S.PSDCone(), lambda: S.PSDCone(n=-1), shape_bad=_rect)
set_row("sets.Spectraplex.project", lambda: S.Spectraplex(1.0), lambda: S.Spectraplex(-1.0), shape_bad=_rect)
set_row("sets.PSDFrobeniusBall.project", lambda: S.PSDFrobeniusBall(1.0), lambda: S.PSDFrobeniusBall(-1.0),
        shape_bad=_rect)
set_row("sets.SymmetricMatrices.project", lambda: S.SymmetricMatrices(), lambda: S.SymmetricMatrices(n=-1),
        shape_bad=_rect)
set_row("sets.BoundedDiagonalPSD.project", lambda: S.BoundedDiagonalPSD(1.0), lambda: S.BoundedDiagonalPSD(-1.0),
        shape_bad=_rect)
set_row("sets.Intersection.project", lambda: S.Intersection([S.PSDCone(), S.Box(-1, 1)]),
        lambda: S.Intersection([S.PSDCone(), S.Box(-1, 1)], tol=-1.0), shape_bad=_rect)

_cx = _p(S.cvxpy_project, S.Box(-1, 1), np.zeros(2))
row("sets.cvxpy_project",
    nan=Cell(_cx(S.Box(-1, 1), np.array([NAN, 0.0])), E_IN),
    inf=Cell(_cx(S.Box(-1, 1), np.array([INF, 0.0])), E_IN),
    shape=NA("any shape the set accepts"),
    dtype=Cell(_cx("box", np.zeros(2)), E_TY, "a non-set S"),
    empty=Cell(_cx(S.Box(-1, 1), np.zeros(0)), E_IN),
    range=Cell(_cx(S.Box(-1, 1), np.zeros(2), tol=-1.0), E_PAR),
    nonbinary=NA("real-valued input"), oversize=NA("reference solver for small test instances"))

# ====================================================================== data

from sosproj import data as dt  # noqa: E402
from sosproj.data import contingency as ct  # noqa: E402
from sosproj.data.moment_tensor import moment_tensor, n_subsets_upto  # noqa: E402


def binary_row(name: str, fn: Callable[..., Any], *rest: Any, range_call: Callable[[], Any],
               oversize: Cell | NA = INPUT_MEM, **kw: Any) -> None:
    f = _p(fn, _D, *rest, **kw)
    row(name,
        nan=Cell(f(nanify(_D), *rest), E_IN), inf=Cell(f(nanify(_D, INF), *rest), E_IN),
        shape=Cell(f(np.ones(4), *rest), E_IN, "a 1-D array"), dtype=Cell(f(np.array([["a"]]), *rest), E_TY),
        empty=Cell(f(np.zeros((0, 4)), *rest), E_IN), range=Cell(range_call, E_PAR),
        nonbinary=Cell(f(_D * 2, *rest), E_IN), oversize=oversize)


binary_row("data.subset_counts", dt.subset_counts, 2, range_call=lambda: dt.subset_counts(_D, 0))
binary_row("data.subset_moments", dt.subset_moments, 2, range_call=lambda: dt.subset_moments(_D, 0))
binary_row("data.moment_tensor", moment_tensor, 2, range_call=lambda: moment_tensor(_D, 9))
binary_row("data.enforce_sparsity", dt.enforce_sparsity, 2, range_call=lambda: dt.enforce_sparsity(_D, 0))
binary_row("data.truncate_rows", dt.truncate_rows, 2, range_call=lambda: dt.truncate_rows(_D, -1))
_st = _p(dt.subset_counts_stream, [_D], 4, 2)
row("data.subset_counts_stream",
    nan=Cell(_st([nanify(_D)], 4, 2), E_IN), inf=Cell(_st([nanify(_D, INF)], 4, 2), E_IN),
    shape=Cell(_st([_D[:, :3]], 4, 2), E_IN, "a chunk with the wrong number of columns"),
    dtype=Cell(_st([np.array([["a"] * 4])], 4, 2), E_TY), empty=Cell(_st([], 4, 2), E_IN, "no chunks"),
    range=Cell(_st([_D], 4, 0), E_PAR), nonbinary=Cell(_st([_D * 2], 4, 2), E_IN),
    oversize=NA("streams chunks; memory is the count table, polynomial in (n, k)"))
_lay = ct.TableLayout.all_k_way(4, 2)
binary_row("data.contingency_tables", ct.contingency_tables, _lay,
           range_call=lambda: ct.contingency_tables(_D, ct.TableLayout.all_k_way(4, 5)))

for _name, _fn, _args, _bad, _big in [
    ("data.planted_binary", dt.planted_binary, (10, 4), (10, 0), (10 ** 6, 10 ** 3)),
    ("data.sparse_binary", dt.sparse_binary, (10, 6, 2), (10, 6, 7), (10 ** 6, 50, 40)),
    ("data.subsets_upto", dt.subsets_upto, (4, 2), (4, -1), None),
    ("data.multisets", dt.multisets, (4, 2), (-4, 2), None),
    ("data.normalized_tensor_sensitivity", dt.normalized_tensor_sensitivity, (4, 2, 10), (4, 2, 0), None),
    ("poly.unit_ball", importlib.import_module("sosproj.poly").unit_ball, (3,), (0,), None),
    ("poly.sphere", importlib.import_module("sosproj.poly").sphere, (3,), (0,), None),
    ("poly.sparse_ball", importlib.import_module("sosproj.poly").sparse_ball, (4, 2), (4, 0), None),
    ("poly.boolean_cube", importlib.import_module("sosproj.poly").boolean_cube, (3,), (0,), None),
]:
    _f = _p(_fn, *_args)
    _first = _args[0]
    row(_name,
        nan=Cell(_f(NAN, *_args[1:]), E_TY, "a float where an integer size is expected"),
        inf=Cell(_f(INF, *_args[1:]), E_TY, "a float where an integer size is expected"),
        shape=Cell(_f(np.array([_first, _first]), *_args[1:]), E_TY, "an array where an integer is expected"),
        dtype=Cell(_f(str(_first), *_args[1:]), E_TY), empty=Cell(_f(np.array([], dtype=int), *_args[1:]), E_TY),
        range=Cell(_f(*_bad), E_PAR), nonbinary=NA("sizes only"),
        oversize=(Cell(_f(*_big), E_RES) if _big is not None else NA("output size is polynomial in the "
                                                                       "arguments and listed explicitly")))

_pool = _p(dt.pool_tensor, np.zeros((3, 3)), 2)
NO_FINITE = "non-finite entries pass silently and come out as NaN (no finiteness check)"
NUMPY_VALUEERROR = "raises numpy's ValueError (string to float), not InputTypeError"
row("data.pool_tensor",
    nan=Cell(_pool(nanify(np.zeros((3, 3))), 2), E_IN),
    inf=Cell(_pool(nanify(np.zeros((3, 3)), INF), 2), E_IN),
    shape=Cell(_pool(np.zeros((3, 4)), 2), E_IN, "not n x n"),
    dtype=Cell(_pool(np.array([["a"]]), 2), E_TY),
    empty=Cell(_pool(np.zeros((0, 0)), 2), E_PAR, "n = 0"),
    range=Cell(_pool(np.zeros((3, 3)), 0), E_IN, "k = 0 does not match the tensor's order"),
    nonbinary=NA("real-valued input"), oversize=INPUT_MEM)

_mu = np.zeros(n_subsets_upto(3, 2))
_tf = _p(dt.tensor_from_subset_moments, _mu, 3, 2)
row("data.tensor_from_subset_moments",
    nan=Cell(_tf(nanify(_mu), 3, 2), E_IN), inf=Cell(_tf(nanify(_mu, INF), 3, 2), E_IN),
    shape=Cell(_tf(np.zeros(2), 3, 2), E_IN, "wrong number of subset moments"),
    dtype=Cell(_tf(np.array(["a"]), 3, 2), E_TY), empty=Cell(_tf(np.zeros(0), 3, 2), E_IN),
    range=Cell(_tf(_mu, 3, 0), E_IN, "k = 0 does not match the number of moments"), nonbinary=NA("real-valued input"),
    oversize=Cell(lambda: dt.tensor_from_subset_moments(np.zeros(n_subsets_upto(60, 3)), 60, 3), E_RES,
                  "n^k output over the memory budget"))

_ld = _p(dt.load_dataset, "digits")
row("data.load_dataset",
    nan=NA("takes a name"), inf=NA("takes a name"), shape=NA("takes a name"),
    dtype=Cell(_ld(3), E_PAR, "a non-string name is reported as an unknown name"),
    empty=Cell(_ld(""), E_PAR), range=Cell(_ld("no-such-dataset"), E_PAR),
    nonbinary=NA("bundled data are validated at build time"), oversize=NA("bundled data are small"))

# =================================================================== poly/sdp

from sosproj import poly  # noqa: E402

row("poly.MomentRelaxation",
    nan=Cell(lambda: poly.MomentRelaxation(poly.unit_ball(3), NAN), E_TY),
    inf=Cell(lambda: poly.MomentRelaxation(poly.unit_ball(3), INF), E_TY),
    shape=Cell(lambda: poly.MomentRelaxation(poly.unit_ball(3), np.array([2, 4])), E_TY),
    dtype=Cell(lambda: poly.MomentRelaxation("unit ball", 2), E_TY),
    empty=Cell(lambda: poly.MomentRelaxation(poly.unit_ball(3), np.array([], dtype=int)), E_TY),
    range=Cell(lambda: poly.MomentRelaxation(poly.unit_ball(3), -2), E_PAR), nonbinary=NA("no data argument"),
    oversize=Cell(lambda: poly.MomentRelaxation(poly.unit_ball(12), 6), E_RES,
                  "the estimate is refused before anything is built"))

_R_ATOMS = poly.MomentRelaxation(poly.unit_ball(3), 4)
_Y_ATOMS = _R_ATOMS.moments_of(np.array([[0.6, 0.0, 0.8]]))
row("poly.extract_atoms",
    nan=Cell(lambda: poly.extract_atoms(_R_ATOMS, nanify(_Y_ATOMS)), E_IN),
    inf=Cell(lambda: poly.extract_atoms(_R_ATOMS, nanify(_Y_ATOMS, INF)), E_IN),
    shape=Cell(lambda: poly.extract_atoms(_R_ATOMS, _Y_ATOMS[:5]), E_IN),
    dtype=Cell(lambda: poly.extract_atoms(_R_ATOMS, np.array(["a"] * _R_ATOMS.n_moments)), E_TY),
    empty=Cell(lambda: poly.extract_atoms(_R_ATOMS, np.zeros(0)), E_IN),
    range=Cell(lambda: poly.extract_atoms(_R_ATOMS, _Y_ATOMS, tol=-1.0), E_PAR),
    nonbinary=NA("real-valued moments"),
    oversize=Cell(lambda: poly.extract_atoms(_R_ATOMS, _Y_ATOMS), E_RES,
                  "the dense moment-matrix workspace is estimated and refused before any work"))

# ============================================================ certificates

from sosproj import certificates as cert  # noqa: E402

_gc = _p(cert.gaussian_complexity, S.Box(-1, 1), (3,), trials=20, rng=0)
row("certificates.gaussian_complexity",
    nan=Cell(_gc(S.Box(-1, 1), (3,), confidence=NAN), E_PAR),
    inf=Cell(_gc(S.Box(-1, 1), (3,), confidence=INF), E_PAR),
    shape=Cell(_gc(S.Box(-1, 1), (-3,)), E_PAR, "a negative dimension"),
    dtype=Cell(_gc("box", (3,)), E_TY), empty=Cell(_gc(S.Box(-1, 1), ()), E_PAR, "an empty shape"),
    range=Cell(_gc(S.Box(-1, 1), (3,), trials=0), E_PAR), nonbinary=NA("no data argument"),
    oversize=NA("memory bounded by one trial's support computation"))
_fr = _p(cert.fit_rate, [1.0, 2.0, 4.0, 8.0], [1.0, 2.1, 3.9, 8.2], n_boot=50)
row("certificates.fit_rate",
    nan=Cell(_fr([1.0, 2.0, 4.0, 8.0], [1.0, NAN, 3.9, 8.2]), E_IN),
    inf=Cell(_fr([1.0, 2.0, 4.0, INF], [1.0, 2.1, 3.9, 8.2]), E_IN),
    shape=Cell(_fr([1.0, 2.0, 4.0], [1.0, 2.1, 3.9, 8.2]), E_IN, "x and y of different lengths"),
    dtype=Cell(_fr(["a", "b", "c"], [1.0, 2.0, 3.0]), E_TY), empty=Cell(_fr([], []), E_IN),
    range=Cell(_fr([1.0, -2.0, 4.0, 8.0], [1.0, 2.1, 3.9, 8.2]), E_IN, "log-log fit needs positive x"),
    nonbinary=NA("real-valued input"), oversize=INPUT_MEM)

# ============================================================== validation

from sosproj import validation as va  # noqa: E402

_ca = _p(va.check_array, [[1.0, 2.0]], "A", ndim=2)
row("validation.check_array",
    nan=Cell(_ca([[NAN]], "A"), E_IN), inf=Cell(_ca([[INF]], "A"), E_IN), shape=Cell(_ca([1.0], "A"), E_IN),
    dtype=Cell(_ca([["a"]], "A"), E_TY), empty=Cell(_ca(np.zeros((0, 2)), "A"), E_IN),
    range=NA("no range to check (see check_epsilon and friends)"), nonbinary=NA("any real values"),
    oversize=INPUT_MEM)
_cb = _p(va.check_binary_matrix, _D, "D")
row("validation.check_binary_matrix",
    nan=Cell(_cb(nanify(_D), "D"), E_IN), inf=Cell(_cb(nanify(_D, INF), "D"), E_IN),
    shape=Cell(_cb(np.ones(3), "D"), E_IN), dtype=Cell(_cb(np.array([["a"]]), "D"), E_TY),
    empty=Cell(_cb(np.zeros((0, 2)), "D"), E_IN), range=NA("no parameters"),
    nonbinary=Cell(_cb(sps.csr_matrix(_D * 3), "D"), E_IN, "sparse input with an entry 3"), oversize=INPUT_MEM)
row("validation.check_memory",
    nan=NA("numeric estimate computed by sosproj"),
    inf=Cell(lambda: va.check_memory(INF, "x"), E_RES),
    shape=NA("scalar estimate"), dtype=NA("scalar estimate"), empty=NA("scalar estimate"),
    range=NA("no parameters"), nonbinary=NA("no data argument"),
    oversize=Cell(lambda: va.check_memory(10 ** 6, "x"), E_RES))
scalar_row("validation.check_privacy_params", va.check_privacy_params, {**PRIV, "sensitivity": 1.0}, "delta",
           {"sensitivity": -1.0})


# ---------------------------------------------------------------- the tests

# one test per Cell; an NA cell is not a test case (it is documented in docs/reliability.md, and
# test_every_na_cell_has_a_reason checks that each one says why)
CELLS = [pytest.param(fn, cls, id=f"{fn}-{cls}",
                      marks=([pytest.mark.xfail(strict=True, run=cells[cls].run,
                                                reason=f"known defect: {cells[cls].bug}")]
                             if cells[cls].bug else []))
         for fn, cells in ROWS.items() for cls in CLASSES if isinstance(cells[cls], Cell)]


def test_every_na_cell_has_a_reason() -> None:
    silent = [f"{fn}-{c}" for fn, cells in ROWS.items() for c in CLASSES
              if isinstance(cells[c], NA) and len(cells[c].reason.strip()) < 8]
    assert silent == [], "every n/a cell needs a reason of a few words"


@pytest.mark.parametrize("function,bad_input", CELLS)
def test_cell(function: str, bad_input: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cell = ROWS[function][bad_input]
    assert isinstance(cell, Cell)
    if bad_input == "oversize":
        monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", TINY_MEMORY)
    with pytest.raises(cell.error) as info:
        cell.call()
    err = info.value
    assert isinstance(err, SosprojError), f"{type(err).__name__}: {err}"
    # no data values in the message: the NaN/inf cells must not echo 'nan'/'inf' values
    msg = str(err).lower()
    assert "nan," not in msg and "[nan" not in msg and "[inf" not in msg and "[ 0." not in msg


PUBLIC_NAMESPACES = ["sosproj", "sosproj.privacy", "sosproj.mechanisms", "sosproj.sets", "sosproj.data",
                     "sosproj.poly", "sosproj.certificates", "sosproj.audit", "sosproj.privacy.accountant",
                     "sosproj.privacy.discrete_gaussian", "sosproj.privacy.rounding"]
# public names that are not functions taking user input, with the reason
EXCLUDED = {
    "result containers (frozen dataclasses built by sosproj)": [
        "Release", "MarginalRelease", "AuditResult", "AuditTarget", "Charge", "ProjectionInfo", "SupportResult",
        "ComplexityEstimate", "RateFit", "CheckResult", "Report", "Readout", "MomentCheck", "PSDBlock",
        "FourierForm", "PolytopeFit", "MarginalTablesRelease", "AtomResult", "LabeledTable"],
    "errors, warnings, constants, type aliases and submodules": [
        "SosprojError", "ProjectionError", "ConvergenceWarning", "CONVERSIONS", "COMPOSITIONS", "TESTS",
        "REGISTRY", "errors", "validation", "rng", "cli", "sets", "poly", "sdp", "mechanisms", "certificates",
        "privacy", "data", "audit", "calibration", "noise", "accountant", "discrete_gaussian", "rounding",
        "release", "perturb_and_project", "cosine", "marginals", "marginal_tables", "base", "intersection",
        "psd", "simple", "reference", "pseudo_moment", "bounded_diagonal_psd", "newton_bounded_diagonal",
        "contingency", "datasets", "moment_tensor", "synthetic", "domain", "residuals", "codebook"],
    "abstract base class (its subclasses' project() have rows)": ["ConvexSet"],
    "no arguments": ["list_datasets", "list_checks", "noise_disabled"],
    "context manager for tests (negative control), no data": ["under_noised", "broken_noise", "NegativeControl"],
    "audit registry and its constants (no user data)": ["MECHANISMS", "AuditCase", "BlackBoxResult", "PROFILES",
                                                        "DIRECTIONS", "KINDS"],
}


def _row_for(name: str) -> bool:
    return any(key.split(".")[-1] == name or key.endswith("." + name) or f".{name}." in key for key in ROWS)


def test_every_public_name_has_a_row_or_a_reason() -> None:
    excluded = {n.split(":")[0] for names in EXCLUDED.values() for n in names}
    missing = []
    for ns in PUBLIC_NAMESPACES:
        mod = importlib.import_module(ns)
        for name in getattr(mod, "__all__", []):
            if name.startswith("_") or name in excluded or _row_for(name):
                continue
            missing.append(f"{ns}.{name}")
    # names that are reachable but deliberately out of the matrix must be listed in UNCOVERED
    assert sorted(set(missing) - set(UNCOVERED)) == [], "add a row or an exclusion with a reason"


# Public names still without a row: each has the reason, and docs/reliability.md lists them.
UNCOVERED = {
    "sosproj.Dataset": "the validating door of the marginal pipeline; its bad-input errors are tested in "
                       "tests/test_data_domain.py",
    "sosproj.data.Dataset": "as sosproj.Dataset",
    "sosproj.Domain": "validated value type (names + sizes); errors tested in tests/test_data_domain.py",
    "sosproj.data.Domain": "as sosproj.Domain",
    "sosproj.data.Codebook": "validated value type (a Domain's public code book: labels or bins); its "
                             "construction and encoding errors are tested in tests/test_domain_labels.py",
    "sosproj.poly.one_hot": "symbolic system from a list of sizes (each checked with check_int); "
                            "covered by tests/test_marginals_pipeline.py",
    "sosproj.data.ResidualLayout": "index built by release_marginals from a validated Domain and workload; "
                                   "covered by tests/test_marginals_pipeline.py",
    "sosproj.PolySystem": "constructor of symbolic systems (sympy input); covered by tests/test_poly_system.py",
    "sosproj.poly.PolySystem": "as above",
    "sosproj.poly.Polynomial": "internal exact-arithmetic value type built by PolySystem",
    "sosproj.sets.PseudoMomentSet": "built from a MomentRelaxation (row poly.MomentRelaxation); its project() "
                                     "validates like the other sets (tests/test_poly_relaxation.py)",
    "sosproj.sets.cvxpy_support": "reference solver used by tests",
    "sosproj.PseudoMomentSet": "as sosproj.sets.PseudoMomentSet",
    "sosproj.LeastSquaresProjector": "solver workspace compiled from a MomentRelaxation and a measurement map; "
                                     "covered by tests/test_sdp_pseudo_moment.py and tests/test_tables_release.py",
    "sosproj.data.SubsetCountAccumulator": "streaming form of data.subset_counts (same validation)",
    "sosproj.certificates.Check": "plug-in interface for certificate checks (no user data)",
    "sosproj.certificates.get_check": "lookup by name; unknown names raise InvalidParameterError",
    "sosproj.certificates.register": "decorator for plug-in checks (no user data)",
    "sosproj.audit.register": "adds an AuditCase to the audit registry (no user data)",
    "sosproj.audit.noise_free_output": "test-only: runs a release function with noise off (validated by it)",
    "sosproj.certificates.run_check": "runs a registered check with its own validated parameters",
    "sosproj.certificates.Spec": "spec-file front end, covered by tests/test_certificates_*",
    "sosproj.certificates.run_spec": "spec-file front end, covered by tests/test_certificates_*",
}


def markdown_table() -> str:
    lines = ["| function | " + " | ".join(CLASS_TITLES[c] for c in CLASSES) + " |",
             "|---|" + "---|" * len(CLASSES)]
    for fn, cells in ROWS.items():
        out = []
        for c in CLASSES:
            cell = cells[c]
            if isinstance(cell, NA):
                out.append("n/a")
            elif cell.bug:
                out.append(f"**defect** (want `{cell.error.__name__}`)")
            else:
                out.append(f"`{cell.error.__name__}`")
        lines.append(f"| `{fn}` | " + " | ".join(out) + " |")
    notes = ["", "Reasons for the n/a cells and notes on specific cells:", ""]
    for fn, cells in ROWS.items():
        parts = []
        for c in CLASSES:
            cell = cells[c]
            if isinstance(cell, NA):
                parts.append(f"{CLASS_TITLES[c]}: n/a ({cell.reason})")
            elif cell.bug:
                parts.append(f"{CLASS_TITLES[c]}: DEFECT, {cell.bug}")
            elif cell.note:
                parts.append(f"{CLASS_TITLES[c]}: {cell.note}")
        if parts:
            notes.append(f"- `{fn}`: " + "; ".join(parts) + ".")
    return "\n".join(lines + notes) + "\n"


BEGIN, END = "<!-- BEGIN RELIABILITY MATRIX -->", "<!-- END RELIABILITY MATRIX -->"


def test_docs_table_in_sync() -> None:
    doc = Path(__file__).resolve().parents[1] / "docs" / "reliability.md"
    text = doc.read_text(encoding="utf-8")
    m = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), text, re.S)
    assert m, "docs/reliability.md lacks the generated-table markers"
    assert m.group(1) == markdown_table(), "regenerate with: python tests/test_reliability_matrix.py --write"


if __name__ == "__main__":  # pragma: no cover
    table = markdown_table()
    if "--write" in sys.argv:
        doc = Path(__file__).resolve().parents[1] / "docs" / "reliability.md"
        text = doc.read_text(encoding="utf-8")
        new = re.sub(re.escape(BEGIN) + r"\n.*?" + re.escape(END), lambda _: f"{BEGIN}\n{table}{END}", text,
                     flags=re.S)
        doc.write_text(new, encoding="utf-8")
    else:
        print(table)
