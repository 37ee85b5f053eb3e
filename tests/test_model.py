"""The simulated day: determinism, independent streams, real tool traces, the write-up's
qualitative claims, and a live ground-truth assertion."""

from __future__ import annotations

import itertools
from dataclasses import asdict, replace

import pandas as pd
import pytest

from sim.kb.store import KBStore
from sim.kb.versions import format_version
from sim.model import methods
from sim.model.checker import GroundTruthMismatch
from sim.model.day import DAY_START_US, KB_ID, DayResult, run_day
from sim.model.opening import Opening
from sim.model.oracle import GroundTruthOracle
from sim.params import Params
from sim.study.experiments import experiment_params, run_points, run_study
from tests.conftest import KB, ManualClock

BASE = Params()


@pytest.fixture(scope="module")
def day() -> DayResult:
    return run_day(BASE, 7)


@pytest.fixture(scope="module")
def cas_day() -> DayResult:
    """Seed 7's day with the agent's CAS edits, on its own opening."""
    return run_day(experiment_params(BASE, "cas"), 7)


def _calls(result: DayResult) -> list[dict]:
    return [{k: v for k, v in asdict(c).items() if k != "wall_us"} for c in result.calls]


def test_same_seed_same_records(day: DayResult) -> None:
    again = run_day(BASE, 7)
    for name in ("citations", "checks", "saves"):
        assert getattr(again, name) == getattr(day, name)
    assert again.day == day.day
    assert _calls(again) == _calls(day)


def test_a_shared_opening_gives_the_same_day_as_its_own(day: DayResult, cas_day: DayResult) -> None:
    opening = Opening.build(7, BASE.n_articles)
    for params in (BASE, experiment_params(BASE, "cas")):
        shared = run_day(params, 7, opening)
        own = day if params is BASE else cas_day
        for name in ("citations", "checks", "edits", "saves"):
            assert getattr(shared, name) == getattr(own, name)
        assert _calls(shared) == _calls(own)
    assert opening.store.head_sequence(KB_ID) == BASE.n_articles, "the opening was written"


def test_an_opening_of_another_seed_or_size_is_refused() -> None:
    opening = Opening.build(7, 50)
    for seed, n in ((8, 50), (7, 60)):
        with pytest.raises(ValueError, match="opening: built for seed 7 with 50 articles"):
            run_day(replace(BASE, n_articles=n), seed, opening)


def test_other_seed_other_day(day: DayResult) -> None:
    assert run_day(BASE, 8).saves != day.saves


def test_agent_edits_do_not_move_a_single_human_save(day: DayResult, cas_day: DayResult) -> None:
    assert cas_day.saves == day.saves
    assert [(c.answer, c.question_article) for c in cas_day.citations if c.slot == 0] == [
        (c.answer, c.question_article) for c in day.citations if c.slot == 0
    ]
    assert len(cas_day.edits) == BASE.n_questions


def test_control_asks_the_same_questions(day: DayResult) -> None:
    control = run_day(experiment_params(BASE, "control"), 7)
    assert [c.question_article for c in control.citations if c.slot == 0] == [
        c.question_article for c in day.citations if c.slot == 0
    ]
    assert {s.t_s for s in control.saves} == {s.t_s for s in day.saves}


def test_every_citation_comes_from_a_logged_read(day: DayResult) -> None:
    reads = {
        (c.article_id, c.t_us)
        for c in day.calls
        if c.client_id == "agent" and c.tool == "read_knowledge_article" and c.outcome == "ok"
    }
    for c in day.citations:
        assert (c.article_id, DAY_START_US + round(c.read_s * 1e6)) in reads
        assert c.version >= format_version(DAY_START_US)


def test_search_ranks_the_question_target_first_while_it_is_published(day: DayResult) -> None:
    unpublished_at = {s.article_id: s.t_s for s in day.saves if s.effect == "unpublish"}
    for c in day.citations:
        if c.slot == 0:
            published = unpublished_at.get(c.question_article, float("inf")) > c.read_s
            assert (c.article_id == c.question_article) == published
    assert all(
        len({c.article_id for c in day.citations if c.answer == a}) == 2
        for a in range(BASE.n_questions)
    )


