r"""The frozen result object returned by every matrix/tensor mechanism, and the one shape of its
privacy record.

A :class:`Release` carries the released value, the noise scale and the frozen
:class:`~sosproj.privacy.spec.PrivacySpec` it was made under (epsilon, delta, adjacency,
sensitivity, calibration); ``epsilon``, ``delta``, ``sensitivity`` and ``calibration``
stay readable as properties, and :attr:`Release.privacy` is the plain-dict form
(:func:`privacy_record`, shared by every release type).

>>> import numpy as np
>>> from sosproj.privacy.spec import PrivacySpec
>>> spec = PrivacySpec.create(epsilon=1.0, delta=1e-6, sensitivity=1.0)
>>> r = Release(value=np.eye(2), sigma=1.0, spec=spec, mechanism="perturb_and_project")
>>> r.privacy                     # doctest: +NORMALIZE_WHITESPACE
{'epsilon': 1.0, 'delta': 1e-06, 'adjacency': 'replace-one', 'sensitivity': 1.0,
 'calibration': 'analytic', 'sigma': 1.0}
>>> r.epsilon, r.spec.adjacency.value
(1.0, 'replace-one')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sosproj.data.codebook import LabeledTable
from sosproj.data.moment_tensor import n_subsets_upto, tensor_from_subset_moments
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.privacy.spec import PrivacySpec
from sosproj.testing import noise_is_disabled
from sosproj.validation import check_int


def privacy_record(spec: PrivacySpec, sigma: float) -> dict[str, Any]:
    """The privacy parameters of a release as a plain dict (sidecars, logs): the spec and ``sigma``.

    >>> privacy_record(PrivacySpec.create(epsilon=1, delta=1e-6, sensitivity=2), 3.0)["adjacency"]
    'replace-one'
    """
    return {**spec.as_dict(), "sigma": float(sigma)}


def noise_info() -> dict[str, Any]:
    """What a mechanism adds to its release's ``info`` about the noise switch of :mod:`sosproj.testing`.

    ``{"noise_disabled": True}`` when the release was made inside
    :func:`sosproj.testing.noise_disabled` (no noise at all, no privacy), else ``{}``.

    >>> noise_info()
    {}
    """
    return {"noise_disabled": True} if noise_is_disabled() else {}


@dataclass(frozen=True, init=False)
class Release:
    """A differentially private release.

    Attributes
    ----------
    value : the released array (post-processed noisy measurement).
    sigma : standard deviation of the Gaussian noise that was added.
    spec : the :class:`~sosproj.privacy.spec.PrivacySpec` of the guarantee
        (epsilon, delta, adjacency, sensitivity, calibration).
    mechanism : name of the mechanism (and method).
    info : diagnostics of the post-processing (projection method, iterations,
        residuals, convergence; ``noise_disabled`` when made under the test switch);
        never anything computed from the raw data other than the release itself.

    Build it with ``spec=``; for convenience the guarantee may instead be given as
    ``epsilon, delta, sensitivity, calibration`` (then under replace-one adjacency).
    """

    value: np.ndarray
    sigma: float
    spec: PrivacySpec
    mechanism: str
    info: dict[str, Any] = field(default_factory=dict)

    def __init__(self, value: np.ndarray, sigma: float, epsilon: float | None = None,
                 delta: float | None = None, sensitivity: float | None = None,
                 calibration: str = "analytic", mechanism: str = "", info: dict[str, Any] | None = None,
                 *, spec: PrivacySpec | None = None) -> None:
        if spec is None:
            if epsilon is None or delta is None or sensitivity is None:
                raise InvalidParameterError("Release needs spec= (a PrivacySpec) or epsilon, delta and "
                                            "sensitivity")
            spec = PrivacySpec.create(epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                      calibration=calibration)
        elif not isinstance(spec, PrivacySpec):
            raise InvalidParameterError("spec must be a PrivacySpec; build it with PrivacySpec.create(...)")
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "sigma", float(sigma))
        object.__setattr__(self, "spec", spec)
        object.__setattr__(self, "mechanism", str(mechanism))
        object.__setattr__(self, "info", dict(info or {}))

    @property
    def epsilon(self) -> float:
        """The guarantee's epsilon (``spec.epsilon``)."""
        return self.spec.epsilon

    @property
    def delta(self) -> float:
        """The guarantee's delta (``spec.delta``)."""
        return self.spec.delta

    @property
    def sensitivity(self) -> float:
        """The l2-sensitivity the noise was calibrated to (``spec.sensitivity``)."""
        return self.spec.sensitivity

    @property
    def calibration(self) -> str:
        """``"analytic"``, ``"paper"`` or ``"classical"`` (``spec.calibration``)."""
        return self.spec.calibration

    @property
    def privacy(self) -> dict[str, Any]:
        """The privacy parameters as a plain dict, adjacency included (:func:`privacy_record`)."""
        return privacy_record(self.spec, self.sigma)


