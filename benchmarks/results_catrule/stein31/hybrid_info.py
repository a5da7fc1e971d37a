"""Information only (after the titanic evaluation; set D is SEEN by now): the hybrid factor "offset 0 for q <= 2,
James-Stein q - 2 for q >= 3" (``hyb``) against the rule (``off2``) on set D, seeds 0-29. Study-side only: it
replaces ``marginals_pipeline.shrink_one_way`` in this process by the hybrid (no library change). On titanic the
hybrid is fixed publicly without a run: at epsilon 0.3 / 1 the shrunk sets are Fare / Age (q = 31 / 90), where it is
the rule; at 0.03 only the 2-value attribute 2 is shrunk (q = 1), where it is offset 0 (eval_offset0.txt: 0.998).

Usage: python benchmarks/results_catrule/stein31/hybrid_info.py > benchmarks/results_catrule/stein31/raw_hybrid.txt
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from catrule_study import score  # noqa: E402
from pubrule_study import public_sigmas  # noqa: E402
from stein_fresh import FRESH, fresh_data, offset_acts  # noqa: E402

from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

_orig = mp.shrink_one_way


def _hybrid(meas, m, c, band):
    """Offset 0 on the 1-way sets with q <= 2, then offset 2 (the rule) on those with q >= 3."""
    lay = meas.layout
    mp.ONE_WAY_SHRINK_OFFSET = 0
    small, done0 = _orig(meas, m, c, band)
    mp.ONE_WAY_SHRINK_OFFSET = 2
    keep = [A for A in done0 if lay.sizes[A[0]] - 1 <= 2]
    r = meas.residuals.copy()
    for A in keep:  # the q <= 2 sets from the offset-0 pass, the rest from the rule's pass
        lay.residual(r, A)[...] = lay.residual(small.residuals, A)
    rule, done2 = _orig(mp.Measurement(lay, r, meas.sigmas, meas.spec, meas.allocation, meas.m_public), m, c, band)
    return rule, sorted(set(keep) | set(done2))


def main() -> None:
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in FRESH:
        ds = fresh_data(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in (0.1, 0.3, 1, 3):
            if not offset_acts(ds, public_sigmas(ds, eps, mp.AUTO_SKIP_SNR)):
                continue
            for seed in range(30):
                for var in ("off2", "hyb"):
                    mp.shrink_one_way = _hybrid if var == "hyb" else _orig
                    mp.ONE_WAY_SHRINK_OFFSET = 2
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, options={"on_fail": "return"})
                    err, meas = score(rel, truth, ds.m)
                    print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} - 0", flush=True)
    mp.shrink_one_way = _orig


if __name__ == "__main__":
    main()
