r"""TEST-ONLY negative controls: broken versions of a real release function that a sound audit must fail.

:class:`NegativeControl` wraps a release callable and, for the duration of each call,
replaces sosproj's Gaussian sampler (:func:`sosproj.privacy.noise.gaussian_noise`) or
its calibration (:func:`sosproj.privacy.calibration.gaussian_sigma`, ``spec_sigma``) wherever a loaded
sosproj module holds them. The wrapper is picklable, so the patch is applied inside
each joblib worker, around the real mechanism:

==============  =========================================================================
kind            what the broken mechanism does (it still *reports* the claimed privacy)
==============  =========================================================================
``zero``        no noise at all
``uniform``     uniform noise of the same variance, :math:`U(-\sqrt3\sigma, \sqrt3\sigma)`
                (discrete sampler: uniform integers on :math:`\{-a, \dots, a\}`,
                :math:`a(a+1)/3 \approx \sigma^2`)
``scale``       Gaussian noise with ``factor`` times the calibrated :math:`\sigma`
                (discrete sampler: :math:`\mathcal N_{\mathbb Z}(0, (f\sigma)^2)`)
``sensitivity`` calibrates to ``factor`` times the sensitivity (``gaussian_sigma``,
                ``spec_sigma`` and ``discrete_gaussian_sigma`` patched; reports that sigma)
``grid``        Gaussian noise snapped to a coarse float grid of spacing :math:`\sigma/8`
                (discrete sampler: to multiples of :math:`g = \max(2, \mathrm{round}(\sigma/8))`,
                a sublattice, since integer noise is already on the grid of spacing 1)
==============  =========================================================================

The discrete Gaussian sampler of :mod:`sosproj.privacy.discrete_gaussian`
(``sample_discrete_gaussian``, used by ``release_tables(noise="discrete")``) is patched the
same way as the continuous one, so the controls reach every shipped noise distribution.

Never use these outside tests and audits: they remove privacy. Not thread-safe
(processes are fine: each joblib worker patches its own modules).

>>> import numpy as np
>>> from sosproj.mechanisms.perturb_and_project import perturb_and_project
>>> from sosproj.sets import Box
>>> f = lambda A, rng: perturb_and_project(A, Box(-9, 9), epsilon=1.0, delta=1e-6, sensitivity=1.0, rng=rng)
>>> NegativeControl(f, "zero")(np.zeros(2), 0).value
array([0., 0.])
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from sosproj.validation import check_choice, check_positive

KINDS = ("zero", "uniform", "scale", "sensitivity", "grid")
GRID_FRACTION = 0.125  # grid spacing of the ``grid`` control, in units of sigma


_MODULES: tuple[int, list[Any]] = (-1, [])


def _sosproj_modules() -> list[Any]:
    """The loaded sosproj modules (cached until sys.modules changes size: the patch runs once per run)."""
    global _MODULES
    if _MODULES[0] != len(sys.modules):
        mods = [m for k, m in list(sys.modules.items())
                if m is not None and (k == "sosproj" or k.startswith("sosproj."))]
        _MODULES = (len(sys.modules), mods)
    return _MODULES[1]


def _patch_everywhere(name: str, original: Any, replacement: Any) -> list[tuple[Any, str, Any]]:
    patched = []
    for module in _sosproj_modules():
        if vars(module).get(name) is original:
            setattr(module, name, replacement)
            patched.append((module, name, original))
    return patched


@contextlib.contextmanager
def broken_noise(kind: str, factor: float = 0.7) -> Iterator[None]:
    """Context in which every sosproj mechanism draws (or calibrates) its noise the ``kind`` way.

    >>> from sosproj.privacy import noise
    >>> with broken_noise("scale", 0.5):
    ...     float(noise.gaussian_noise(100_000, 2.0, rng=0).std()) < 1.01
    True
    """
    check_choice(kind, "kind", KINDS)
    factor = check_positive(factor, "factor")
    from sosproj.privacy import calibration, discrete_gaussian, noise

    patched: list[tuple[Any, str, Any]] = []
    replaced: dict[str, tuple[Any, Any]] = {}
    try:
        if kind == "sensitivity":
            orig_sigma = calibration.gaussian_sigma

            def sigma(epsilon: float, delta: float, sensitivity: float = 1.0, *args: Any, **kw: Any) -> float:
                return orig_sigma(epsilon, delta, factor * sensitivity, *args, **kw)

            replaced["gaussian_sigma"] = (orig_sigma, sigma)
            patched += _patch_everywhere("gaussian_sigma", orig_sigma, sigma)
            orig_spec_sigma = calibration.spec_sigma

            def understated_spec_sigma(spec: Any) -> float:  # the PrivacySpec route of the mechanisms
                return orig_spec_sigma(dataclasses.replace(spec, sensitivity=factor * spec.sensitivity))

            replaced["spec_sigma"] = (orig_spec_sigma, understated_spec_sigma)
            patched += _patch_everywhere("spec_sigma", orig_spec_sigma, understated_spec_sigma)
            orig_dg_sigma = discrete_gaussian.discrete_gaussian_sigma

            def dg_sigma(epsilon: float, delta: float, sensitivity: float = 1.0, **kw: Any) -> float:
                return orig_dg_sigma(epsilon, delta, factor * sensitivity, **kw)

            replaced["discrete_gaussian_sigma"] = (orig_dg_sigma, dg_sigma)
            patched += _patch_everywhere("discrete_gaussian_sigma", orig_dg_sigma, dg_sigma)
        else:
            orig = noise.gaussian_noise

            def draw(shape: Any, sigma: float, rng: Any = None) -> np.ndarray:
                z = orig(shape, sigma, rng)
                if kind == "zero":
                    return np.zeros_like(z)
                if kind == "scale":
                    return factor * z
                if kind == "grid":
                    g = GRID_FRACTION * sigma
                    return g * np.round(z / g)
                gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
                a = np.sqrt(3.0) * sigma
                return gen.uniform(-a, a, size=np.shape(z))

            replaced["gaussian_noise"] = (orig, draw)
            patched += _patch_everywhere("gaussian_noise", orig, draw)
            orig_dg = discrete_gaussian.sample_discrete_gaussian

            def draw_discrete(shape: Any, sigma2: Any, rng: Any = None) -> np.ndarray:
                s2 = float(sigma2)
                if kind == "scale":
                    return orig_dg(shape, s2 * factor * factor, rng)
                z = orig_dg(shape, sigma2, rng)
                if kind == "zero":
                    return np.zeros_like(z)
                if kind == "grid":
                    g = max(2, int(round(GRID_FRACTION * np.sqrt(s2))))
                    return (g * np.round(z / g)).astype(z.dtype)
                gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
                a = max(1, int(round((np.sqrt(1.0 + 12.0 * s2) - 1.0) / 2.0)))
                return gen.integers(-a, a + 1, size=np.shape(z)).astype(z.dtype)

            replaced["sample_discrete_gaussian"] = (orig_dg, draw_discrete)
            patched += _patch_everywhere("sample_discrete_gaussian", orig_dg, draw_discrete)
        yield
    finally:
        for module, name, fn in patched:
            setattr(module, name, fn)
        # a sosproj module first imported inside the context bound the replacement: restore it too
        for name, (fn, repl) in replaced.items():
            _patch_everywhere(name, repl, fn)


@dataclass(frozen=True)
class NegativeControl:
    """A release callable with its noise broken the ``kind`` way (see the module docstring)."""

    release: Callable[[Any, Any], Any]
    kind: str
    factor: float = 0.7

    def __post_init__(self) -> None:
        check_choice(self.kind, "kind", KINDS)
        check_positive(self.factor, "factor")

    def __call__(self, data: Any, rng: Any) -> Any:
        with broken_noise(self.kind, self.factor):
            return self.release(data, rng)


__all__ = ["NegativeControl", "broken_noise", "KINDS", "GRID_FRACTION"]
