"""Sweeps: a grid × seeds as one tidy table (the same on a Dask cluster: test_workers.py)."""

from __future__ import annotations

from dataclasses import fields

import pandas as pd
import pytest

from sim.params import Params
from sim.study.sweep import grid, parse_axis, sweep

SMALL = Params(n_articles=60, n_questions=20, n_saves=40)


def test_parse_axis_takes_the_fields_type() -> None:
    assert parse_axis("zipf_s=0,0.5") == ("zipf_s", [0.0, 0.5])
    assert parse_axis("n_saves=10,20") == ("n_saves", [10, 20])
    assert parse_axis("save_popularity=zipf,even") == ("save_popularity", ["zipf", "even"])
    assert parse_axis("run_checker=true,false") == ("run_checker", [True, False])
    for bad in ("zipf=0.5", "zipf_s", "edit_delays_s=5,10"):
        with pytest.raises(ValueError, match="grid axis"):
            parse_axis(bad)


def test_grid_is_the_product_and_each_point_is_validated() -> None:
    points = grid(SMALL, {"zipf_s": [0.0, 0.9], "n_saves": [10, 20, 30]})
    assert len(points) == 6 and {(p.zipf_s, p.n_saves) for p in points} == {
        (s, n) for s in (0.0, 0.9) for n in (10, 20, 30)
    }
    with pytest.raises(ValueError, match=r"Params\.zipf_s"):
        grid(SMALL, {"zipf_s": [-1.0]})


@pytest.fixture(scope="module")
def local() -> pd.DataFrame:
    points = grid(SMALL, {"zipf_s": [0.5, 1.0]})
    return sweep(points, [1, 2], ("staleness", "cas"), workers=1, progress=False)


def test_one_row_per_run_with_every_parameter(local: pd.DataFrame) -> None:
    assert len(local) == 4
    assert {f.name for f in fields(Params)} <= set(local.columns)
    assert {"seed", "zipf_stale_share", "cas_reject_share", "reread_calls"} <= set(local.columns)
    assert local[["zipf_s", "seed"]].drop_duplicates().shape[0] == 4
    # point by point, then seed by seed, however the runs were ordered to share openings
    assert list(zip(local["zipf_s"], local["seed"], strict=True)) == [
        (0.5, 1),
        (0.5, 2),
        (1.0, 1),
        (1.0, 2),
    ]


def test_every_column_the_sweep_writes_is_in_the_data_dictionary(local: pd.DataFrame) -> None:
    from sim.report.columns import described

    assert [c for c in local.columns if not described(c)] == []
