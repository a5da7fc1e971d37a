r"""Monte Carlo estimates of the Gaussian complexity of a convex set.

The Gaussian complexity (the paper's Definition "Gaussian complexity") of a set
:math:`S \subseteq \mathbb{R}^{d_1 \times \dots \times d_r}` is

.. math::

    G(S) = \mathbb{E}_{W}\, \sup_{X \in S} \langle W, X \rangle = \mathbb{E}_W\, h_S(W),

with :math:`W` an array of i.i.d. :math:`N(0, 1)` entries over the **full ambient
array** (an ``n x n`` matrix is drawn entry by entry and never symmetrized: the
support of a set of symmetric matrices sees only :math:`\mathrm{sym}(W)`). It
governs the error of perturb-and-project (Lemma "Stability of projections").

:func:`gaussian_complexity` averages :math:`h_S(W_i) = ` ``S.support(W_i).value`` over
independent draws and reports a Student-t confidence interval. Trials are
independent streams spawned from one :class:`numpy.random.SeedSequence`, so the
estimate for a given ``rng`` is the same whether trials run serially, with
:mod:`joblib` (``n_jobs``) or on a Dask cluster (``scheduler``).

The draws ``W`` are Monte Carlo samples of a mathematical expectation, not privacy
noise, so they come straight from the generator (never from
:mod:`sosproj.privacy.noise`, whose test hook would zero them).

Examples
--------
>>> import numpy as np
>>> from sosproj.certificates import gaussian_complexity
>>> from sosproj.sets import Box
>>> est = gaussian_complexity(Box(-1.0, 1.0), shape=(10,), trials=200, rng=0)
>>> bool(est.ci_low <= 10 * np.sqrt(2 / np.pi) <= est.ci_high)
True
"""

from __future__ import annotations

import math
import pickle
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from sosproj.certificates.progress import progress_bar
from sosproj.errors import (
    InputTypeError,
    InvalidInputError,
    InvalidParameterError,
    ProjectionError,
    SolverNotAvailableError,
)
from sosproj.rng import RngLike, as_generator
from sosproj.threads import with_thread_policy
from sosproj.validation import check_int


@dataclass(frozen=True)
class ComplexityEstimate:
    r"""A Monte Carlo estimate of :math:`G(S)` with a confidence interval.

    Attributes
    ----------
    mean : sample mean of :math:`h_S(W_i)` (the estimate of :math:`G(S)`).
    stderr : standard error of the mean (sample std / sqrt(trials)).
    ci_low, ci_high : Student-t interval at level ``confidence``.
    trials : number of draws.
    values : the per-draw support values :math:`h_S(W_i)` (for bootstraps).
    confidence : the interval's level.
    shape : the ambient shape of ``W``.
    info : backend, timing and solver diagnostics (``n_unconverged``: draws whose
        support solver did not report convergence).

    >>> e = ComplexityEstimate.from_values(np.array([1.0, 2.0, 3.0]), confidence=0.95, shape=(1,))
    >>> e.mean, e.trials, e.contains(2.0)
    (2.0, 3, True)
    """

    mean: float
    stderr: float
    ci_low: float
    ci_high: float
    trials: int
    values: np.ndarray = field(repr=False, compare=False)
    confidence: float = 0.95
    shape: tuple[int, ...] = ()
    info: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_values(cls, values: np.ndarray, *, confidence: float, shape: tuple[int, ...],
                    info: dict[str, Any] | None = None) -> ComplexityEstimate:
        """Build the estimate (mean, standard error, t-interval) from per-draw values."""
        v = np.asarray(values, dtype=float).ravel()
        if v.size < 2:
            raise InvalidParameterError("trials must be >= 2 to estimate a confidence interval")
        mean = float(v.mean())
        stderr = float(v.std(ddof=1) / math.sqrt(v.size))
        half = float(stats.t.ppf(0.5 + confidence / 2.0, df=v.size - 1)) * stderr
        return cls(mean, stderr, mean - half, mean + half, int(v.size), v, float(confidence),
                   tuple(int(s) for s in shape), dict(info or {}))

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the confidence interval."""
        return bool(self.ci_low <= value <= self.ci_high)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (without the per-draw values).

        >>> ComplexityEstimate.from_values(np.ones(4), confidence=0.9, shape=(2,)).as_dict()["mean"]
        1.0
        """
        return {"mean": self.mean, "stderr": self.stderr, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "trials": self.trials, "confidence": self.confidence,
                "shape": list(self.shape), "info": dict(self.info)}


# --------------------------------------------------------------------------- helpers


