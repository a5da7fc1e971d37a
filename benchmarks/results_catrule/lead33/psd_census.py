"""lead33, public only (sizes, m, epsilon, delta; no record is read for the decision): where the categorical
``"auto"`` reconstruction runs its one-hot PSD step (``_auto`` on the MEASURED family's layout: ``onehot_psd`` and
``public_snr(m, epsilon, measured layout) >= PSD_MIN_SNR``) under main's bars (2.5, 5, 8) and under (2.5, 5, 12),
on the 36 seen synthetic shapes of tau33, the fresh set H, and titanic / adult; and the workload's public SNR.

Usage: python benchmarks/results_catrule/lead33/psd_census.py > benchmarks/results_catrule/lead33/psd_census.txt
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent / "tau33"))
import numpy as np  # noqa: E402
import tau_study  # noqa: E402
from pubrule_study import public_sigmas  # noqa: E402

import sosproj as sp  # noqa: E402
from sosproj.data.residuals import ResidualLayout  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

SEEN = ("tit9-m1k F:f-skew-m2k tit9-geo-m1k G:g-skew-m1k tit9-skew-m1k F:f-geo-skew-m1500 tit9-geo2-m1k "
        "G:g-geo-skew-m2k tit6-skew-m1k F:f-dir-m1500 G:g-dir-m800 tit9-a03-m1k F:f-geo-m1100 G:g-geo-m1600 "
        "tit9-geo4-m800 F:f-flat-m900 G:g-skew-m3k cat9-wide-m1k F:f-geo-m650 G:g-flat-m1800 adl7-geo-m3k "
        "F:f-dir-m3500 G:g-dir-m2500 cat8-m400 F:f-geo-m2200 D:d-flat-m700 tit9-a1-m2k F:f-geo-m4500 D:g-m600 "
        "cat6-geo-m2k F:f-dir-m6k D:d-mix-m900 cat10-geo-m300 G:g-geo-m5k D:g-m1800 adl7-m10k").split()
SHAPES = SEEN + ["H:" + k for k in tau_study.SET_H] + ["real:titanic", "real:adult"]


def psd_runs(ds, eps: float, tau: tuple[float, ...]) -> tuple[bool, float]:
    sig = public_sigmas(ds, eps, tau)
    lay = ResidualLayout.checked(ds.domain.sizes, mp.parse_workload(ds.domain, 3, None))
    measured = [A for A, s in zip(lay.residual_sets, sig, strict=True) if np.isfinite(s)]
    top = mp.maximal_sets(measured)
    if not top:
        return False, 0.0
    sub = ResidualLayout(lay.sizes, top)
    snr = mp.public_snr(ds.m, eps, sub)
    return bool(mp.onehot_psd(sub) and snr >= mp.PSD_MIN_SNR), snr


print("shape eps full_snr psd_main(snr_meas) psd_12(snr_meas)")
n_main = n_12 = 0
for name in SHAPES:
    ds = sp.load_dataset(name[5:]) if name.startswith("real:") else tau_study.load(name)
    lay = ResidualLayout.checked(ds.domain.sizes, mp.parse_workload(ds.domain, 3, None))
    for eps in (0.03, 0.1, 0.3, 1.0, 3.0, 10.0):
        a, sa = psd_runs(ds, eps, (2.5, 5.0, 8.0))
        b, sb = psd_runs(ds, eps, (2.5, 5.0, 12.0))
        n_main += a
        n_12 += b
        if a or b:
            print(f"{name} {eps:g} {mp.public_snr(ds.m, eps, lay):.3f} {a}({sa:.2f}) {b}({sb:.2f})", flush=True)
print(f"# cells where the PSD step runs: main {n_main}, (2.5, 5, 12) {n_12} (of {len(SHAPES) * 6})")