def test_checks_claims_hold_at_every_check(day: DayResult) -> None:
    checks = pd.DataFrame(day.checks)
    assert len(checks) == (1 + len(methods.HOURLY)) * BASE.n_checks  # the truth, each method
    truth = checks[checks["method"] == "truth"].set_index("check")
    for method in ("reread", "poll"):
        m = checks[checks["method"] == method].set_index("check")
        assert (m["caught"] == truth["flagged"]).all() and (m["false_alarms"] == 0).all()
        assert (m["flagged_gone"] == truth["truth_gone"]).all()
    title = checks[checks["method"] == "title_only"]
    assert (title["caught_body"] == 0).all()
    assert (title["caught_title"] == title["truth_title"]).all()
    assert (title["caught_gone"] == title["truth_gone"]).all()
    poll = checks[checks["method"] == "poll"]
    assert (poll["poll_calls"] == 1).all()
    reread = checks[checks["method"] == "reread"].set_index("check")
    assert (reread["calls"] >= checks[checks["method"] == "poll"].set_index("check")["calls"]).all()


def test_polling_pages_when_an_hour_has_over_100_changes() -> None:
    busy = run_day(replace(BASE, n_saves=1200, n_questions=30), 3)  # 150 saves an hour
    poll = pd.DataFrame(busy.checks).query("method == 'poll'")
    assert poll["poll_calls"].max() > 1
    truth = pd.DataFrame(busy.checks).query("method == 'truth'")
    assert poll["caught"].tolist() == truth["flagged"].tolist()


def test_a_wrong_check_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(methods, "compare", lambda c, v: "fresh")
    with pytest.raises(GroundTruthMismatch, match="disagrees with ground truth"):
        run_day(BASE, 1)


def test_tool_latency_moves_time_but_checks_stay_exact() -> None:
    p = replace(BASE, n_questions=40)  # a third of the questions: every check still runs
    slow, fast = run_day(replace(p, tool_latency_s=2.0), 2), run_day(p, 2)
    assert slow.saves == fast.saves
    assert [c.read_s for c in slow.citations] != [c.read_s for c in fast.citations]
    assert {c.method for c in slow.checks} == {"truth", *(m.name for m in methods.HOURLY)}


def test_cas_claims() -> None:
    edits = run_study(BASE, [1, 2, 3], experiments=("cas",), workers=1, progress=False).edits
    by_delay = edits.groupby("delay_s")["first_outcome"].apply(lambda s: (s == "conflict").mean())
    assert by_delay.loc[5.0] == 0
    assert by_delay.is_monotonic_increasing and by_delay.iloc[-1] > 0.2
    ok = edits[edits["final_outcome"] == "ok"]
    replayed = ok[ok["replayed"]]
    assert replayed["replay_matched"].all() and (replayed["replay_new_events"] == 0).all()
    # only first-try successes are sent again (the write-up's 409 = 600 - 19 - 172)
    assert (ok["replayed"] == (ok["attempts"] == 1)).all()
    conflicts = edits[edits["first_outcome"] == "conflict"]
    assert set(conflicts["conflict_cause"]) <= {"human", "agent"}
    assert (conflicts["final_outcome"] != "gave_up").all()
    # A human-caused rejection always had a human save in its window, and vice versa for ok.
    assert conflicts.query("conflict_cause == 'human'")["human_save_in_window"].all()
    assert not edits.query("first_outcome == 'ok'")["human_save_in_window"].any()


