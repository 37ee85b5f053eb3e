"""The benchmark measures what it says: its replay does the day's KB work, and its search
probe counts matches through the tools. Timings themselves are never asserted."""

from __future__ import annotations

from dataclasses import replace

from sim.bench.replay import RecordingDay, replay
from sim.bench.scaling import scaling
from sim.experiments import experiment_params
from sim.model.opening import Opening
from sim.params import Params

SMALL = replace(Params(), n_articles=60, n_questions=20, n_saves=40)


def test_replay_leaves_the_store_exactly_as_the_day_left_it() -> None:
    for experiment in ("staleness", "cas"):
        opening = Opening.build(3, SMALL.n_articles)
        day = RecordingDay(experiment_params(SMALL, experiment), 3, opening)
        day.run()
        kinds = {name for _, _, name, _, _ in day.ops}
        assert {"search_knowledge_base", "read_knowledge_article", "save"} <= kinds
        _, per_op, store = replay(opening, day.ops)
        assert sum(len(v) for v in per_op.values()) == len(day.ops)
        assert store.snapshot() == day.store.snapshot()


def test_scaling_probe_counts_matches_through_the_tools() -> None:
    (row,) = scaling((1,))
    probe = row["search_probe"]
    assert 0 < probe["matches_per_search"] <= row["articles"]
    assert row["tool_calls"] > 0 and row["kb_database_mib"] > 0
