"""The sequential seed rule: its batches, and the committed rows following it.

Replaying the rule's decisions on the committed rows (each look sees the rows a unit had
then) must give exactly the seeds each reading and arm has: a unit grew where, and only
where, the rule kept it open.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sim.report import sensitivity
from sim.results import seedrows
from sim.study import readings, realshape, realshape_seeds
from sim.study.metrics import joined
from sim.study.seedrule import SeedRule

ROWS = seedrows.read(Path(__file__).resolve().parents[1] / "results" / "seeds")


def test_batches_run_to_the_cap_and_no_further() -> None:
    rule = SeedRule(60)
    assert rule.cap == 300
    assert rule.next_batch(60) == list(range(61, 121))
    assert rule.next_batch(270) == list(range(271, 301))
    assert rule.next_batch(300) == []
    assert SeedRule(11, 3).next_batch(22) == list(range(23, 34))
    with pytest.raises(ValueError, match="first and looks"):
        SeedRule(0)


def _seeds(rows: pd.DataFrame, by: list[str]) -> dict[tuple, int]:
    return {k: int(v) for k, v in rows.groupby(by, sort=False)["seed"].max().items()}


def test_every_reading_ran_the_seeds_the_rule_gives_it() -> None:
    rows = ROWS["sensitivity"]
    headline = joined([ROWS["staleness_headline"], ROWS["cas_headline"]])
    got = _seeds(rows, ["choice", "reading"])
    rule = SeedRule(readings.SEEDS)
    want = {k: rule.first for k in got}
    done = rule.first
    while batch := rule.next_batch(done):
        for key in sensitivity.open_readings(_as_left(rows, want), headline):
            cap = sensitivity.paired_cap(key, headline)  # once a reading, not once a seed
            if cut := [s for s in batch if s <= cap]:
                want[key] = cut[-1]
        if max(want.values()) <= done:
            break
        done = max(want.values())
    assert got == want


def _as_left(rows: pd.DataFrame, seeds: dict[tuple, int]) -> pd.DataFrame:
    """Each reading's rows up to the seeds the rule has given it so far."""
    keys = zip(rows["choice"], rows["reading"], strict=True)
    return rows[[s <= seeds[k] for k, s in zip(keys, rows["seed"], strict=True)]]


def test_every_arm_of_the_panel_ran_the_seeds_the_rule_gives_it() -> None:
    rows = ROWS["realshape"]
    got = _seeds(rows, ["log", "arm"])
    rule = SeedRule(realshape.SEEDS, realshape_seeds.HEADLINE_LOOKS)
    want = {k: rule.first for k in got}
    done = rule.first
    while batch := rule.next_batch(done):
        keys = zip(rows["log"], rows["arm"], strict=True)
        opened = realshape_seeds.open_arms(
            rows[[s <= want[k] for k, s in zip(keys, rows["seed"], strict=True)]], rule.first
        )
        for log, arms in opened.items():
            for arm in realshape_seeds.with_references(arms):
                want[(log, arm.name)] = batch[-1]
        if not opened:
            break
        done = batch[-1]
    assert got == want


def test_a_reading_on_one_seed_stays_open() -> None:
    """One seed has no spread, so its 'interval' is a point: the rule must not read it as
    settled (a quick run's readings start on one seed and look once more). On the committed
    rows' first seed every reading is open; on their first two, only those whose intervals
    are still wide, as the whole rule decides."""
    rows = ROWS["sensitivity"]
    headline = joined([ROWS["staleness_headline"], ROWS["cas_headline"]])
    every = list(dict.fromkeys(zip(rows["choice"], rows["reading"], strict=True)))
    assert sensitivity.open_readings(rows[rows["seed"] == 1], headline) == every
    two = sensitivity.open_readings(rows[rows["seed"] <= 2], headline)
    assert two and set(two) < set(every)