@pytest.mark.deep
def test_results_do_not_depend_on_the_worker_count(deep: bool) -> None:
    """`make check` only: `make test` holds a pool of two workers to one process in
    tests/test_workers.py (the same run_requests, on the staleness and CAS rows reproduce
    commits), and this rerun of it through run_study cost 3 CPU-s more."""
    if not deep:
        pytest.skip("a duplicate of test_workers.py's pool test: make check (--deep)")
    one = run_study(BASE, [4, 5], experiments=("staleness", "cas"), workers=1, progress=False)
    two = run_study(BASE, [4, 5], experiments=("staleness", "cas"), workers=2, progress=False)
    for a, b in zip(one.frames(), two.frames(), strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_a_grid_gives_each_point_what_it_gives_alone() -> None:
    """run_points runs seed by seed and reuses a seed's opening across points. The checker
    only reads; a third of the questions and of the saves still give each day edits,
    conflicts and stale citations to compare (whether a day taken from a grid equals its own
    run is no matter of its size)."""
    quiet = replace(BASE, run_checker=False, n_questions=40, n_saves=100)
    points = [quiet, replace(quiet, zipf_s=0.5, n_saves=70)]
    together = run_points(points, [4, 5], ("staleness", "cas"), workers=1, progress=False)
    for point, frames in zip(points, together, strict=True):
        alone = run_study(point, [4, 5], ("staleness", "cas"), workers=1, progress=False)
        for a, b in zip(frames.frames(), alone.frames(), strict=True):
            pd.testing.assert_frame_equal(a, b)


def test_replays_append_nothing_even_when_calls_take_time() -> None:
    params = replace(experiment_params(BASE, "cas"), tool_latency_s=30.0, replays="every_success")
    cas = run_day(params, 3)
    ok = [e for e in cas.edits if e.final_outcome == "ok"]
    assert ok and all(e.replayed and e.replay_matched and e.replay_new_events == 0 for e in ok)


# -- the open choices: each reading changes what it should, and nothing else ------------
def _rows(records: list) -> list[tuple]:
    return [tuple(getattr(r, f) for f in r.__slots__) for r in records]


def _reads(day: DayResult) -> list[tuple]:
    """The questions asked and when (the agent's own edits may change what it then reads)."""
    return [(c.answer, c.slot, c.question_article, c.read_s) for c in day.citations]


def test_each_reading_changes_only_what_it_should() -> None:
    # the checker only reads; a third of the questions still gives every reading's change
    base = replace(BASE, agent_edits=True, run_checker=False, n_questions=40)
    default = run_day(base, 4)

    def day(**change: object) -> DayResult:
        return run_day(replace(base, **change), 4)

    # agent-side readings leave the humans' day alone
    distinct = day(agent_edit_targets="distinct_articles")
    replays = day(replays="every_success")
    second = day(edited_citation="second")
    for name, other in (("distinct", distinct), ("replays", replays), ("second", second)):
        assert _rows(other.saves) == _rows(default.saves), name
        assert _reads(other) == _reads(default), name
        assert _rows(other.edits) != _rows(default.edits), name
    edited = [e.article_id for e in distinct.edits]
    assert len(edited) == len(set(edited)) < len(default.edits)
    by_answer = {(c.answer, c.slot): c.article_id for c in second.citations}
    assert all(e.article_id == by_answer[(e.answer, 1)] for e in second.edits)
    assert sum(e.replayed for e in replays.edits) > sum(e.replayed for e in default.edits)
    # saves after the day: the day's own saves are untouched, later ones are added
    late = day(humans_after_day_end=True)
    inside = [s for s in late.saves if s.t_s < base.day_s]
    assert _rows(inside) == _rows(default.saves)
    assert len(late.saves) > len(default.saves)
    assert _reads(late) == _reads(default)
    # what a save of an unpublished article does: only such saves differ
    for reading in ("redraw", "republish"):
        other = day(unpublished_save=reading)
        assert [s.t_s for s in other.saves] == [s.t_s for s in default.saves]
        drafts = {i for i, s in enumerate(default.saves) if s.effect == "draft"}
        assert drafts and all(s.effect != "draft" or s.drawn == "unpublish" for s in other.saves)
        first_draft = min(drafts)
        assert _rows(other.saves[:first_draft]) == _rows(default.saves[:first_draft])
    # the day's profile moves times, never who is asked about or saved
    peaks = day(day_profile="two_peaks")
    assert [c.question_article for c in peaks.citations] == [
        c.question_article for c in default.citations
    ]
    assert [s.t_s for s in peaks.saves] != [s.t_s for s in default.saves]
    # spreading the saves
    distinct_saves = day(save_spread="distinct_articles")
    assert len({s.article_id for s in distinct_saves.saves}) == len(distinct_saves.saves)
    even = day(save_spread="even_times")
    gaps = {round(b.t_s - a.t_s, 6) for a, b in itertools.pairwise(even.saves)}
    assert gaps == {round(base.day_s / base.n_saves, 6)}
    assert [c.question_article for c in even.citations] == [
        c.question_article for c in default.citations
    ]


def test_the_oracle_judges_each_citation_as_if_alone(store: KBStore, clock: ManualClock) -> None:
    """statuses reads each article once for the whole list: every citation gets the status
    it gets judged alone, repeated articles and all (body and title changes, a gone one)."""
    oracle = GroundTruthOracle(store, KB)
    before = {a: store.article_state(KB, a) for a in ("a1", "a2", "a3")}
    clock.advance(1)
    store.save(KB, "a1", "A new body.")
    store.save(KB, "a2", before["a2"].content, title="A new title")
    store.set_published(KB, "a3", False)
    now = format_version(store.article_state(KB, "a1").updated_us)
    cited = [(a, format_version(before[a].updated_us), before[a].title) for a in before]
    cited = [cited[0], (cited[0][0], now, cited[0][2]), cited[1], cited[1], cited[2], cited[0]]
    judged = oracle.statuses(cited)
    assert judged == [oracle.statuses([c])[0] for c in cited]
    assert judged == [
        ("stale", "body"),
        ("fresh", ""),
        ("stale", "title"),
        ("stale", "title"),
        ("gone", "gone"),
        ("stale", "body"),
    ]
