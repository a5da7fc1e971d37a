"""How the black-box audit's event selection affects its power (a follow-up study, not the shipped rule).

Simulates the audit's statistics for a Gaussian shift with sigma x 0.7 at the claim (1, 1e-6),
12,000 runs per input (30% calibration), three identical statistics (the projection and two
coordinates, as for a symmetric cosine entry), 40 seeds; compares the shipped selection (calibration
counts rescaled to the hold-out size, 199 quantiles) with scoring at the calibration size and with
fewer thresholds. Prints the share of seeds in which sigma x 0.7 is caught and the median lower bound.

    PYTHONPATH=. python benchmarks/audit_selection_study.py > benchmarks/results_audit/selection_study.txt
"""

from __future__ import annotations

import numpy as np

from sosproj.audit import blackbox as bb
from sosproj.audit.blackbox import claimed_mu

MU0 = claimed_mu(1.0, 1e-6)


def run(rescale: bool, quantiles: int, seed: int, factor: float = 0.7, n: int = 12_000) -> float:
    g = np.random.default_rng(seed)
    mu = MU0 / factor
    n_cal = int(0.3 * n)
    n_hold = n - n_cal

    def stats(shift: float, m: int) -> np.ndarray:
        z = g.standard_normal(m) + shift
        return np.column_stack([z, z, z])

    c0, c1 = stats(0.0, n_cal), stats(mu, n_cal)
    ev = bb._choose_event(c0, c1, n_hold if rescale else n_cal, 0.05, "gaussian", 1e-6, quantiles)
    h0, h1 = stats(0.0, n_hold)[:, 0], stats(mu, n_hold)[:, 0]
    kb, ks = (ev.hits(h1), ev.hits(h0)) if ev.big_is_prime else (ev.hits(h0), ev.hits(h1))
    return float(bb._bound(kb, ks, n_hold, 0.05, "gaussian", 1e-6))


def main() -> None:
    print(f"claimed mu {MU0:.4f}; sigma x 0.7 -> true mu {MU0 / 0.7:.4f}; 12,000 runs per input, 40 seeds")
    print("| selection score | thresholds | share caught | median mu lower bound |")
    print("|---|---|---|---|")
    for rescale in (True, False):
        for q in (199, 49):
            b = np.array([run(rescale, q, s) for s in range(40)])
            name = "rescaled to hold-out (shipped)" if rescale and q == 199 else (
                "rescaled to hold-out" if rescale else "at calibration size")
            print(f"| {name} | {q} | {np.mean(b > MU0):.3f} | {np.median(b):.3f} |")


if __name__ == "__main__":
    main()
