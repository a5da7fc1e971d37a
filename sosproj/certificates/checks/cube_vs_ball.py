r"""Check: Gaussian complexity of the Boolean-cube relaxation against the unit-ball relaxation.

Question (design guide, "Binary data deserve that set"). At equal :math:`n, k` and
degree, how much smaller is :math:`G` of the degree-4 relaxation of
:math:`\{x_i^2 = x_i / \sqrt{n}\} = \{0, 1/\sqrt n\}^n` (the paper's normalization
:math:`e/\sqrt{n}` of binary rows) than :math:`G` of the unit-ball relaxation
:math:`\{\|x\|^2 \le 1\}`?

Claim checked. The cube points lie in the unit ball and the ball constraint has a
degree-2 SoS proof from the cube equalities (:math:`c - x_i = (c - x_i)^2 / c`,
:math:`c^2 n - \|x\|^2 = c \sum_i (c - x_i)`), so the cube relaxation is contained in the
ball relaxation and, draw by draw, its support value is not larger. The verdict fails
on any draw where it is (beyond solver tolerance). The ratio
:math:`G_{\mathrm{cube}} / G_{\mathrm{ball}}` and both fitted exponents are reported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sosproj.certificates.checks.relaxation_sets import tensor_set
from sosproj.certificates.complexity import ComplexityEstimate, gaussian_complexity
from sosproj.certificates.progress import progress_bar
from sosproj.certificates.rates import fit_rate
from sosproj.certificates.registry import Curve, Outcome, register


@register(
    "cube_vs_ball",
    title="Boolean-cube vs unit-ball relaxation complexity",
    statement="G(cube relaxation of x^{(x)k}) <= G(unit-ball relaxation) at equal n, k, degree; "
              "report the ratio and the fitted exponents",
    reference='Section "An advanced application: k-way marginal queries"; design note on the '
              'Boolean-cube relaxation',
    defaults={"ns": [3, 4, 5, 6, 8, 10], "k": 3, "degree": 4, "trials": 16, "rel_tol": 1e-4,
              "confidence": 0.95, "n_boot": 1000},
    quick={"ns": [3, 4, 6, 8], "trials": 8},
)
def check_cube_vs_ball(p: dict[str, Any], rng: np.random.Generator, progress: bool | None) -> Outcome:
    """Paired draws: the same ``W`` for both relaxations, per ``n``."""
    k, d = int(p["k"]), int(p["degree"])
    ns = [int(n) for n in p["ns"]]
    conf = float(p["confidence"])
    rows, cube_s, ball_s, cube_e, ball_e = [], [], [], [], []
    violations = 0
    with progress_bar(total=len(ns), desc="cube vs ball", enabled=progress) as bar:
        for n in ns:
            seed = int(rng.integers(0, 2**31))
            ball = tensor_set("unit_ball", n, d, k)
            cube = tensor_set("boolean_cube", n, d, k, scale=1.0 / np.sqrt(n))
            gb = gaussian_complexity(ball, shape=(n,) * k, trials=int(p["trials"]), rng=seed,
                                     confidence=conf, progress=False)
            gc = gaussian_complexity(cube, shape=(n,) * k, trials=int(p["trials"]), rng=seed,
                                     confidence=conf, progress=False)
            over = gc.values - gb.values > float(p["rel_tol"]) * (1.0 + np.abs(gb.values))
            violations += int(over.sum())
            ratio = ComplexityEstimate.from_values(gc.values / gb.values, confidence=conf, shape=(n,) * k)
            rows.append({"n": n, "G_cube": gc.mean, "G_cube_ci": [gc.ci_low, gc.ci_high],
                         "G_ball": gb.mean, "G_ball_ci": [gb.ci_low, gb.ci_high], "ratio": ratio.mean,
                         "ratio_ci": [ratio.ci_low, ratio.ci_high], "draws_cube_above_ball": int(over.sum())})
            cube_s.append(gc.values)
            ball_s.append(gb.values)
            cube_e.append(gc)
            ball_e.append(gb)
            bar.update(1)
    fb = fit_rate(ns, samples=ball_s, n_boot=int(p["n_boot"]), confidence=conf, rng=rng)
    fc = fit_rate(ns, samples=cube_s, n_boot=int(p["n_boot"]), confidence=conf, rng=rng)
    verdict = "fail" if violations else "pass"
    ratios = [r["ratio"] for r in rows]
    reason = (f"G_cube / G_ball in [{min(ratios):.3f}, {max(ratios):.3f}]; exponents of n: ball "
              f"{fb.exponent:.3f} [{fb.exponent_ci[0]:.3f}, {fb.exponent_ci[1]:.3f}], cube "
              f"{fc.exponent:.3f} [{fc.exponent_ci[0]:.3f}, {fc.exponent_ci[1]:.3f}]; "
              f"{violations} draws with the cube value above the ball value")
    xs = [float(n) for n in ns]
    curves = [Curve("unit ball (degree 4)", xs, [e.mean for e in ball_e], "measured",
                    [e.ci_low for e in ball_e], [e.ci_high for e in ball_e]),
              Curve("Boolean cube, scale 1/sqrt(n) (degree 4)", xs, [e.mean for e in cube_e], "measured",
                    [e.ci_low for e in cube_e], [e.ci_high for e in cube_e]),
              Curve("(n^3 3 ln n)^(1/4) (unit-ball rate)", xs, [(n ** 3 * 3 * np.log(n)) ** 0.25 for n in ns],
                    "theory")]
    measured = {"ratio_min": min(ratios), "ratio_max": max(ratios), "exponent_ball": fb.exponent,
                "exponent_ball_ci": list(fb.exponent_ci), "exponent_cube": fc.exponent,
                "exponent_cube_ci": list(fc.exponent_ci), "violations": violations}
    theoretical = {"ratio_at_most": 1.0, "exponent_ball": 0.75}
    return Outcome(verdict, reason, measured, theoretical, rows, curves, "n", "G")
