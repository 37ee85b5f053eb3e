"""Regenerating what a change touched: `make rows EXPERIMENTS="..."` (`reproduce --only`)
rewrites only the named experiments' per-seed rows, and the regression test compares the
columns and check methods the committed rows hold, so a method new to the registry fails
nothing before its rows are made, while a moved committed value still fails."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from sim.results import rowfiles, seedrows
from sim.results.reproduce import rerun_rows
from tests.test_regression import ROWS, _assert_rows_equal

ROOT = Path(__file__).resolve().parents[1]


def _without(part: str, method: str) -> pd.DataFrame:
    """The committed part as it would be had ``method`` not been in the registry when it
    was made: no row of it, nor of the sessions opened for it."""
    rows = ROWS[part]
    keep = pd.Series(True, index=rows.index)
    for column in rowfiles.METHOD_COLUMNS:
        if column in rows:
            named = rows[column].astype(str)
            keep &= ~(named == method) & ~named.str.startswith(f"checker-{method}")
    assert not keep.all(), (part, method)
    return rows[keep]


@pytest.mark.parametrize(
    ("part", "method"),
    [("staleness_checks", "poll"), ("staleness_calls", "reread"), ("exposure", "title_only")],
)
def test_a_method_the_committed_rows_lack_fails_nothing(part: str, method: str) -> None:
    """Fresh rows with a method (and a column) the committed ones were made without."""
    fresh = ROWS[part].assign(new_method_calls=1)
    _assert_rows_equal(fresh, _without(part, method), part, "a method added")


@pytest.mark.parametrize(("part", "column"), [("staleness_checks", "calls"), ("exposure", "never")])
def test_a_moved_value_of_a_committed_method_still_fails(part: str, column: str) -> None:
    want = _without(part, "reread" if part == "exposure" else "title_only")
    fresh = ROWS[part].copy()
    moved = fresh.index[fresh["method"] == "poll"][3]
    fresh.loc[moved, column] += 1
    with pytest.raises(AssertionError):
        _assert_rows_equal(fresh, want, part, "a value moved")


def test_a_committed_column_the_fresh_rows_lack_still_fails() -> None:
    fresh = ROWS["staleness_checks"].drop(columns="articles_reread")
    with pytest.raises(AssertionError, match="articles_reread"):
        _assert_rows_equal(fresh, ROWS["staleness_checks"], "staleness_checks", "a column lost")


def test_rerun_rows_rewrites_only_the_named_experiments_rows(tmp_path: Path) -> None:
    """The CAS runs on seeds 1-5 into a copy of the committed rows: their parts become the
    committed rows of those seeds (the rows are a function of the seed), every other part
    keeps its bytes."""
    folder = tmp_path / "seeds"
    shutil.copytree(ROOT / "results" / "seeds", folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    fresh = rerun_rows(folder, ("cas",), {"cas": 5}, workers=1, progress=False)
    cas = seedrows.BY_NAME["cas"].parts
    assert set(fresh) == set(cas)
    for part in cas:
        committed = ROWS[part]
        written = rowfiles.read_csv(folder / f"{part}.csv")
        _assert_rows_equal(written, committed[committed["seed"] <= 5], part, "cas on 5 seeds")
    after = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert after.keys() == before.keys()
    changed = {name for name in after if after[name] != before[name]}
    assert changed == {f"{part}.csv" for part in cas}