__all__ = ["Release", "privacy_record", "noise_info", "MarginalRelease"]


def _canonical_attrs(attrs: Any, n: int, name: str = "attrs") -> tuple[int, ...]:
    if isinstance(attrs, (str, bytes)) or not hasattr(attrs, "__iter__"):
        raise InputTypeError(f"{name} must be a sequence of attribute indices")
    out = []
    for a in attrs:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise InputTypeError(f"{name} must contain integer attribute indices")
        a = int(a)
        if not 0 <= a < n:
            raise InvalidParameterError(f"{name} must contain indices in [0, n) with n={n}")
        out.append(a)
    return tuple(out)


@dataclass(frozen=True)
class MarginalRelease:
    """A private release of all marginals of order ``<= k`` of a binary dataset.

    Attributes
    ----------
    subsets : the attribute subsets ``S`` (sorted tuples, the empty set first) whose
        moments were released.
    moments : released :math:`\\mu_S`, the fraction of rows with all attributes of ``S``
        equal to one, in the order of ``subsets`` (``moments[0] = 1``: ``m`` is public).
    m, n, k : number of rows (public), attributes, and the largest order released.
    method, epsilon, delta, sigma, sensitivity, calibration : how it was produced; ``sigma``
        and ``sensitivity`` refer to the noisy measurement (``info["measurement"]``).
    info : diagnostics (solver status, iterations, degree, normalization, noise
        distribution); nothing computed from the raw data.

    Examples
    --------
    >>> r = MarginalRelease.from_subset_moments([(), (0,), (1,), (0, 1)], [1, .5, .5, .25],
    ...         m=8, n=2, k=2, method="exact", epsilon=1.0, delta=1e-6, sigma=0.0,
    ...         sensitivity=1.0, calibration="analytic")
    >>> r.query([1, 0]), r.table([0, 1]).tolist()
    (2.0, [[2.0, 2.0], [2.0, 2.0]])
    """

    subsets: tuple[tuple[int, ...], ...]
    moments: np.ndarray
    m: int
    n: int
    k: int
    method: str
    epsilon: float
    delta: float
    sigma: float
    sensitivity: float
    calibration: str
    info: dict[str, Any] = field(default_factory=dict)
    _index: dict[tuple[int, ...], int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        mom = np.array(self.moments, dtype=np.float64)
        if mom.ndim != 1 or mom.shape[0] != len(self.subsets):
            raise InvalidInputError("moments must be a 1-D array with one entry per subset")
        if not np.all(np.isfinite(mom)):
            raise InvalidInputError("moments must be finite")
        mom.setflags(write=False)
        object.__setattr__(self, "moments", mom)
        object.__setattr__(self, "_index", {s: i for i, s in enumerate(self.subsets)})

    # -- construction ---------------------------------------------------------------
    @classmethod
    def from_subset_moments(cls, subsets: Any, moments: Any, *, m: int, n: int, k: int, method: str,
                            epsilon: float, delta: float, sigma: float, sensitivity: float,
                            calibration: str, info: dict[str, Any] | None = None) -> MarginalRelease:
        """Build a release from subset moments (fractions of rows), validating and canonicalizing.

        ``subsets``: iterable of attribute tuples (any order inside a tuple; sorted here),
        each of size ``<= k``, distinct; ``moments``: matching fractions. The empty set is
        added with moment 1 if absent. The result is ordered by size, then lexicographically.
        Used by every method, including ``release_tables``.

        >>> r = MarginalRelease.from_subset_moments([(1,), (0,)], [0.25, 0.5], m=4, n=2, k=1,
        ...         method="x", epsilon=1, delta=1e-6, sigma=1, sensitivity=1, calibration="analytic")
        >>> r.subsets, r.moments.tolist()
        (((), (0,), (1,)), [1.0, 0.5, 0.25])
        """
        m = check_int(m, "m", minimum=1)
        n = check_int(n, "n", minimum=1)
        k = check_int(k, "k", minimum=1, maximum=n)
        subs = [tuple(sorted(_canonical_attrs(s, n, "subsets"))) for s in subsets]
        mom = np.asarray(moments, dtype=np.float64).ravel()
        if len(subs) != mom.shape[0]:
            raise InvalidInputError("subsets and moments must have the same length")
        if any(len(set(s)) != len(s) or len(s) > k for s in subs):
            raise InvalidInputError("every subset must have distinct attributes and size <= k")
        if len(set(subs)) != len(subs):
            raise InvalidInputError("subsets must be distinct")
        if () not in subs:
            subs.append(())
            mom = np.append(mom, 1.0)
        order = sorted(range(len(subs)), key=lambda i: (len(subs[i]), subs[i]))
        return cls(subsets=tuple(subs[i] for i in order), moments=mom[order], m=m, n=n, k=k,
                   method=str(method), epsilon=float(epsilon), delta=float(delta), sigma=float(sigma),
                   sensitivity=float(sensitivity), calibration=str(calibration), info=dict(info or {}))

    # -- answers ----------------------------------------------------------------------
    def moment(self, attrs: Any) -> float:
        """Released fraction of rows with all ``attrs`` equal to one (duplicates ignored: x^2 = x).

        >>> r = MarginalRelease.from_subset_moments([(0,)], [0.5], m=4, n=1, k=1, method="x",
        ...         epsilon=1, delta=1e-6, sigma=1, sensitivity=1, calibration="analytic")
        >>> r.moment([0, 0])
        0.5
        """
        key = tuple(sorted(set(_canonical_attrs(attrs, self.n))))
        if len(key) > self.k:
            raise InvalidParameterError(
                f"attrs has more than k={self.k} distinct attributes; release with a larger k")
        i = self._index.get(key)
        if i is None:
            raise InvalidParameterError("this attribute set was not released (not in the workload)")
        return float(self.moments[i])

    def query(self, attrs: Any) -> float:
        """Count of rows whose attributes ``attrs`` are all one (``|set(attrs)| <= k``), count units.

        >>> r = MarginalRelease.from_subset_moments([(0,)], [0.5], m=4, n=1, k=1, method="x",
        ...         epsilon=1, delta=1e-6, sigma=1, sensitivity=1, calibration="analytic")
        >>> r.query([0]), r.query([])
        (2.0, 4.0)
        """
        return self.m * self.moment(attrs)

    def table(self, attrs: Any) -> np.ndarray:
        """The ``2^j`` contingency table of ``attrs`` (distinct, ``j <= k``) by Moebius inversion.

        ``table[b_1, ..., b_j]`` is the (released) count of rows with attribute ``attrs[i]``
        equal to ``b_i``: :math:`\\sum_{U\\supseteq B} (-1)^{|U\\setminus B|}\\, m\\,\\mu_U`
        over ``B \\subseteq U \\subseteq attrs`` with ``B`` the attributes where ``b = 1``. Tables of
        one release are consistent: each sums to ``m`` and summing out an attribute gives the
        lower-order table.

        >>> r = MarginalRelease.from_subset_moments([(0,), (1,), (0, 1)], [.5, .25, .25], m=4, n=2,
        ...         k=2, method="x", epsilon=1, delta=1e-6, sigma=1, sensitivity=1, calibration="analytic")
        >>> r.table([1, 0]).tolist()
        [[2.0, 1.0], [0.0, 1.0]]
        """
        a = _canonical_attrs(attrs, self.n)
        j = len(a)
        if len(set(a)) != j:
            raise InvalidParameterError("attrs must be distinct for a contingency table")
        if j > self.k:
            raise InvalidParameterError(f"attrs has more than k={self.k} attributes; release with a larger k")
        masks = np.arange(2**j)
        bits = (masks[:, None] >> np.arange(j)[None, :]) & 1          # bit i <-> attrs[i]
        mu = np.array([self.moment([a[i] for i in range(j) if bits[u, i]]) for u in masks])
        # cell b: sum over U superset of B of (-1)^{|U|-|B|} mu_U
        sub = (masks[None, :] & masks[:, None]) == masks[:, None]     # [B, U]: B subset of U
        sign = (-1.0) ** (bits.sum(axis=1)[None, :] - bits.sum(axis=1)[:, None])
        cells = self.m * (np.where(sub, sign, 0.0) @ mu)
        out = np.empty((2,) * j)
        for b in masks:
            out[tuple(bits[b])] = cells[b]
        return out

    def counts(self, order: int | None = None) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
        """``(subsets, counts)`` of all released subsets, or those of one size ``order``.

        >>> r = MarginalRelease.from_subset_moments([(0,)], [0.5], m=4, n=1, k=1, method="x",
        ...         epsilon=1, delta=1e-6, sigma=1, sensitivity=1, calibration="analytic")
        >>> r.counts(1)[1].tolist()
        [2.0]
        """
        if order is None:
            return self.subsets, self.m * self.moments
        order = check_int(order, "order", minimum=0, maximum=self.k)
        idx = [i for i, s in enumerate(self.subsets) if len(s) == order]
        return tuple(self.subsets[i] for i in idx), self.m * self.moments[idx]

    def tensor(self) -> np.ndarray:
        """The order-``k`` symmetric tensor :math:`\\sum_r e^{(r)\\otimes k}` in count units, shape ``(n,)*k``.

        Entry :math:`\\alpha` is ``m * mu[supp(alpha)]``; needs every subset of size ``<= k``.

        >>> r = MarginalRelease.from_subset_moments([(0,), (1,), (0, 1)], [.5, .25, .25], m=4, n=2,
        ...         k=2, method="x", epsilon=1, delta=1e-6, sigma=1, sensitivity=1, calibration="analytic")
        >>> r.tensor().tolist()
        [[2.0, 1.0], [1.0, 1.0]]
        """
        if len(self.subsets) != n_subsets_upto(self.n, self.k):
            raise InvalidParameterError("tensor() needs every subset of size <= k; this release has a workload")
        return tensor_from_subset_moments(self.moments, self.n, self.k, scale=float(self.m))

    @property
    def privacy(self) -> dict[str, Any]:
        """The privacy parameters as a plain dict.

        >>> MarginalRelease.from_subset_moments([], [], m=1, n=1, k=1, method="x", epsilon=1,
        ...     delta=1e-6, sigma=2, sensitivity=1, calibration="analytic").privacy["sigma"]
        2.0
        """
        return {"epsilon": self.epsilon, "delta": self.delta, "sensitivity": self.sensitivity,
                "sigma": self.sigma, "calibration": self.calibration, "adjacency": "replace-one"}



@dataclass(frozen=True, eq=False)
class MarginalTablesRelease:
    r"""A private release of the marginal tables of a workload over a categorical domain.

    The tables are stored through their residuals (:mod:`sosproj.data.residuals`), so every table
    of an attribute set inside a workload set is consistent with the others and sums to ``m``.

    Attributes
    ----------
    domain : the public :class:`~sosproj.data.domain.Domain`.
    k : the largest workload order; workload : the workload's attribute sets (sorted tuples).
    residuals : released residual vector (read-only); m : the number of records (public under
        replace-one; the released total under add/remove).
    spec : the :class:`~sosproj.privacy.spec.PrivacySpec` (epsilon, delta, adjacency, sensitivity).
    method : ``"allocation/reconstruction"``; info : public diagnostics (noise scales per residual
        set, solver report); nothing computed from the raw data other than the release itself.
    """

    domain: Any
    k: int
    workload: tuple[tuple[int, ...], ...]
    residuals: np.ndarray
    m: int
    spec: Any
    method: str
    info: dict[str, Any] = field(default_factory=dict)
    layout: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        r = np.array(self.residuals, dtype=np.float64)
        r.setflags(write=False)
        object.__setattr__(self, "residuals", r)

    @property
    def epsilon(self) -> float:
        """Privacy loss of the guarantee."""
        return float(self.spec.epsilon)

    @property
    def delta(self) -> float:
        """Failure probability of the guarantee."""
        return float(self.spec.delta)

    @property
    def sensitivity(self) -> float:
        """Exact l2 sensitivity of the whitened residual measurement."""
        return float(self.spec.sensitivity)

    @property
    def calibration(self) -> str:
        """Gaussian calibration rule."""
        return str(self.spec.calibration)

    @property
    def sigma(self) -> float:
        """Noise scale of the whitened measurement (``sigma_A = sigma * s_A``; see ``info["noise_scales"]``)."""
        return float(self.info.get("sigma0", float("nan")))

    @property
    def total(self) -> float:
        """Sum of every released table (``m`` under replace-one)."""
        return float(self.layout.residual(self.residuals, ()))

    @property
    def privacy(self) -> dict[str, Any]:
        """The privacy parameters as a plain dict, adjacency included (:func:`privacy_record`)."""
        return privacy_record(self.spec, self.sigma)

    def table(self, attrs: Any) -> np.ndarray:
        """Released counts of ``attrs`` (indices or names), one axis per attribute in the order given.

        ``attrs`` must lie inside one workload set (or be empty).
        """
        idx = self.domain.indices(attrs)
        key = tuple(sorted(idx))
        if key not in self.layout.res_pos:
            from sosproj.errors import InvalidParameterError

            raise InvalidParameterError(
                f"attributes {list(attrs)} are not inside any workload set of this release; "
                "release with a workload containing them")
        t = self.layout.marginal(self.residuals, key)
        order = [key.index(a) for a in idx]
        return np.ascontiguousarray(np.transpose(t, order)) if len(order) > 1 else t

    def query(self, attrs: Any) -> float:
        """Binary data: released count of records whose attributes ``attrs`` are all 1."""
        if not self.domain.is_binary:
            from sosproj.errors import InvalidParameterError

            raise InvalidParameterError("query() is for binary domains; use table(attrs) for categorical data")
        idx = tuple(dict.fromkeys(self.domain.indices(list(dict.fromkeys(attrs)))))
        if not idx:
            return self.total
        return float(self.table(idx)[(1,) * len(idx)])

    def tables(self) -> dict[tuple[int, ...], np.ndarray]:
        """Every workload table, keyed by its (sorted) attribute tuple."""
        return {w: self.layout.marginal(self.residuals, w) for w in self.workload}

    def labeled_table(self, attrs: Any) -> LabeledTable:
        """:meth:`table` with its axis labels: a :class:`~sosproj.data.codebook.LabeledTable` whose
        ``counts`` equal ``table(attrs)`` and whose ``values[i]`` are the public labels of attribute
        ``attrs[i]`` (:meth:`Domain.values <sosproj.data.domain.Domain.values>`: the code book's labels,
        ``"0", "1", ...`` for an attribute without one). ``rows()`` gives the long format (the value of
        each attribute, then the released count) and ``to_csv(path)`` writes it with a header naming
        the attributes. Post-processing of the release: the labels are public metadata.
        """
        idx = self.domain.indices(attrs)
        return self.domain.labeled_table(idx, self.table(idx))


__all__.append("MarginalTablesRelease")
