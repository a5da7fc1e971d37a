r"""Check: the injective-norm SoS certificate for odd :math:`p = 3` on the degree-4 unit ball.

Claim (Fact "injective norm certificate", Hopkins et al. 2015, d'Orsi et al. 2023).
For :math:`W \in (\mathbb{R}^n)^{\otimes p}` with i.i.d. :math:`N(0,1)` entries, odd
:math:`p`, every pseudo-distribution of degree :math:`\ge 2p - 2` over
:math:`\{\|x\|^2 \le 1\}` satisfies, with high probability,

.. math::

    \tilde{\mathbb{E}}\langle x^{\otimes p}, W\rangle \le C\,(n^p \cdot p \ln n)^{1/4} + \dots

so the Gaussian complexity of the degree-4 unit-ball relaxation of :math:`x^{\otimes 3}`
(the SoS value, :meth:`PseudoMomentSet.support`) grows like :math:`n^{3/4}` up to the
:math:`(3\ln n)^{1/4}` factor.

Measurement. :math:`G` on a grid of :math:`n`; fitted exponent of :math:`n` after
dividing out :math:`(p\ln n)^{1/4}` (theory :math:`p/4`), and the implied constant
:math:`C = \max_n G / (n^p p \ln n)^{1/4}`. References: the naive rate of the
Frobenius ball (Gaussian mechanism without projection), :math:`n^{p/2}`, and a lower
estimate of the true injective norm :math:`\max_{\|x\|\le 1}\langle W, x^{\otimes 3}\rangle`
by the tensor power method on the same draws (a feasible value: draw by draw the SoS
value must lie above it, otherwise the check fails).

Certified research mode (``certificates/research.toml``). Every support value of the
unit-ball relaxation carries a certified interval ``[lower_bound, upper_bound]``
(:mod:`sosproj.sdp.lowrank_support`); a size ``n`` enters the exponent fit and the verdict
only when every draw at that size has a certified relative gap ``<= certified_gap``. With
``atoms = true`` each solution goes through atom extraction (:func:`sosproj.poly.extract_atoms`)
and a draw counts as **tight** when an extracted point attains the certified upper bound
(degree 4 equals the injective norm on that draw); the fraction of tight draws is reported
per ``n``. ``windows`` (>= 2) adds local exponents over sliding windows of that many
consecutive certified sizes, with bootstrap intervals. ``cache_dir`` stores one JSON file per
draw, so a killed run resumes where it stopped; ``n_jobs`` evaluates draws in parallel
(joblib processes); ``trials_by_n`` overrides ``trials`` per size.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from sosproj.certificates.checks.relaxation_sets import tensor_set
from sosproj.certificates.complexity import ComplexityEstimate, gaussian_draws
from sosproj.certificates.progress import progress_bar
from sosproj.certificates.rates import fit_rate
from sosproj.certificates.registry import Curve, Outcome, combine, exponent_verdict, register


def symmetrize_tensor(T: np.ndarray) -> np.ndarray:
    """Average of ``T`` over all permutations of its axes.

    >>> T = np.zeros((2, 2, 2)); T[0, 0, 1] = 3.0
    >>> float(symmetrize_tensor(T)[1, 0, 0])
    1.0
    """
    perms = list(itertools.permutations(range(T.ndim)))
    return sum(np.transpose(T, p) for p in perms) / len(perms)


def power_method_value(W: np.ndarray, starts: int, rng: np.random.Generator, iters: int = 100) -> float:
    r"""A lower estimate of :math:`\max_{\|x\| \le 1}\langle W, x^{\otimes 3}\rangle` (tensor power method).

    >>> W = np.zeros((3, 3, 3)); W[0, 0, 0] = 2.0
    >>> round(power_method_value(W, 3, np.random.default_rng(0)), 6)
    2.0
    """
    T = symmetrize_tensor(W)
    n = T.shape[0]
    best = 0.0
    for _ in range(starts):
        x = rng.standard_normal(n)
        x /= np.linalg.norm(x)
        for _ in range(iters):
            g = np.einsum("ijk,j,k->i", T, x, x)
            nrm = np.linalg.norm(g)
            if nrm == 0:
                break
            x = g / nrm
        val = float(np.einsum("ijk,i,j,k->", T, x, x, x))
        best = max(best, abs(val))  # odd order: -x attains -val
    return best


_SETS: dict[tuple[Any, ...], Any] = {}


def _set_for(n: int, degree: int, k: int, solver: str, run: int, time_limit: float | None = None) -> Any:
    """One set per size and run (``run`` = the size's seed): its solver warm-starts across the draws of
    this run only, so a rerun with the same seed repeats the same sequence of solves. ``time_limit``
    (seconds per draw, or None) is the solver's wall-clock limit: a draw that hits it is reported with
    its (valid, wider) certified interval and its size leaves the verdict."""
    key = (n, degree, k, solver, run, time_limit)
    S = _SETS.get(key)
    if S is None:
        _SETS.clear()
        S = tensor_set("unit_ball", n, degree, k)
        S.solver = solver
        S.time_limit = time_limit
        _SETS[key] = S
    return S


def evaluate_draw(n: int, degree: int, k: int, W: np.ndarray, params: dict[str, Any],
                  power_seed: list[int]) -> dict[str, Any]:
    """Support value with its certificate, tightness and the power-method value of one draw."""
    limit = params.get("time_limit")
    S = _set_for(n, degree, k, str(params.get("solver", "auto")), int(power_seed[0]),
                 None if limit in (None, 0, "") else float(limit))
    t0 = time.perf_counter()
    res = S.support(W, tol=float(params.get("tol", 1e-7)), certify=bool(params.get("atoms", False)),
                    on_fail="return")
    info = res.info
    pm = power_method_value(W, int(params["power_starts"]), np.random.default_rng(power_seed))
    ub = float(info.get("upper_bound", np.nan))
    lb = float(info.get("lower_bound", np.nan))
    return {"value": float(res.value), "upper_bound": ub, "lower_bound": lb,
            "relative_gap": float(info.get("certified_relative_gap", np.nan)),
            "converged": bool(info.get("converged", False)), "solver": str(info.get("solver")),
            "tight": bool(info.get("tight", False)), "point_value": float(info.get("point_value", np.nan)),
            "tight_by": info.get("tight_by"), "atoms_ranks": {str(a): int(b) for a, b in
                                                           dict(info.get("atoms_ranks") or {}).items()},
            "power_value": float(pm), "iterations": int(info.get("iterations", 0)),
            "time": time.perf_counter() - t0}


def _draw_file(cache_dir: str | None, n: int, i: int, seed: int, tag: str) -> Path | None:
    if not cache_dir:
        return None
    return Path(cache_dir) / f"n{n}" / f"draw{i:04d}_seed{seed}_{tag}.json"


def _evaluate_cached(n: int, degree: int, k: int, W: np.ndarray, params: dict[str, Any], power_seed: Any,
                     path: Path | None) -> dict[str, Any]:
    if path is not None and path.exists():
        return json.loads(path.read_text())
    row = evaluate_draw(n, degree, k, W, params, power_seed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(row))
        tmp.replace(path)
    return row


def _draws_for(n: int, k: int, trials: int, seed: int, params: dict[str, Any], degree: int,
               progress_cb: Any = None) -> list[dict[str, Any]]:
    """All draws at one size, cached per draw (resumable) and in parallel over ``n_jobs``."""
    tagged = {key: params.get(key) for key in ("solver", "tol", "atoms", "power_starts")}
    if params.get("time_limit") not in (None, 0, ""):
        tagged["time_limit"] = float(params["time_limit"])     # a time-limited draw is not a full one
    tag = hashlib.sha1(json.dumps(tagged, sort_keys=True, default=str).encode()).hexdigest()[:8]
    draws = list(gaussian_draws((n,) * k, trials, seed))
    jobs = [(n, degree, k, W, params, [seed, i], _draw_file(params.get("cache_dir"), n, i, seed, tag))
            for i, W in enumerate(draws)]
    # per-size worker counts (``jobs_by_n``) for sizes whose solves do not fit in memory side by side:
    # at n = 100 two workers each need ~8.8 GiB and the second is refused by the memory guard
    n_jobs = int(dict(params.get("jobs_by_n") or {}).get(str(n), params.get("n_jobs", 1)) or 1)
    if n_jobs == 1 or len(jobs) == 1:
        out = []
        for job in jobs:
            out.append(_evaluate_cached(*job))
            if progress_cb is not None:
                progress_cb()
        return out
    from joblib import Parallel, delayed

    return list(Parallel(n_jobs=n_jobs)(delayed(_evaluate_cached)(*job) for job in jobs))


def _window_exponents(ns: list[int], samples: list[np.ndarray], width: int, k: int, n_boot: int,
                      confidence: float, rng: np.random.Generator) -> list[dict[str, Any]]:
    out = []
    for a in range(0, len(ns) - width + 1):
        sub_n, sub_s = ns[a:a + width], samples[a:a + width]
        f = fit_rate(sub_n, samples=sub_s, log_factor=lambda n: (k * np.log(n)) ** 0.25, n_boot=n_boot,
                     confidence=confidence, rng=rng)
        out.append({"ns": [int(v) for v in sub_n], "exponent": f.exponent, "exponent_ci": list(f.exponent_ci),
                    "width": float(f.exponent_ci[1] - f.exponent_ci[0])})
    return out


@register(
    "injective_norm",
    title="Injective-norm certificate, p = 3, degree-4 unit ball",
    statement="E sup over degree-4 pseudo-distributions on {||x||^2 <= 1} of <W, x^{(x)3}> "
              "<= C (n^3 * 3 ln n)^{1/4}",
    reference='Fact "injective norm certificate" (Appendix; Hopkins et al. 2015, d\'Orsi et al. 2023), '
              'degree 2p-2 = 4 (design note)',
    defaults={"ns": [3, 4, 5, 6, 8, 10], "p": 3, "degree": 4, "trials": 24, "exponent": 0.75,
              "naive_exponent": 1.5, "exponent_slack": 0.15, "power_starts": 8, "rel_tol": 1e-4, "confidence": 0.95,
              "n_boot": 1000, "solver": "auto", "tol": 1e-7, "certified_gap": 1e-4, "atoms": False,
              "windows": 0, "cache_dir": "", "n_jobs": 1, "jobs_by_n": {}, "trials_by_n": {},
              "time_limit": None},
    quick={"ns": [3, 4, 6, 8], "trials": 12},
)
def check_injective_norm(p: dict[str, Any], rng: np.random.Generator, progress: bool | None) -> Outcome:
    """Sweep ``n``, fit the exponent of ``G / (p ln n)^{1/4}`` on certified sizes, record the constant."""
    k = int(p["p"])
    b = float(p["exponent"])
    degree = int(p["degree"])
    ns = [int(n) for n in p["ns"]]
    trials_by_n = {int(key): int(v) for key, v in dict(p.get("trials_by_n") or {}).items()}
    conf = float(p["confidence"])
    rows, samples, ests, lowers, certified_ns = [], [], [], [], []
    seeds = {n: int(rng.integers(0, 2**31)) for n in ns}
    total = sum(trials_by_n.get(n, int(p["trials"])) for n in ns)
    with progress_bar(total=total, desc="injective norm", enabled=progress) as bar:
        for n in ns:
            trials = trials_by_n.get(n, int(p["trials"]))
            t0 = time.perf_counter()
            draws = _draws_for(n, k, trials, seeds[n], p, degree, progress_cb=lambda: bar.update(1))
            values = np.array([d["value"] for d in draws])
            pm = np.array([d["power_value"] for d in draws])
            ub = np.array([d["upper_bound"] for d in draws])
            gaps = np.array([d["relative_gap"] for d in draws])
            top = np.where(np.isfinite(ub), ub, values)
            # the SoS value (certified upper bound where available) bounds the injective norm from
            # above: on no draw may it lie below the power-method value (a feasible point)
            below = int(np.sum(top < pm - float(p["rel_tol"]) * (1.0 + pm)))
            certified = bool(np.all(np.isfinite(gaps)) and np.all(gaps <= float(p["certified_gap"])))
            est = ComplexityEstimate.from_values(values, confidence=conf, shape=(n,) * k)
            low = ComplexityEstimate.from_values(pm, confidence=conf, shape=(n,) * k)
            rate = (n ** k * k * np.log(n)) ** 0.25
            row = {"n": n, "trials": trials, "G_sos": est.mean, "G_sos_ci": [est.ci_low, est.ci_high],
                   "rate": rate, "implied_constant": est.mean / rate,
                   "injective_lower_estimate": low.mean, "naive_frobenius": n ** (k / 2),
                   "draws_sos_below_power_method": below, "certified": certified,
                   "max_certified_relative_gap": float(np.nanmax(gaps)) if np.any(np.isfinite(gaps)) else None,
                   "sos_over_power": float(np.mean(values / np.maximum(pm, 1e-300))),
                   "solvers": sorted({d["solver"] for d in draws}),
                   "seconds_per_draw": float(np.median([d["time"] for d in draws])),
                   "wall_seconds": time.perf_counter() - t0}
            if bool(p.get("atoms", False)):
                pv = np.array([d["point_value"] for d in draws])
                row["best_point_mean"] = float(np.nanmean(pv)) if np.any(np.isfinite(pv)) else None
                row["tight_fraction"] = float(np.mean([d["tight"] for d in draws]))
                row["tight_by_atoms_fraction"] = float(np.mean([d.get("tight_by") == "atoms" for d in draws]))
                row["flat_fraction"] = float(np.mean([d.get("tight_by") == "atoms" or
                                                      (d.get("atoms_ranks") or {}).get("1") ==
                                                      (d.get("atoms_ranks") or {}).get("2") for d in draws]))
            rows.append(row)
            _SETS.clear()
            samples.append(values)
            ests.append(est)
            lowers.append(low)
            if certified:
                certified_ns.append(n)
    use = [i for i, n in enumerate(ns) if n in certified_ns]
    if len(use) >= 2:
        fit = fit_rate([ns[i] for i in use], samples=[samples[i] for i in use],
                       log_factor=lambda n: (k * np.log(n)) ** 0.25, n_boot=int(p["n_boot"]),
                       confidence=conf, rng=rng)
        ev = exponent_verdict(fit.exponent_ci[0], fit.exponent, b, float(p["exponent_slack"]))
        fit_text = (f"fitted exponent of n (after (3 ln n)^(1/4)) {fit.exponent:.3f} "
                    f"[{fit.exponent_ci[0]:.3f}, {fit.exponent_ci[1]:.3f}] on certified n {[ns[i] for i in use]}")
        measured = {"exponent": fit.exponent, "exponent_ci": list(fit.exponent_ci), "fit": fit.as_dict()}
    else:
        ev = "inconclusive"
        fit_text = (f"fewer than two sizes with a certified gap <= {float(p['certified_gap']):g} "
                    f"(certified: {certified_ns})")
        measured = {"exponent": float("nan"), "exponent_ci": [float("nan"), float("nan")]}
    windows = int(p.get("windows", 0) or 0)
    if windows >= 2 and len(use) >= windows:
        measured["local_exponents"] = _window_exponents([ns[i] for i in use], [samples[i] for i in use],
                                                        windows, k, int(p["n_boot"]), conf, rng)
    order = ["fail" if r["draws_sos_below_power_method"] else "pass" for r in rows]
    verdict = combine([ev, *order])
    C = max(r["implied_constant"] for r in rows if r["n"] in certified_ns) if certified_ns else \
        max(r["implied_constant"] for r in rows)
    reason = (f"{fit_text} vs {b:g} (naive {float(p['naive_exponent']):g}); implied constant C = {C:.3f}")
    measured.update({"constant": C, "certified_ns": certified_ns})
    xs = [float(n) for n in ns]
    curves = [Curve("SoS value G (degree 4)", xs, [e.mean for e in ests], "measured",
                    [e.ci_low for e in ests], [e.ci_high for e in ests]),
              Curve(f"C (n^3 3 ln n)^(1/4), C={C:.2f}", xs, [C * r["rate"] for r in rows], "theory"),
              Curve("n^(3/2) (Frobenius ball, naive)", xs, [r["naive_frobenius"] for r in rows], "naive"),
              Curve("injective norm, power method (lower)", xs, [lo.mean for lo in lowers], "reference",
                    [lo.ci_low for lo in lowers], [lo.ci_high for lo in lowers])]
    if all(r.get("best_point_mean") is not None for r in rows) and rows and "best_point_mean" in rows[0]:
        curves.append(Curve("injective norm, best feasible point (rounded / extracted; lower)", xs,
                            [r["best_point_mean"] for r in rows], "reference"))
    theoretical = {"exponent": b, "naive_exponent": float(p["naive_exponent"]),
                   "rate": "(n^p p ln n)^(1/4)", "degree": degree}
    return Outcome(verdict, reason, measured, theoretical, rows, curves, "n", "G")
