r"""Every shipped mechanism, registered once for the black-box audit (:func:`~sosproj.audit.audit_release`).

One row of :data:`MECHANISMS` per mechanism: the real release function as users call it
(``build(epsilon, delta) -> f(data, rng)``, a picklable :func:`functools.partial`), a
worst-case adjacent pair under the mechanism's stated adjacency, the array that is
audited, and the runs per input at which the audit's power is stated. A new mechanism is
one line: ``register(AuditCase("name", partial(_release, ...), pair, output, trials, "adjacency"))``.

Worst-case pairs (the noise-free outputs differ by exactly the stated sensitivity, checked
by ``tests/test_audit_blackbox.py``) with noise small against the constraint sets, so the
projections are post-processing that keeps the difference visible:

* ``perturb_and_project[box]``: :math:`A = (0.3, -0.2)`, :math:`A' = A + e_1`, caller's
  :math:`\|A - A'\|_F \le \Delta = 1`, ``S = Box(-1e3, 1e3)``;
  ``perturb_and_project[psd]``: :math:`A = 40 I_2`, :math:`A' = A + e_1e_1^T`, ``S = PSDCone()``.
* ``cosine[method]``: two orthogonal unit vectors, the second turned so that one cosine
  moves by :math:`0.02/\sqrt2` (:math:`\|UU^T - U'U'^T\|_F = 0.02` = the stated sensitivity).
* ``marginals[method]`` (replace-one, ``m = 2000`` public, all four patterns of 2 attributes
  present, ``k = 2``): one all-ones row replaced by an all-zeros row, which moves the
  normalized tensor by exactly its sensitivity :math:`1/m`; the sparse methods
  (``sos-sparse``, ``topk``; ``t = 2``, ``n = 4``) replace a row with ones at
  :math:`\{0, 1\}` by one with ones at :math:`\{2, 3\}` (sensitivity :math:`\sqrt2/m`);
  ``sos-sparse`` runs at ``k = 1``, ``t = 1``, ``n = 2`` (``m = 1800``; a row ``{0}`` becomes ``{1}``)
  because its relaxation takes seconds per run at ``n = 4``.
* ``marginals[default]``: the residual measurement of the default allocation on the same dense pair
  (the audited output is the whitened measurement, ``reconstruction="blue"``; for two binary
  attributes every allocation of the family makes the pair worst case: the patterns ``{0}`` and
  ``{0, 1}`` tie because ``s_{01}^2 = s_0^2 / 2``).
* ``marginals[default-add-remove]``: the same default release under add/remove adjacency (``public_m = 2000``
  declared; the total is measured with noise and audited with the residuals): :func:`dense_pair`'s rows against
  the same rows without one all-ones row. The AIM and MST comparisons of issue 14 are judged on this adjacency.
* ``marginals[default-categorical]``: the default release of categorical data on :data:`DEFAULT_CATEGORICAL_SIZES`
  (2, 2, 3, 8), all 2-way sets, ``m = 150`` public, where the public skip rule skips 6 / 5 / 1 of the 10 residual sets
  at the three audit claims and the L1 correction changes the measured sets' shape; audited on the whitened
  measurement like ``marginals[default]``. Pair: ``m`` records on the all-zeros cell, one moved to the all-ones cell
  (every attribute differs): the worst difference pattern of the corrected allocation at (0.5, 1e-5) and (1, 1e-6),
  0.99 of the sensitivity at (2, 1e-6) (brute force over all record pairs: ``tests/test_audit_default_categorical.py``).
* ``marginals[select-one-way]``: the categorical release's private 1-way selection
  (:func:`~sosproj.mechanisms.marginals_pipeline.select_one_way_release`, given the whole claim): ``m = 1000``
  records on one cell of two 3-value attributes, one record moved to another value of both (each uniform-table
  error falls by exactly 2: the statistic moves by its sensitivity :math:`2\sqrt2`).
* ``marginals[select-pairs]``: the categorical release's private pair selection
  (:func:`~sosproj.mechanisms.marginals_pipeline.select_pairs_release`, given the whole claim): ``m = 1000``
  records, ``m - 1`` on one cell of three 2-value attributes, one on the cell differing on every attribute, moved
  onto the others' cell (each pair's distance from independence falls from :math:`2(1-1/m)` to 0: the statistic
  moves by its sensitivity :math:`2(1-1/m)\sqrt3`).
* ``tables`` / ``tables[discrete]``: :func:`~sosproj.mechanisms.marginal_tables.release_tables`
  on the marginals' dense pair (replace-one; each 2-way table moves one count between two
  cells).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from sosproj.validation import check_delta, check_epsilon


@dataclass(frozen=True)
class AuditCase:
    """One registered mechanism: ``build(epsilon, delta)`` gives the release ``f(data, rng)``."""

    name: str
    build: Callable[[float, float], Callable[[Any, Any], Any]]
    pair: Callable[[], tuple[Any, Any]]
    output: Callable[[Any], Any] | None
    trials: int
    adjacency: str

    def release(self, epsilon: float, delta: float) -> Callable[[Any, Any], Any]:
        """The real release function at the claim ``(epsilon, delta)``."""
        return self.build(check_epsilon(epsilon), check_delta(delta))


MECHANISMS: dict[str, AuditCase] = {}


def register(case: AuditCase) -> AuditCase:
    """Add ``case`` to :data:`MECHANISMS` (one line per mechanism)."""
    MECHANISMS[case.name] = case
    return case


# ---------------------------------------------------------------- release functions
# module-level, so that partial(...) of them pickles into joblib workers


def _pap(A: Any, rng: Any, *, epsilon: float, delta: float, set_name: str) -> Any:
    from sosproj.mechanisms.perturb_and_project import perturb_and_project
    from sosproj.sets import Box, PSDCone

    S = Box(-1e3, 1e3) if set_name == "box" else PSDCone()
    return perturb_and_project(A, S, epsilon=epsilon, delta=delta, sensitivity=1.0, rng=rng)


def _cosine(V: Any, rng: Any, *, epsilon: float, delta: float, method: str) -> Any:
    from sosproj.mechanisms.cosine import release_cosine_similarities

    return release_cosine_similarities(V, epsilon=epsilon, delta=delta, sensitivity=COSINE_SENSITIVITY,
                                       method=method, rng=rng)


def _marginals(D: Any, rng: Any, *, epsilon: float, delta: float, method: str | None,
               sparsity: int | None = None, k: int = 2) -> Any:
    from sosproj.mechanisms.marginals import release_marginals

    kw: dict[str, Any] = {} if method is None else {"method": method}
    return release_marginals(D, k, epsilon=epsilon, delta=delta, sparsity=sparsity, rng=rng, **kw)


def _pipeline(D: Any, rng: Any, *, epsilon: float, delta: float, sizes: tuple[int, ...] | None = None,
              **options: Any) -> Any:
    """The default marginal release of all 2-way sets (residual measurement, default allocation); ``"blue"`` keeps
    the measurement itself as the output (every other reconstruction is post-processing of it). ``sizes``: a
    categorical domain for the records (default: binary records); ``options``: more arguments of the release
    (``adjacency``, ``public_m``)."""
    from sosproj.mechanisms.marginals import release_marginals

    data = D
    if sizes is not None:
        from sosproj.data.domain import Dataset, Domain

        data = Dataset(np.asarray(D), Domain.from_sizes(list(sizes)))
    return release_marginals(data, 2, epsilon=epsilon, delta=delta, rng=rng, reconstruction="blue", **options)


#: Declared number of records of the add/remove audit (:func:`dense_removal_pair`; the release's ``public_m``).
#: Under add/remove the total is a noisy residual and part of the audited output.
ADD_REMOVE_AUDIT_M = 2000

#: Attribute sizes and public number of records of the categorical default's audit (``marginals[default-categorical]``):
#: at the three audit claims the public skip rule (:func:`~sosproj.mechanisms.marginals_pipeline.measured_sets`)
#: skips 6 / 5 / 1 of the 10 residual sets and the L1 correction
#: (:func:`~sosproj.mechanisms.marginals_pipeline.l1_correction`) changes the measured sets' shape.
DEFAULT_CATEGORICAL_SIZES = (2, 2, 3, 8)
DEFAULT_CATEGORICAL_M = 150


def whitened_residuals(rel: Any) -> np.ndarray:
    """The measured residuals divided by their relative noise scales ``sigma_A / sigma`` (the total dropped)."""
    lay = rel.layout
    s = np.array([rel.info["noise_scales"].get(A, 0.0) for A in lay.residual_sets]) / rel.sigma
    w = lay.expand(np.where(s > 0, 1.0 / np.where(s > 0, s, 1.0), 0.0))
    return np.asarray(rel.residuals * w, dtype=float)


@dataclass(frozen=True)
class SelectStatistic:
    """What the private 1-way selection's Gaussian mechanism releases, as the audit sees it."""

    statistic: np.ndarray
    sensitivity: float


