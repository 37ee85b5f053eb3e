"""A subset of the readings gives its rows in the whole set's order: the regression test's
sampled rerun (and a quick run's eight readings) compare or join them with committed rows
made on every reading, whose runs come group by group (the CAS-only readings first)."""

from __future__ import annotations

from sim.params import Params
from sim.study import readings
from sim.study.experiments import run_requests

KEYS = [("unpublished_save", "republish"), ("agent_edit_targets", "distinct_articles")]
"""A reading of every run (staleness, control, CAS) named before a CAS-only one: alone, its
group comes first; in the whole set the CAS-only group does."""


def test_a_subset_of_readings_comes_in_the_whole_set_s_order() -> None:
    requests = readings.sensitivity_requests(Params(), [1], KEYS)
    runs = [r for _, r in sorted(run_requests(requests, 1, False))]
    rows = readings.sensitivity_rows(Params(), runs, KEYS)
    assert list(zip(rows["choice"], rows["reading"], strict=True)) == KEYS[::-1]
    assert rows.equals(readings.ordered(Params(), rows))
