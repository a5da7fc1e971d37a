"""The allocation's mix rule for categorical data follows the reconstruction actually run (issue 14).

``reconstruction="auto"`` runs the LNN projection on categorical data below ``PSD_MIN_SNR`` (and where the
one-hot PSD step is unaffordable), the LNN + one-hot PSD chain from it; ``mix_rule`` must return the rule
fitted for that reconstruction (``"cat-lnn"`` / ``"onehot"``), and the released noise scales must be the
documented function of public quantities.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import sosproj as sp
from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.privacy.spec import Adjacency

ROOT = Path(__file__).resolve().parents[1]


def _data(sizes, m, seed):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, size=m)
    cols = [np.where(z == 0, rng.integers(0, s, size=m), (z + rng.integers(0, 2, size=m)) % s) for s in sizes]
    return Dataset(np.stack(cols, 1), Domain.from_sizes(sizes))


def _documented_t(snr: float) -> float:
    """docs/bench_allocation.md: t = t_max / (1 + (snr/snr_0)^p) / (1 + (snr_lo/snr)^q), t(0) = 0."""
    tmax, c, p, lo, q = mp.AUTO_MIX_CAT_LNN
    return 0.0 if snr <= 0 else tmax / (1 + (snr / c) ** p) / (1 + (lo / snr) ** q)


def test_cat_lnn_rule_is_the_documented_function_continuous_and_unimodal():
    """The rule equals its formula; it is continuous (no jump on a fine grid, t -> 0 as snr -> 0) and
    unimodal: increasing below its maximum, decreasing above (the monotonicity the docs claim)."""
    for x in (0.0, 1e-4, 0.003, 0.02, 0.3, 7.0, 50.0, 1e4):
        assert math.isclose(mp.auto_mix(x, rule="cat-lnn"), _documented_t(x), rel_tol=1e-12, abs_tol=1e-300)
    snrs = np.logspace(-6, 5, 20001)
    t = np.array([mp.auto_mix(x, rule="cat-lnn") for x in snrs])
    assert np.all((t >= 0) & (t <= mp.AUTO_MIX_CAT_LNN[0]))
    assert t[0] < 1e-6 and t[-1] < 1e-3
    assert np.max(np.abs(np.diff(t))) < 0.01                      # no jump on a grid of ratio 1.0013
    top = int(np.argmax(t))
    assert 0 < top < len(t) - 1
    assert np.all(np.diff(t[: top + 1]) >= 0) and np.all(np.diff(t[top:]) <= 0)
    # the high-SNR part is the LNN curve: the categorical fall-off only acts at low SNR
    assert mp.AUTO_MIX_CAT_LNN[:3] == mp.AUTO_MIX
    assert math.isclose(mp.auto_mix(50.0, rule="cat-lnn"), mp.auto_mix(50.0, rule="lnn"), rel_tol=1e-6)


def test_shipped_constants_are_the_committed_fit():
    """AUTO_MIX_CAT_LNN is the fall-off that benchmarks/allocation_fit.py found on the synthetic study
    (committed output), and docs/bench_allocation.md states the same numbers."""
    fit = (ROOT / "benchmarks/results_allocation/fit_lnncat.txt").read_text()
    line = re.search(r"best fall-off on the lnn rule \(.*?\) = (\(.*?\)): mean regret", fit)
    assert line is not None
    assert tuple(float(v) for v in line.group(1).strip("()").split(",")) == mp.AUTO_MIX_CAT_LNN
    doc = (ROOT / "docs/bench_allocation.md").read_text()
    tmax, c, p, lo, q = mp.AUTO_MIX_CAT_LNN
    want = (rf"\frac{{{tmax:g}}}{{1+(\mathrm{{snr}}/{c:g})^{{{p:g}}}}}"
            rf"\cdot\frac{{1}}{{1+({lo:g}/\mathrm{{snr}})^{{{q:g}}}}}")
    assert want in doc


@pytest.mark.parametrize("recon", ["auto", "lnn", "lnn-psd", "blue"])
def test_mix_rule_is_the_rule_of_the_reconstruction_run(recon):
    lay = ResidualLayout((2, 3, 4, 5), all_k_way(4, 3))
    assert mp.onehot_psd(lay)
    for snr in (1e-3, 0.5, mp.PSD_MIN_SNR * (1 - 1e-9), mp.PSD_MIN_SNR, 1e3):
        want = {"auto": "onehot" if snr >= mp.PSD_MIN_SNR else "cat-lnn", "lnn": "cat-lnn"}.get(recon, "lnn")
        assert mp.mix_rule(lay, recon, snr) == want
    # a pair missing from the workload's closure: "auto" never adds the PSD step, so LNN's rule at every SNR
    gap = ResidualLayout((2, 3, 4), [(0, 1), (1, 2)])
    assert mp.mix_rule(gap, "auto", 1e3) == "cat-lnn"
    if recon == "auto":
        with pytest.raises(InvalidParameterError, match="public SNR"):
            mp.mix_rule(lay, recon)
    # binary data keep their rules: the exact polytope's up to JOINT_AUTO_MAX_N attributes, the cube's above
    assert mp.mix_rule(ResidualLayout((2,) * 6, all_k_way(6, 3)), "auto", 0.01) == "joint"
    assert mp.mix_rule(ResidualLayout((2,) * 6, all_k_way(6, 3)), "joint", 0.01) == "joint"
    n = mp.JOINT_AUTO_MAX_N + 1
    assert mp.mix_rule(ResidualLayout((2,) * n, all_k_way(n, 2)), "auto", 0.01) == "cube"
    assert mp.mix_rule(ResidualLayout((2,) * 6, all_k_way(6, 3)), "lnn", 0.01) == "lnn"


def test_released_rule_matches_the_reconstruction_run():
    """In a release, info["auto_mix_rule"] is "onehot" exactly when the PSD step ran (its diagnostics in
    reconstruction_info), else "cat-lnn"."""
    ds = _data((2, 3, 4), 300, seed=0)
    for eps in (0.05, 0.5, 100.0):
        rel = sp.release_marginals(ds, 2, epsilon=eps, delta=1e-6, rng=1)
        ran_psd = "psd_fallback" in rel.info["reconstruction_info"]
        assert ran_psd is (rel.info["public_snr"] >= mp.PSD_MIN_SNR)
        assert rel.info["auto_mix_rule"] == ("onehot" if ran_psd else "cat-lnn")
        assert rel.info["auto_mix"] == mp.auto_mix(rel.info["public_snr"], rule=rel.info["auto_mix_rule"])


def _documented_scales(sizes, workload, m, eps, delta, t):
    """sigma_A from the module docstring's formulas, computed here from the sizes alone (no library helper
    for the shape): s_A^2 = exp((1-t) log sqrt(p_A/v_A) + t log(1/d_A)) up to a common factor, sigma_0 from
    the exact sensitivity of that shape."""
    lay = ResidualLayout(tuple(sizes), workload)
    out = {}
    for A in lay.residual_sets:
        if not A:
            continue
        d = sum(math.prod(1 / sizes[i] for i in W if i not in A) for W in workload if set(A) <= set(W))
        p = math.prod((sizes[i] - 1) / sizes[i] for i in A)
        v = math.prod(sizes[i] - 1 for i in A) * d
        out[A] = (1 - t) * 0.5 * (math.log(p) - math.log(v)) + t * (-math.log(d))
    mean = float(np.mean(list(out.values())))
    s = {A: math.exp(0.5 * (x - mean)) for A, x in out.items()}
    shape = np.ones(len(lay.residual_sets))
    for i, A in enumerate(lay.residual_sets):
        if A:
            shape[i] = s[A]
    sens = mp.residual_sensitivity(lay, shape, Adjacency.REPLACE_ONE)["sensitivity"]
    sigma0 = gaussian_sigma(eps, delta, sens, "analytic")
    return {A: sigma0 * x for A, x in s.items()}


def test_noise_scales_are_the_documented_function_and_read_no_records(measure_every_set):
    """Low SNR on categorical data: the released noise scales are the documented function of (sizes,
    workload, m, epsilon, delta) with t = the cat-lnn rule, identical for two different datasets with the
    same public parameters."""
    sizes, m, eps, delta = (2, 3, 5, 4), 300, 0.05, 1e-6
    a, b = _data(sizes, m, seed=1), _data(sizes, m, seed=2)
    assert not np.array_equal(a.records, b.records)
    ra = sp.release_marginals(a, 3, epsilon=eps, delta=delta, rng=0)
    rb = sp.release_marginals(b, 3, epsilon=eps, delta=delta, rng=7)
    assert ra.info["noise_scales"] == rb.info["noise_scales"] and ra.spec == rb.spec
    assert ra.info["auto_mix_rule"] == "cat-lnn"
    t = _documented_t(ra.info["public_snr"])
    assert 0 < t < mp.AUTO_MIX_CAT_LNN[0] and ra.info["auto_mix"] == pytest.approx(t, rel=1e-12)
    want = _documented_scales(sizes, all_k_way(4, 3), m, eps, delta, t)
    assert set(want) == set(ra.info["noise_scales"])
    for A, sig in want.items():
        assert ra.info["noise_scales"][A] == pytest.approx(sig, rel=1e-9)
