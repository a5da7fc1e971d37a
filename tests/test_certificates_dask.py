"""Gaussian complexity on a Dask LocalCluster: same values as the serial run."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.certificates import gaussian_complexity
from sosproj.sets import Box, Spectraplex

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.dask


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_dask_client_matches_serial(client):
    S = Spectraplex(1.0, n=4)
    serial = gaussian_complexity(S, trials=30, rng=21)
    dist = gaussian_complexity(S, trials=30, rng=21, scheduler=client, n_jobs=2)
    np.testing.assert_array_equal(serial.values, dist.values)
    assert dist.info["backend"] == "dask"


def test_dask_scheduler_address(client):
    addr = client.scheduler.address
    est = gaussian_complexity(Box(-1, 1), shape=(4,), trials=12, rng=2, scheduler=addr)
    ref = gaussian_complexity(Box(-1, 1), shape=(4,), trials=12, rng=2)
    np.testing.assert_array_equal(est.values, ref.values)


def test_unpicklable_set_gets_a_clear_error(client):
    from sosproj.errors import InputTypeError
    from sosproj.poly import MomentRelaxation, unit_ball
    from sosproj.sets.pseudo_moment import PseudoMomentSet

    R = MomentRelaxation(unit_ball(2), 2)
    S = PseudoMomentSet(R, 2, solver="scs")
    S.support(np.eye(2))  # builds and caches an SCS workspace (a C object) inside the set
    with pytest.raises(InputTypeError, match="worker processes"):
        gaussian_complexity(S, trials=4, rng=0, scheduler=client)
    # the default solver on this relaxation is sosproj's ADMM: plain numpy state, it pickles
    S_auto = PseudoMomentSet(R, 2)
    S_auto.support(np.eye(2))
    est = gaussian_complexity(S_auto, trials=4, rng=0, scheduler=client)
    assert est.trials == 4