#: Attribute sizes of the selection statistic's audit (two 3-value attributes).
SELECT_AUDIT_SIZES = (3, 3)


def _select_one_way(D: Any, rng: Any, *, epsilon: float, delta: float) -> SelectStatistic:
    """The private 1-way selection's Gaussian mechanism
    (:func:`~sosproj.mechanisms.marginals_pipeline.select_one_way_release`) given the whole claim (share 1; in a
    release it gets the share ``f`` and the measurement ``1 - f``, the two composing to the claim): the noisy
    uniform-table errors of both attributes of :data:`SELECT_AUDIT_SIZES`, replace-one."""
    from sosproj.data.domain import Dataset, Domain
    from sosproj.mechanisms.marginals_pipeline import select_one_way_release, select_one_way_sensitivity, sigma0_of
    from sosproj.rng import as_generator

    ds = Dataset(np.asarray(D), Domain.from_sizes(list(SELECT_AUDIT_SIZES)))
    sens = select_one_way_sensitivity(len(SELECT_AUDIT_SIZES))
    sigma = sigma0_of({"epsilon": epsilon, "delta": delta, "calibration": "analytic"}, sens)
    return SelectStatistic(select_one_way_release(ds, range(len(SELECT_AUDIT_SIZES)), sigma, as_generator(rng)),
                           sens)


