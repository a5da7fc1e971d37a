"""Grey-box audit (sosproj.audit.audit_mechanism) of every library mechanism, correct and with sigma halved.

The grey-box audit samples a batched Gaussian model of each mechanism's noisy measurement (the
real mechanism only enters through the noise-free measurement and a short consistency check);
the black-box audit of the real release functions is ``benchmarks/audit_report.py``.
Prints a markdown table of the epsilon lower bounds (95% confidence, Clopper-Pearson threshold
test, 400 000 trials per input) and the verdicts.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/audit_greybox_report.py \
        > benchmarks/results_audit/greybox_report.md
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
