"""Every column of every CSV in results/ (and seeds/) and every key of its JSON files is
described in the data dictionary, and results/DATA.md is the dictionary of those files."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from sim.report.columns import JSON_KEYS, data_dictionary, describe, described
from sim.results import figtable

RESULTS = Path(__file__).resolve().parents[1] / "results"
CSVS = sorted([*RESULTS.glob("*.csv"), *(RESULTS / "seeds").glob("*.csv")])


@pytest.mark.parametrize("path", CSVS, ids=[p.relative_to(RESULTS).as_posix() for p in CSVS])
def test_every_written_column_is_described(path: Path) -> None:
    columns = list(pd.read_csv(path, nrows=0).columns)
    assert [c for c in columns if not described(c)] == []


def test_every_json_key_is_described() -> None:
    written = {p.name for p in RESULTS.glob("*.json")} - {"bench.json"}  # bench: results/SPEED.md
    assert written <= set(JSON_KEYS), written - set(JSON_KEYS)
    for name, keys in JSON_KEYS.items():
        assert set(json.loads((RESULTS / name).read_text())) <= set(keys), name


def test_an_unknown_column_is_not_described() -> None:
    assert describe("zipf_made_up_column") is None
    assert describe("cas_reject_share_3600s") is not None


def test_the_committed_dictionary_is_the_generated_one() -> None:
    assert (RESULTS / "DATA.md").read_text() == data_dictionary(RESULTS, figtable.rows())