#: Attribute sizes of the pair selection statistic's audit (three 2-value attributes: its bound is attained there).
SELECT_PAIRS_AUDIT_SIZES = (2, 2, 2)


def _select_pairs(D: Any, rng: Any, *, epsilon: float, delta: float) -> SelectStatistic:
    """The private pair selection's Gaussian mechanism
    (:func:`~sosproj.mechanisms.marginals_pipeline.select_pairs_release`) given the whole claim (share 1; in a
    release it gets the share ``f``): the noisy distances from independence of the three pairs of
    :data:`SELECT_PAIRS_AUDIT_SIZES`, replace-one (``m`` public)."""
    import itertools

    from sosproj.data.domain import Dataset, Domain
    from sosproj.mechanisms.marginals_pipeline import select_pairs_release, select_pairs_sensitivity, sigma0_of
    from sosproj.privacy.spec import Adjacency
    from sosproj.rng import as_generator

    ds = Dataset(np.asarray(D), Domain.from_sizes(list(SELECT_PAIRS_AUDIT_SIZES)))
    pairs = list(itertools.combinations(range(len(SELECT_PAIRS_AUDIT_SIZES)), 2))
    sens = select_pairs_sensitivity(SELECT_PAIRS_AUDIT_SIZES, pairs, Adjacency.REPLACE_ONE, ds.m)
    sigma = sigma0_of({"epsilon": epsilon, "delta": delta, "calibration": "analytic"}, sens)
    return SelectStatistic(select_pairs_release(ds, pairs, sigma, as_generator(rng)), sens)


def _select_output(rel: SelectStatistic) -> np.ndarray:
    return np.asarray(rel.statistic, dtype=float)


def _tables(D: Any, rng: Any, *, epsilon: float, delta: float, noise: str) -> Any:
    from sosproj.mechanisms.marginal_tables import release_tables

    return release_tables(D, 2, epsilon=epsilon, delta=delta, noise=noise, rng=rng)


def _moments(rel: Any) -> np.ndarray:
    return np.asarray(rel.moments[1:], dtype=float)


