"""Sweeps: a grid × seeds as two tidy tables, a row per run and a row per run, method and
interval (the same on a Dask cluster: test_workers.py)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pandas as pd
import pytest

from sim.model import checker, methods
from sim.params import Params
from sim.study import methodrows
from sim.study.sweep import SweepTables, grid, parse_axis, sweep

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
def tables() -> SweepTables:
    points = grid(SMALL, {"zipf_s": [0.5, 1.0]})
    return sweep(points, [1, 2], ("staleness", "cas"), workers=1, progress=False)


@pytest.fixture(scope="module")
def local(tables: SweepTables) -> pd.DataFrame:
    return tables.runs


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


def test_every_column_the_sweep_writes_is_in_the_data_dictionary(tables: SweepTables) -> None:
    from sim.report.columns import described

    columns = [*tables.runs.columns, *tables.methods.columns]
    assert [c for c in columns if not described(c)] == []


def test_a_row_per_run_and_hourly_method_whose_costs_are_the_wide_columns(
    tables: SweepTables,
) -> None:
    m = tables.methods
    hourly = [x.name for x in methods.HOURLY]
    assert list(m.columns) == [*Params().as_dict(), *methodrows.COLUMNS]
    # the CAS run checks nothing; the staleness run's checker runs each hourly method
    assert set(m["experiment"]) == {"staleness"} and set(m["method"]) == set(hourly)
    assert len(m) == len(tables.runs) * len(hourly)
    assert (m["interval_s"] == SMALL.check_interval_s).all()
    assert (m["checks"] == SMALL.n_checks).all()
    by = m.set_index(["zipf_s", "seed", "method"])
    runs = tables.runs.set_index(["zipf_s", "seed"])
    for method, wide in (("reread", "reread"), ("poll", "poll_method"), ("title_only", "title")):
        assert (by.xs(method, level="method")["calls"] == runs[f"{wide}_calls"]).all()
        assert (by.xs(method, level="method")["result_chars"] == runs[f"{wide}_chars"]).all()
    # an exact method notices every change at a check; the title-only search misses some
    exact = m[m["method"].isin([x.name for x in methods.HOURLY if x.exact])]
    assert (exact["never"] == 0).all() and (exact["changed"] > 0).all()
    assert (m[m["method"] == "title_only"]["never"] > 0).any()
    assert (m["unnoticed_s"] > 0).all() and (m["unnoticed_s"] <= m["held_s"]).all()


def test_a_method_added_to_the_registry_adds_rows_not_columns(
    tables: SweepTables, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A method added to the registry shows up in the sweep with no edit to the metrics or
    the sweep: its rows, with the columns every method has."""
    again = methods.Method(
        "reread_again", "re-read again", "#000000",
        exact=True, hourly=True, swept=False, stateless=True, make=methods.Reread,
    )  # fmt: skip
    hourly = (*methods.HOURLY, again)
    monkeypatch.setattr(methods, "HOURLY", hourly)
    monkeypatch.setattr(checker, "HOURLY", hourly)
    points = grid(SMALL, {"zipf_s": [0.5]})
    more = sweep(points, [1], ("staleness", "cas"), workers=1, progress=False)
    m = more.methods.set_index("method")
    assert list(more.methods.columns) == list(tables.methods.columns)
    assert "reread_again" in m.index and len(m) == len(hourly)
    assert m.loc["reread_again", "calls"] == m.loc["reread", "calls"] > 0
    assert m.loc["reread_again", "unnoticed_s"] == m.loc["reread", "unnoticed_s"]
    assert list(more.runs.columns) == list(tables.runs.columns)


def test_the_cas_runs_alone_give_the_method_table_its_header() -> None:
    alone = sweep([SMALL], [1], ("cas",), workers=1, progress=False)
    assert alone.methods.empty
    assert list(alone.methods.columns) == [*Params().as_dict(), *methodrows.COLUMNS]


def test_the_command_writes_both_tables_and_refuses_one_file_for_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sim.__main__ import main

    small = ["n_articles=60", "n_questions=20", "n_saves=40", "--seeds", "1", "--workers", "1"]
    out = tmp_path / "grid.csv"
    same = [*small, "--out", str(out), "--methods-out", str(out)]
    with pytest.raises(SystemExit) as refused:
        main(["sweep", *same])
    err = capsys.readouterr().err
    assert refused.value.code == 2 and "--methods-out" in err and "Traceback" not in err
    assert not out.exists()
    assert main(["sweep", *small, "--experiments", "staleness", "--out", str(out)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"wrote 1 runs to {out}"
    beside = tmp_path / "grid_methods.csv"
    assert err[-2] == f"wrote {len(methods.HOURLY)} method rows to {beside}"
    rows = pd.read_csv(beside)
    assert sorted(rows["method"]) == sorted(m.name for m in methods.HOURLY)