def resolve_shape(S: Any, shape: Sequence[int] | int | None) -> tuple[int, ...]:
    """The ambient shape of ``W``: the set's own ``shape`` or the ``shape`` argument.

    >>> from sosproj.sets import Box
    >>> resolve_shape(Box(0, 1), 3)
    (3,)
    """
    set_shape = getattr(S, "shape", None)
    given: tuple[int, ...] | None = None
    if shape is not None:
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = (int(shape),)
        if not isinstance(shape, (tuple, list)):
            raise InputTypeError(f"shape must be an int or a tuple of ints; got {type(shape).__name__}")
        given = tuple(check_int(s, "shape entries", minimum=1) for s in shape)
        if not given:
            raise InvalidParameterError("shape must have at least one dimension")
    if set_shape is not None:
        set_shape = tuple(int(s) for s in set_shape)
        if given is not None and given != set_shape:
            raise InvalidParameterError(
                f"shape={given} disagrees with the set's ambient shape {set_shape}; omit shape")
        return set_shape
    if given is None:
        raise InvalidParameterError(
            "this set does not fix its ambient shape; pass shape=(n,) or shape=(n, n)")
    if getattr(S, "matrix_set", False) and (len(given) != 2 or given[0] != given[1]):
        raise InvalidParameterError("this is a set of square matrices; pass shape=(n, n)")
    return given


def _support_values(S: Any, shape: tuple[int, ...], seeds: list[np.random.SeedSequence],
                    support_options: dict[str, Any]) -> tuple[np.ndarray, int]:
    """Support values for the draws seeded by ``seeds`` (one worker's chunk)."""
    out = np.empty(len(seeds))
    unconverged = 0
    for i, seed in enumerate(seeds):
        W = np.random.default_rng(seed).standard_normal(shape)
        res = S.support(W, **support_options)
        value = float(res.value)
        if math.isnan(value):
            raise ProjectionError("the support solver returned no value (see info); loosen its "
                                  "tolerance or pick another solver via support_options",
                                  {k: v for k, v in (getattr(res, "info", None) or {}).items()
                                   if isinstance(v, (str, int, float, bool))})
        if not math.isfinite(value):
            raise InvalidInputError(
                "the support function is infinite: the set is unbounded, so its Gaussian "
                "complexity is infinite; intersect it with a bounded set")
        info = getattr(res, "info", None) or {}
        if info.get("converged", True) is False:
            unconverged += 1
        out[i] = value
    return out, unconverged


_NOT_PICKLABLE = ("the set cannot be sent to worker processes (it holds a compiled solver workspace such as "
                  "SCS's, e.g. after a first solve); pass a freshly built set, use solver='auto' or 'admm' "
                  "where the relaxation allows it (plain numpy state), n_jobs=1, or joblib's threading "
                  "backend (joblib.parallel_config(backend='threading'))")


def _trial_seeds(rng: RngLike, trials: int) -> list[np.random.SeedSequence]:
    gen = as_generator(rng)
    root = np.random.SeedSequence([int(x) for x in gen.integers(0, 2**32, size=8)])
    return root.spawn(trials)


def gaussian_draws(shape: Sequence[int], trials: int, rng: RngLike = None) -> Iterator[np.ndarray]:
    """The arrays ``W`` that :func:`gaussian_complexity` draws for the same ``trials`` and ``rng``.

    Lets a check evaluate other functionals on the very same draws (paired comparisons).

    >>> from sosproj.sets import Box
    >>> est = gaussian_complexity(Box(-1, 1), shape=(3,), trials=4, rng=0)
    >>> bool(np.allclose([np.abs(W).sum() for W in gaussian_draws((3,), 4, rng=0)], est.values))
    True
    """
    shape_t = tuple(int(s) for s in shape)
    for seed in _trial_seeds(rng, check_int(trials, "trials", minimum=1)):
        yield np.random.default_rng(seed).standard_normal(shape_t)


