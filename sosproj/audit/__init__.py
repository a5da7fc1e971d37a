"""Empirical privacy audits.

* :mod:`sosproj.audit.blackbox`: the black-box audit, :func:`audit_release`, which samples
  the real release function end to end on adjacent inputs (in parallel with joblib) and
  tests the whole output distribution against the claim;
* :mod:`sosproj.audit.registry`: every shipped mechanism with a worst-case adjacent pair,
  one line each (:data:`MECHANISMS`);
* :mod:`sosproj.audit.controls`: negative controls (zero, uniform, under-scaled,
  understated-sensitivity and grid-snapped noise) that a sound audit must fail;
* :mod:`sosproj.audit.greybox`: the grey-box audit, :func:`audit_mechanism`, of a batched
  model of a mechanism's noisy measurement with a consistency check against the real one.
"""

from sosproj.audit.blackbox import (
    DIRECTIONS,
    PROFILES,
    BlackBoxResult,
    audit_release,
    claimed_mu,
    noise_free_output,
    sample_release,
)
from sosproj.audit.controls import KINDS, NegativeControl, broken_noise
from sosproj.audit.greybox import (
    TESTS,
    AuditResult,
    AuditTarget,
    GaussianMeasurement,
    audit_mechanism,
    clopper_pearson,
    standard_targets,
    under_noised,
)
from sosproj.audit.registry import MECHANISMS, AuditCase, register

__all__ = ["audit_release", "BlackBoxResult", "sample_release", "noise_free_output", "claimed_mu", "PROFILES",
           "DIRECTIONS", "NegativeControl", "broken_noise", "KINDS", "MECHANISMS", "AuditCase",
           "register",
           "audit_mechanism", "AuditResult", "AuditTarget", "GaussianMeasurement", "clopper_pearson",
           "standard_targets", "under_noised", "TESTS"]