def _builder(fn: Callable[..., Any], **fixed: Any) -> Callable[[float, float], Callable[[Any, Any], Any]]:
    def build(epsilon: float, delta: float) -> Callable[[Any, Any], Any]:
        return partial(fn, epsilon=epsilon, delta=delta, **fixed)

    return build


# --------------------------------------------------------------------- worst-case pairs

COSINE_SENSITIVITY = 0.02


def pap_box_pair() -> tuple[np.ndarray, np.ndarray]:
    A = np.array([0.3, -0.2])
    return A, A + np.array([1.0, 0.0])


def pap_psd_pair() -> tuple[np.ndarray, np.ndarray]:
    A = 40.0 * np.eye(2)
    A2 = A.copy()
    A2[0, 0] += 1.0
    return A, A2


def cosine_pair() -> tuple[np.ndarray, np.ndarray]:
    """Two orthogonal unit vectors; the second turned so that ``||UU^T - U'U'^T||_F = 0.02``."""
    c = COSINE_SENSITIVITY / np.sqrt(2.0)
    V = np.array([[1.0, 0.0], [0.0, 1.0]])
    V2 = np.array([[1.0, 0.0], [c, np.sqrt(1.0 - c * c)]])
    return V, V2


def dense_pair(m: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """``m`` rows, each pattern of 2 attributes ``m/4`` times; one all-ones row becomes all-zeros."""
    D = np.repeat(np.array([[0, 0], [1, 0], [0, 1], [1, 1]]), m // 4, axis=0)
    D2 = D.copy()
    D2[-1] = [0, 0]
    return D, D2


def dense_removal_pair(m: int = ADD_REMOVE_AUDIT_M) -> tuple[np.ndarray, np.ndarray]:
    """:func:`dense_pair`'s ``m`` rows and the same rows without one all-ones row (add/remove: every record moves
    the total and each residual of the two binary attributes by the same amount, so any removal is worst case)."""
    D = dense_pair(m)[0]
    return D, D[:-1].copy()


def default_categorical_pair(m: int = DEFAULT_CATEGORICAL_M) -> tuple[np.ndarray, np.ndarray]:
    """``m`` records on the all-zeros cell of :data:`DEFAULT_CATEGORICAL_SIZES`; one moves to the all-ones cell (every
    attribute differs): the worst difference pattern of the corrected allocation at (0.5, 1e-5) and (1, 1e-6), 0.99
    of the sensitivity at (2, 1e-6) (``tests/test_audit_default_categorical.py``)."""
    D = np.zeros((m, len(DEFAULT_CATEGORICAL_SIZES)), dtype=np.int64)
    D2 = D.copy()
    D2[-1] = 1
    return D, D2


def select_pair(m: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """``m`` records on one cell of :data:`SELECT_AUDIT_SIZES`; one moves to another value of every attribute: each
    uniform-table error falls by exactly 2, the statistic moves by its sensitivity ``2 sqrt(2)``."""
    D = np.zeros((m, len(SELECT_AUDIT_SIZES)), dtype=np.int64)
    D2 = D.copy()
    D2[-1] = 1
    return D, D2


def select_pairs_pair(m: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """``m - 1`` records on the all-ones cell of :data:`SELECT_PAIRS_AUDIT_SIZES` and one on the all-zeros cell, which
    moves onto the all-ones cell: every pair's statistic falls from ``2 (1 - 1/m)`` to 0 (the sensitivity)."""
    D = np.ones((m, len(SELECT_PAIRS_AUDIT_SIZES)), dtype=np.int64)
    D[-1] = 0
    D2 = np.ones_like(D)
    return D, D2


def one_sparse_pair(m: int = 1800) -> tuple[np.ndarray, np.ndarray]:
    """``m`` rows over 2 attributes with at most one 1; a row {0} becomes {1}."""
    D = np.repeat(np.array([[1, 0], [0, 1], [0, 0]]), m // 3, axis=0)
    D2 = D.copy()
    D2[0] = [0, 1]
    return D, D2


def sparse_pair(m: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """``m`` rows over 4 attributes with at most 2 ones; a row {0, 1} becomes {2, 3}."""
    pats = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 0, 0],
                     [0, 1, 1, 0], [1, 0, 0, 1]])
    D = np.repeat(pats, m // len(pats), axis=0)
    D2 = D.copy()
    D2[0] = [0, 0, 1, 1]
    return D, D2


# ------------------------------------------------------------------------- the table

_REPLACE_ONE = "replace-one, m public"

register(AuditCase("perturb_and_project[box]", _builder(_pap, set_name="box"), pap_box_pair, None, 20_000,
                   "caller's ||A - A'||_F <= 1"))
register(AuditCase("perturb_and_project[psd]", _builder(_pap, set_name="psd"), pap_psd_pair, None, 20_000,
                   "caller's ||A - A'||_F <= 1"))
for _m in ("exact", "dykstra", "alternating", "gaussian"):
    register(AuditCase(f"cosine[{_m}]", _builder(_cosine, method=_m), cosine_pair, None, 12_000,
                       "caller's ||UU^T - U'U'^T||_F <= 0.02"))
register(AuditCase("marginals[default]", _builder(_pipeline), dense_pair, whitened_residuals, 8_000,
                   _REPLACE_ONE))
register(AuditCase("marginals[default-add-remove]",
                   _builder(_pipeline, adjacency="add-remove", public_m=ADD_REMOVE_AUDIT_M), dense_removal_pair,
                   whitened_residuals, 8_000, "add/remove, declared m = 2000"))
register(AuditCase("marginals[default-categorical]", _builder(_pipeline, sizes=DEFAULT_CATEGORICAL_SIZES),
                   default_categorical_pair, whitened_residuals, 8_000, _REPLACE_ONE))
register(AuditCase("marginals[select-one-way]", _builder(_select_one_way), select_pair, _select_output, 8_000,
                   _REPLACE_ONE))
register(AuditCase("marginals[select-pairs]", _builder(_select_pairs), select_pairs_pair, _select_output, 8_000,
                   _REPLACE_ONE))
# marginals[gaussian] keeps 3 of the 4 tensor entries its sensitivity covers (true mu = sqrt(3)/2 of the
# claimed one), so sigma x 0.7 exceeds the claim by only 24%: 48,000 runs catch it in 96% of 200 simulated
# audits (benchmarks/results_audit/selection_study.txt); one run costs about 0.5 ms
for _m, _runs in (("gaussian", 48_000), ("symmetrize", 12_000), ("flatten", 12_000), ("tables", 8_000)):
    register(AuditCase(f"marginals[{_m}]", _builder(_marginals, method=_m), dense_pair, _moments, _runs,
                       _REPLACE_ONE))
for _m in ("sos", "cube"):  # an SDP projection per run (about 8 ms): fewer runs
    register(AuditCase(f"marginals[{_m}]", _builder(_marginals, method=_m), dense_pair, _moments, 3_000,
                       _REPLACE_ONE))
register(AuditCase("marginals[topk]", _builder(_marginals, method="topk", sparsity=2), sparse_pair, _moments,
                   12_000, _REPLACE_ONE + ", rows with <= 2 ones"))
# the P_t relaxation is expensive (seconds per run at n = 4, t = 2): k = 1, t = 1, n = 2 (about 25 ms)
register(AuditCase("marginals[sos-sparse]", _builder(_marginals, method="sos-sparse", sparsity=1, k=1),
                   one_sparse_pair, _moments, 2_000, _REPLACE_ONE + ", rows with <= 1 one, k = 1"))
register(AuditCase("tables", _builder(_tables, noise="gaussian"), dense_pair, _moments, 8_000, _REPLACE_ONE))
register(AuditCase("tables[discrete]", _builder(_tables, noise="discrete"), dense_pair, _moments, 96_000,
                   _REPLACE_ONE))

__all__ = ["AuditCase", "MECHANISMS", "register", "COSINE_SENSITIVITY", "pap_box_pair", "pap_psd_pair",
           "cosine_pair", "dense_pair", "dense_removal_pair", "sparse_pair", "one_sparse_pair", "whitened_residuals",
           "select_pair", "select_pairs_pair", "SelectStatistic", "default_categorical_pair",
           "DEFAULT_CATEGORICAL_SIZES", "DEFAULT_CATEGORICAL_M", "SELECT_AUDIT_SIZES", "SELECT_PAIRS_AUDIT_SIZES"]