def _chunks(items: list[Any], n_chunks: int) -> list[list[Any]]:
    n_chunks = max(1, min(n_chunks, len(items)))
    bounds = np.linspace(0, len(items), n_chunks + 1).astype(int)
    return [items[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _run_dask(scheduler: Any, S: Any, shape: tuple[int, ...], chunks: list[list[Any]],
              support_options: dict[str, Any], bar: Any) -> list[tuple[np.ndarray, int]]:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - dask is a test dependency
        raise SolverNotAvailableError(
            "scheduler= needs dask.distributed; install it with pip install 'sosproj[dask]'") from exc
    own_client = False
    if isinstance(scheduler, str):
        client = Client(scheduler)
        own_client = True
    elif isinstance(scheduler, Client):
        client = scheduler
    else:
        raise InputTypeError("scheduler must be a Dask scheduler address (str) or a "
                             f"distributed.Client; got {type(scheduler).__name__}")
    try:
        try:
            pickle.dumps(S)
        except (pickle.PicklingError, TypeError) as exc:
            raise InputTypeError(_NOT_PICKLABLE) from exc
        [S_remote] = client.scatter([S], broadcast=True, hash=False)
        futures = [client.submit(_support_values, S_remote, shape, chunk, support_options, pure=False)
                   for chunk in chunks]
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[Any] = [None] * len(futures)
        for fut in as_completed(futures):
            results[index[fut.key]] = fut.result()
            bar.update(len(chunks[index[fut.key]]))
        return results
    finally:
        if own_client:
            client.close()


# --------------------------------------------------------------------------- public


@with_thread_policy
def gaussian_complexity(S: Any, shape: Sequence[int] | int | None = None, trials: int = 200,
                        rng: RngLike = None, n_jobs: int | None = 1, confidence: float = 0.95,
                        scheduler: Any = None, progress: bool | None = None, *,
                        on_fail: str = "raise", support_options: dict[str, Any] | None = None
                        ) -> ComplexityEstimate:
    r"""Estimate :math:`G(S)=\mathbb{E}\sup_{X\in S}\langle W,X\rangle` by Monte Carlo.

    Draws ``trials`` arrays ``W`` of i.i.d. :math:`N(0,1)` entries over the full ambient
    shape, evaluates the support function ``S.support(W).value`` (closed forms where the
    set has them, an SDP otherwise) and returns the mean with a Student-t interval.

    Parameters
    ----------
    S : a :class:`~sosproj.sets.base.ConvexSet` (anything with ``support(W)``); must be bounded.
    shape : ambient shape of ``W`` when the set does not fix it (e.g. :class:`~sosproj.sets.Box`).
    trials : number of draws (>= 2).
    rng : SPEC 7 seed (None = fresh entropy). The result depends only on ``rng``, not on
        ``n_jobs``/``scheduler``.
    n_jobs : joblib workers (``-1`` = all cores); ignored when ``scheduler`` is given.
    confidence : level of the interval, in (0, 1).
    scheduler : Dask scheduler address (``"tcp://host:8786"``) or a ``distributed.Client``:
        trials are then spread over the cluster's workers.
    progress : progress bar (None: only on a terminal).
    on_fail : ``"raise"`` (default) raises :class:`~sosproj.errors.ProjectionError` when a support
        solver reports non-convergence; ``"return"`` keeps the values and counts them in
        ``info["n_unconverged"]``.
    support_options : keyword options for ``S.support`` (solver, tolerances).

    Examples
    --------
    >>> from sosproj.sets import FrobeniusBall
    >>> est = gaussian_complexity(FrobeniusBall(1.0), shape=(5, 5), trials=100, rng=1)
    >>> round(est.mean, 1)   # E||W||_F, close to sqrt(25) = 5
    4.9
    """
    trials = check_int(trials, "trials", minimum=2)
    if isinstance(confidence, bool) or not isinstance(confidence, (float, int)) \
            or not 0.0 < float(confidence) < 1.0:
        raise InvalidParameterError("confidence must lie in the open interval (0, 1); e.g. 0.95")
    if on_fail not in ("raise", "return"):
        raise InvalidParameterError("on_fail must be 'raise' or 'return'")
    if not hasattr(S, "support"):
        raise InputTypeError(f"S must be a ConvexSet with a support() method; got {type(S).__name__}")
    if getattr(S, "bounded", True) is False:
        raise InvalidInputError("the set is unbounded, so its Gaussian complexity is infinite; "
                                "intersect it with a bounded set (e.g. a Frobenius ball)")
    shape_t = resolve_shape(S, shape)
    support_options = dict(support_options or {})
    if n_jobs is None:
        n_jobs = 1
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs == 0:
        raise InvalidParameterError("n_jobs must be a positive count or -1 (all cores)")

    seeds = _trial_seeds(rng, trials)

    t0 = time.perf_counter()
    with progress_bar(total=trials, desc=f"G({type(S).__name__})", enabled=progress) as bar:
        if scheduler is not None:
            chunks = _chunks(seeds, 4 * max(1, n_jobs if n_jobs > 0 else 8))
            results = _run_dask(scheduler, S, shape_t, chunks, support_options, bar)
            backend = "dask"
        elif n_jobs == 1:
            chunks = _chunks(seeds, min(trials, 50))
            results = []
            for chunk in chunks:
                results.append(_support_values(S, shape_t, chunk, support_options))
                bar.update(len(chunk))
            backend = "serial"
        else:
            from joblib import Parallel, delayed, effective_n_jobs

            workers = effective_n_jobs(n_jobs)
            chunks = _chunks(seeds, 4 * workers)
            parallel = Parallel(n_jobs=n_jobs, return_as="generator")
            results = []
            try:
                for chunk, res in zip(chunks, parallel(
                        delayed(_support_values)(S, shape_t, c, support_options) for c in chunks)):
                    results.append(res)
                    bar.update(len(chunk))
            except (pickle.PicklingError, TypeError) as exc:
                if "pickle" not in str(exc).lower():
                    raise
                raise InputTypeError(_NOT_PICKLABLE) from exc
            backend = f"joblib({workers})"
    values = np.concatenate([r[0] for r in results])
    n_unconverged = int(sum(r[1] for r in results))
    info = {"backend": backend, "time": time.perf_counter() - t0, "n_unconverged": n_unconverged,
            "set": type(S).__name__}
    if n_unconverged and on_fail == "raise":
        raise ProjectionError(
            f"the support solver did not converge on {n_unconverged} of {trials} draws; tighten "
            "the solver options via support_options or pass on_fail='return' to keep them flagged",
            info)
    return ComplexityEstimate.from_values(values, confidence=float(confidence), shape=shape_t, info=info)


__all__ = ["ComplexityEstimate", "gaussian_complexity", "gaussian_draws", "resolve_shape"]
