"""The study's rows do not depend on where its days run: one process, a pool of two, or a
Dask cluster of real scheduler and worker processes (`reproduce --scheduler`, and a sweep's
`--scheduler`), one cluster for the module. `make check` holds the whole quick run to the
same on a cluster (test_quick_run.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from sim.params import Params
from sim.results import rowfiles, seedrows
from sim.results.check import local_cluster
from sim.results.plans import run_plans
from sim.study.sweep import grid, sweep

SEEDS = [1, 2]
SMALL = Params(n_articles=120, n_questions=40, n_saves=80)
"""The reproduce plans' days at a third of the write-up's size: every record type and part
they commit, in a third of the CPU (where a day runs cannot move it at any size)."""


def _rows(workers: int, scheduler: str | None = None) -> dict[str, str]:
    plans = [seedrows.BY_NAME[name].plan(SMALL, SEEDS) for name in ("staleness", "cas")]
    got = run_plans(plans, workers, False, scheduler)
    return {part: rowfiles.to_csv(frame) for rows in got for part, frame in rows.items()}


@pytest.fixture(scope="module")
def one_process() -> dict[str, str]:
    return _rows(1)


def test_two_workers_give_the_rows_of_one(one_process: dict[str, str]) -> None:
    assert _rows(2) == one_process


@pytest.fixture(scope="module")
def cluster(deep: bool) -> Iterator[Any]:
    """A local Dask cluster: its workers' start and stop cost about 9 CPU-s, so `make check`
    runs these (--deep), and `make test` holds the worker count (above) and the CPU levels."""
    if not deep:
        pytest.skip("a Dask cluster: make check (pytest --deep -m deep)")
    with local_cluster() as c:
        yield c


@pytest.mark.deep
def test_a_dask_cluster_gives_the_rows_of_one_process(
    one_process: dict[str, str], cluster: Any
) -> None:
    assert _rows(1, cluster.scheduler_address) == one_process
    assert set(one_process) == {
        "staleness_headline",
        "staleness_by_run",
        "staleness_checks",
        "staleness_calls",
        "cas_headline",
        "cas_edits",
        "cas_calls",
    }


@pytest.mark.deep
def test_a_sweep_on_a_dask_cluster_gives_the_table_of_one_process(cluster: Any) -> None:
    points = grid(Params(n_articles=60, n_questions=20, n_saves=40), {"zipf_s": [0.5, 1.0]})
    local = sweep(points, [1, 2], ("staleness", "cas"), workers=1, progress=False)
    remote = sweep(
        points, [1, 2], ("staleness", "cas"), scheduler=cluster.scheduler_address, progress=False
    )
    pd.testing.assert_frame_equal(local.runs, remote.runs)
    pd.testing.assert_frame_equal(local.methods, remote.methods)
