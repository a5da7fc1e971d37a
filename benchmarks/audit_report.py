"""Audit every sosproj mechanism at three claims, correct and with sigma halved.

Prints a markdown table of the epsilon lower bounds (95% confidence, Clopper-Pearson threshold
test, 400 000 trials per input) and the verdicts.

    PYTHONPATH=. python benchmarks/audit_report.py
"""

from __future__ import annotations

import time

from sosproj.audit import audit_mechanism, standard_targets, under_noised

CLAIMS = [(0.5, 1e-5), (1.0, 1e-6), (2.0, 1e-6)]


def main(trials: int = 400_000) -> None:
    print("| mechanism | claim (eps, delta) | eps lower bound (correct) | verdict | eps lower bound "
          "(sigma halved) | verdict | wall s (shared cores) |")
    print("|---|---|---|---|---|---|---|")
    for eps, delta in CLAIMS:
        for name in standard_targets(eps, delta):
            t0 = time.perf_counter()
            t = standard_targets(eps, delta)[name]
            good = audit_mechanism(t.mechanism, t.D, t.D_prime, epsilon=eps, delta=delta, trials=trials, rng=1)
            with under_noised(0.5):
                b = standard_targets(eps, delta)[name]
                bad = audit_mechanism(b.mechanism, b.D, b.D_prime, epsilon=eps, delta=delta, trials=trials,
                                      rng=2)
            dt = time.perf_counter() - t0
            print(f"| {name} | ({eps:g}, {delta:g}) | {good.epsilon_lower_bound:.3f} | "
                  f"{'pass' if good.passed else 'FAIL'} | {bad.epsilon_lower_bound:.3f} | "
                  f"{'pass' if bad.passed else 'FAIL (caught)'} | {dt:.1f} |")


if __name__ == "__main__":
    main()
