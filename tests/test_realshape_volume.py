"""The real-shape panel's moves ran each log's shape at the write-up's volume, hundreds of
times the logs' own rate: every place that quotes them says so, with the logs' own rates."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from sim.report.realshape_section import volume

RESULTS = Path(__file__).resolve().parents[1] / "results"


def test_every_quoted_panel_move_is_labelled_with_its_volume_and_the_logs_own() -> None:
    report = (RESULTS / "REPORT.md").read_text()
    quoted = re.findall(r"In simulation on the real logs' edit processes[^,]*,[^,]*", report)
    assert len(quoted) == 3
    assert all(
        re.search(r"at the write-up's volume \(\d+ saves in the day on \w+'s shape, \d+ times", q)
        for q in quoted
    ), quoted
    assert "**At the write-up's volume, not the logs' own.**" in report


def test_the_panels_volume_is_its_shaped_arms_saves_against_each_logs_own_rate() -> None:
    table = pd.read_csv(RESULTS / "realshape.csv")
    logs = pd.read_csv(RESULTS / "map_logs.csv").drop_duplicates("log").set_index("log")
    v = volume(table, logs["saves_per_hour"] * 24)
    assert v is not None
    shaped = table[(table["figure"] == "saves") & ~table["arm"].str.startswith("writeup")]
    assert (v["lo"], v["hi"]) == (shaped["mean"].min(), shaped["mean"].max())
    assert 280 < v["lo"] < v["hi"] < 345  # the write-up's 300 in each log's shape
    assert v["times_lo"] > 200  # hundreds of times the logs' own saves a calendar day
    assert volume(table, None) is None
