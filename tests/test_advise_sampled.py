"""The precision loop's statistics and `advise --db` on an imported KB (a small docs site
generated in git here): intervals over days, a choice only when its interval meets the
target, and the imported articles searched and cited.

A test that reads a run's text and its --json calls `advise --db` twice on the same
arguments; the second call takes the advice (text and JSON, which every call computes
both of) of the first's simulated days, not the same days simulated again (see
one_simulation_per_arguments): parsing, the KB's inputs and the printing still run on each.
The edit shape fitted to a KB's log is likewise fitted once per distinct log and handed to
each run that reads that log (the same function of the same rows)."""

from __future__ import annotations

import copy
import json
import math
import pickle
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from sim.__main__ import main
from sim.advise import Costs
from sim.advise import calibrated as advise_calibrated
from sim.advise import db as advise_db
from sim.advise.sampled import MIN_DAYS_CHANGED, Precision, Sample, choice
from sim.advise.text import ci, comparison_lines
from sim.bench.docsrepo import build
from sim.calibrate import fit as calibrate_fit
from sim.importer.corpus import imported
from sim.params import Params
from sim.stats import mean_interval, ratio_interval, share_interval


def test_a_ratio_interval_covers_the_pooled_ratio_and_widens_with_spread() -> None:
    den = np.array([10.0, 12, 8, 11, 9, 10])
    tight = ratio_interval(den * 60, den, MIN_DAYS_CHANGED)
    assert tight.mean == 60 and tight.lo == tight.hi == 60
    noisy = ratio_interval(den * 60 + np.array([50, -40, 30, -20, 10, 0.0]), den)
    assert noisy.lo < noisy.mean < noisy.hi
    assert math.isnan(ratio_interval(np.zeros(3), np.zeros(3)).mean)
    few = ratio_interval(np.array([5.0, 0, 0]), np.array([1.0, 0, 0]), MIN_DAYS_CHANGED)
    assert few.mean == 5 and math.isnan(few.lo)  # one day with a change: no interval
    two = mean_interval(np.array([1.0, 3.0]))
    assert two.mean == 2 and two.hi - two.mean == pytest.approx(12.706 * 1.0, rel=1e-3)


def test_a_periodic_option_is_chosen_only_if_its_upper_end_meets_the_target() -> None:
    table = pd.DataFrame(
        [
            {"method": "poll", "interval_min": 60.0, "unnoticed_hi": 31.0, "cost": 5.0},
            {"method": "poll", "interval_min": 30.0, "unnoticed_hi": 20.0, "cost": 9.0},
            {"method": "push", "interval_min": 0.0, "unnoticed_hi": 0.0, "cost": 50.0},
        ]
    )
    assert choice(table, 30.0)["interval_min"] == 30.0
    assert choice(table, 10.0)["method"] == "push"


@pytest.fixture(scope="module", autouse=True)
def one_simulation_per_arguments() -> Iterator[None]:
    """advise_db.db_advice (the days and the advice built on them) run once per distinct
    arguments in this module (and in test_advise_calllog and test_agent_habits, which import
    it), a copy handed to each call: the text and the JSON of one set of arguments are of one
    computation. The precision's start time is no part of them: it only starts the safety
    stop (--max-seconds, none here), and the days run are counted in days alone.

    The edit shape fitted to a log (``fit_shape``, some 0.2 CPU-s a run, where every run on
    one KB reads the same log) is likewise fitted once per distinct log rows and arguments:
    a deterministic function of them, so each run still gets the shape of its own log."""
    real = advise_db.db_advice
    done: dict[bytes, tuple[str, dict[str, Any]]] = {}

    def once(*args: Any, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        plain = [replace(a, started=0.0) if isinstance(a, Precision) else a for a in args]
        key = pickle.dumps((plain, kwargs))
        if key not in done:
            done[key] = real(*args, **kwargs)
        return copy.deepcopy(done[key])

    real_fit = calibrate_fit.fit_shape
    fitted: dict[bytes, Any] = {}

    def fit_once(*args: Any, **kwargs: Any) -> Any:
        key = pickle.dumps((args, kwargs))
        if key not in fitted:
            fitted[key] = real_fit(*args, **kwargs)
        return copy.deepcopy(fitted[key])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(advise_db, "db_advice", once)
        patch.setattr(calibrate_fit, "fit_shape", fit_once)  # db_inputs imports it at its call
        patch.setattr(advise_calibrated, "fit_shape", fit_once)
        yield


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("site")
    repo = build(root / "docs", 40, commits=400)
    db = root / "kb.sqlite"
    assert main(["import", str(repo), "--db", str(db)]) == 0
    return db


def test_the_imported_corpus_asks_titles_or_the_query_log(kb, tmp_path) -> None:
    specs, _ = imported(str(kb))
    assert len(specs) == 40 and all(s.query == s.title for s in specs)
    assert specs[0].asked[1:] == ("Step 1", "Step 2", "Step 3")  # the headings, in turn
    assert [specs[0].question(n) for n in range(5)] == [*specs[0].asked, specs[0].title]
    queries = tmp_path / "queries.txt"
    queries.write_text(f"\n{specs[3].title.lower()}\n\nno such words zzz\n")
    asked, _ = imported(str(kb), str(queries))
    assert asked[3].asked == (specs[3].title.lower(),)
    assert sum(s.asked != specs[i].asked for i, s in enumerate(asked)) == 1


def test_a_history_past_the_days_start_is_moved_before_it(tmp_path) -> None:
    from sim.kb.store import KBStore
    from sim.model.opening import DAY_START_US, KB_ID

    db = tmp_path / "future.sqlite"
    store = KBStore(lambda: 0, path=str(db))
    late = DAY_START_US + 10**9
    history = [("created", "a", late - 5), ("created", "b", late - 3), ("saved", "a", late)]
    rows = [("a", "A", "text a", True, late), ("b", "B", "text b", True, late - 3)]
    store.import_history(KB_ID, history, rows)
    store.close()
    _, copy = imported(str(db))
    events = copy.all_events(KB_ID)
    assert events[-1].updated_us == DAY_START_US - 1
    assert [e.updated_us - events[0].updated_us for e in events] == [0, 2, 5]
    assert copy.article_state(KB_ID, "a").updated_us == DAY_START_US - 1
    assert KBStore(lambda: 0, path=str(db)).article_state(KB_ID, "a").updated_us == late


def test_advise_db_answers_for_the_imported_kb(kb, capsys) -> None:
    status = main(["advise", "--db", str(kb), "--questions-per-day", "20", "--simulate", "2"])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"Advice for the KB {kb}: 40 published articles.")
    days = next(x for x in lines if x.startswith("Days from: "))
    assert days.startswith("Days from: the KB's own history replayed (--days-from trace)")
    assert "from 97 days of history (97 with saves" in days  # its 400 commits' days
    stale = next(x for x in lines if x.startswith("Citations going stale: "))
    assert "(2 days)" in stale
    assert "(2 days, " in out
    assert "CAS edits rejected" in out and "28800 s " in out
    assert "nan" not in out


def test_advise_db_splits_cas_rejections_by_cause_and_json_agrees_with_text(kb, capsys) -> None:
    args = ["advise", "--db", str(kb), "--questions-per-day", "20", "--simulate", "5"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "a human saved between read and edit" not in text
    decided = next(x for x in text.splitlines() if x.startswith("Decided by"))
    pick = out["pick"]  # the pick the text states, whichever decided
    assert pick["decided_by"] == out["decided_by"] and out["decided_by"] in decided
    every = "on every change" if pick["method"] == "push" else f"every {pick['interval_min']:g} min"
    assert every in decided
    head = next(i for i, x in enumerate(text.splitlines()) if x.startswith("CAS edits rejected"))
    header = text.splitlines()[head + 1]
    for label in ("a human's newer save", "the agent's own other edit", "the article unpublished"):
        assert label in header
    rows = out["cas_by_delay"]
    assert len(rows) == 13
    for row in rows:
        causes = [row[c]["count"] for c in ("human", "agent", "unpublished")]
        assert sum(causes) == row["rejected"]["count"] <= row["edits"]
        for c in ("rejected", "human", "agent", "unpublished"):
            r = row[c]
            assert 0 <= r["lo"] <= r["share"] <= r["hi"] <= 1
            assert r["share"] == pytest.approx(r["count"] / row["edits"])
        line = next(x for x in text.splitlines() if x.strip().startswith(f"{row['delay_s']:g} s "))
        assert f"{100 * row['agent']['share']:.2f} ({100 * row['agent']['lo']:.2f}" in line
    assert sum(r["agent"]["count"] for r in rows) > 0  # the day's agent edits at every delay
    for r in out["rows"]["kb"]:  # no lower end below 0, none printed differently
        assert all(r[k] is None or r[k] >= 0 for k in ("unnoticed_lo", "cost_lo"))
    s = out["stale_share"]
    assert 0 <= s["lo"] <= s["share"] <= s["hi"] <= 1


def test_advise_db_states_every_assumption_with_its_flag(kb, capsys) -> None:
    args = ["advise", "--db", str(kb), "--questions-per-day", "20", "--simulate", "1"]
    assert main([*args, "--day-hours", "6", "--zipf", "1.2", "--chars-per-token", "3"]) == 0
    out = capsys.readouterr().out
    head = out[: out.index("Days stopped")]
    for says in (
        "day: 6 working hours (--day-hours)",
        "20 a day (--questions-per-day)",
        "Zipf s = 1.2",
        "its title and then each of its headings",
        "(--queries FILE)",
        "the write-up's agent",
        "top 2 hits (--citations-per-answer)",
        "no re-read before the edit",
        "tokens at 3 characters a token (--chars-per-token)",
        "30 min or less on average (--max-unnoticed-min)",
        "(--saves-per-day; --edit-log, --edit-shape)",
    ):
        assert says in head, says
    cas = out[out.index("CAS edits rejected") :].splitlines()[2:]
    assert cas and all("(not enough days)" in line for line in cas if " s " in line)


def test_advise_db_decides_by_the_closed_forms_when_the_days_cannot(kb, capsys) -> None:
    args = ["advise", "--db", str(kb), "--questions-per-day", "20", "--max-days", "2"]
    assert main([*args, "--chars-per-token", "2"]) == 0
    text = capsys.readouterr().out
    assert main([*args, "--chars-per-token", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decided_by"] == "closed forms"
    c = out["closed_forms"]["choice"]
    assert c["method"] in ("poll", "reread") and c["mean_unnoticed_min"] <= 30 * 0.9
    assert out["closed_forms"]["margin_share"] == 0.1
    assert "Decided by the closed forms (Poisson saves at the same volume" in text
    assert "no periodic option has a simulated interval" in text  # two days: no check
    picked = [x for x in text.splitlines() if x.endswith("<- pick")]
    assert len(picked) == 1 and f"{c['interval_min']:g} min" in picked[0]
    assert f"{c['chars']:,.0f}" in picked[0] and f"{c['chars'] / 2:,.0f}" in picked[0]
    for r in out["closed_forms"]["rows"]:
        assert r["tokens"] == pytest.approx(r["chars"] / 2)


def test_advise_db_decides_by_simulation_where_the_days_suffice(kb, capsys) -> None:
    """Five days, the fewest that give an interval: the pick (poll every 30 min) has its
    unnoticed minutes' upper end at 22.6, inside the 30-min target (17.4 on eight days)."""
    args = ["advise", "--db", str(kb), "--questions-per-day", "30", "--saves-per-day", "200"]
    args += ["--max-days", "5", "--half-width", "30", "--min-changed", "5", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decided_by"] == "simulation", out["stopped"]
    c = out["choices"]["kb"]
    assert c["unnoticed_hi"] <= 30 and c["calls"] > 0 and c["chars"] > 0
    assert c["tokens"] == pytest.approx(c["chars"] / 4)
    checks = out["closed_forms"]["checks"]
    assert checks and all(isinstance(x["inside"], bool) for x in checks)
    assert main(args[:-1]) == 0
    text = capsys.readouterr().out
    assert "Decided by simulation: cheapest way to notice" in text
    picked = [x for x in text.splitlines() if x.endswith("<- pick")]
    assert len(picked) == 1 and f"{c['calls']:,.1f}" in picked[0]
    assert "Checked against simulation where both ran" in text


def _cas(kb, capsys, *flags: str) -> dict:
    """Two days: on this KB 7 edits at delays of 1 h or more are rejected by the agent's own
    other edit, none at 5 s against 75 % at 1 h, 22 edits to distinct articles against 80,
    415 re-read calls a day citing one hit against 964 citing three: each comparison below
    holds with a wide margin."""
    args = ["advise", "--db", str(kb), "--questions-per-day", "40", "--simulate", "2"]
    assert main([*args, *flags, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_agents_habits_from_flags_change_the_cas_figures_as_they_should(kb, capsys) -> None:
    base = _cas(kb, capsys)
    assert base["agent"]["source"] == "the write-up's agent"
    assert len(base["cas_by_delay"]) == 13
    late = [r for r in base["cas_by_delay"] if r["delay_s"] >= 3600]
    assert sum(r["agent"]["count"] for r in late) > 0  # its own other edits, at long delays
    mine = _cas(kb, capsys, "--edit-delays", "5,3600")
    assert mine["agent"]["source"] == "the agent the flags describe"
    assert [r["delay_s"] for r in mine["cas_by_delay"]] == [5.0, 3600.0]
    fast, slow = mine["cas_by_delay"]
    assert fast["rejected"]["share"] < slow["rejected"]["share"]
    reread = _cas(kb, capsys, "--reread-before-edit", "yes")
    assert [r["delay_s"] for r in reread["cas_by_delay"]] == [0.0]
    assert reread["cas_by_delay"][0]["rejected"]["count"] == 0
    distinct = _cas(kb, capsys, "--edit-targets", "distinct_articles")
    assert sum(r["agent"]["count"] for r in distinct["cas_by_delay"]) == 0
    edits = sum(r["edits"] for r in distinct["cas_by_delay"])
    assert edits < sum(r["edits"] for r in base["cas_by_delay"])


def test_more_citations_an_answer_cost_more_and_are_said(kb, capsys) -> None:
    one, three = (_cas(kb, capsys, "--citations-per-answer", n) for n in ("1", "3"))
    assert (one["agent"]["citations_per_answer"], three["agent"]["citations_per_answer"]) == (1, 3)
    assert any("top 3 hits (--citations-per-answer)" in x for x in three["assumptions"])

    def reread_calls(out: dict) -> float:
        return next(r["calls"] for r in out["rows"]["kb"] if r["method"] == "reread")

    assert reread_calls(three) > reread_calls(one)


def test_agent_flags_without_a_kb_are_refused(capsys) -> None:
    for flags in (["--edit-delays", "5"], ["--reread-before-edit", "yes"]):
        with pytest.raises(SystemExit):
            main(["advise", *flags])
        assert "only with --db" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["advise", "--db", "x.sqlite", "--edit-delays", "5,-1"])
    assert "expected 1 to 100 delays in seconds" in capsys.readouterr().err


def test_a_share_interval_stays_in_0_1_and_a_zero_share_keeps_an_upper_end() -> None:
    edits = np.array([20.0, 25, 18, 22, 30])
    none = share_interval(np.zeros(5), edits)
    assert none.mean == 0 == none.lo < none.hi < 0.2
    every = share_interval(edits, edits)
    assert every.hi == 1 and 0.8 < every.lo < 1
    even = np.array([2.0, 3, 2, 2, 3])
    lumpy = np.array([12.0, 0, 0, 0, 0])  # the same count, on one day
    a, b = share_interval(even, edits), share_interval(lumpy, edits)
    assert a.mean == b.mean and b.hi - b.lo > a.hi - a.lo  # a clustered day widens it
    assert b.lo >= 0 and b.hi <= 1
    assert math.isnan(share_interval(np.array([1.0]), np.array([4.0])).lo)  # one day: none


def test_no_interval_of_no_width_is_printed() -> None:
    assert ci(11.11, 11.11, 11.11, ".2f") == "11.11 (not enough days for an interval)"
    assert "not enough days" in ci(3.0, math.nan, math.nan, ".1f")
    assert ci(17.2, 17.1, 17.3, ",.0f") == "17 (95 % CI ±0.1)"
    assert ci(17.0, 15.0, 19.0, ",.0f") == "17 (95 % CI 15 to 19)"


def test_advise_db_refuses_what_is_not_an_imported_kb(tmp_path, capsys) -> None:
    for args, says in (
        (["--db", str(tmp_path / "none.sqlite")], "no such file"),
        (["--queries", str(tmp_path / "q.txt")], "--queries: only with --db"),
        (["--db", str(tmp_path / "x.sqlite"), "--articles", "5"], "--articles: not with --db"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(["advise", *args])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and says in err and len(err.strip().splitlines()) == 1


def _sample(unnoticed_min: dict[float, float], spread: float) -> Sample:
    """Six days of poll at 30 and 60 min and push: 10 changed citations a day."""
    rng = np.random.default_rng(1)
    rows = []
    for seed in range(1, 7):
        for method, interval_s, calls in (
            ("poll", 1800.0, 40),
            ("poll", 3600.0, 20),
            ("push", 0.0, 300),
        ):
            mean = unnoticed_min.get(interval_s, 0.0)
            rows.append(
                {
                    "seed": seed,
                    "method": method,
                    "interval_s": interval_s,
                    "calls": calls + rng.normal(0, 1),
                    "notifications": 0.0,
                    "result_chars": 0.0,
                    "changed": 10.0,
                    "unnoticed_s": 600 * (mean + rng.normal(0, spread)),
                }
            )
    return Sample(Params(), rows=[pd.DataFrame(rows)])


def test_differing_choices_say_by_how_much_and_whether_beyond_noise() -> None:
    costs = Costs(1.0, 0.1)
    samples = {
        "calibrated": _sample({1800.0: 20.0, 3600.0: 45.0}, 1.0),  # 60 min misses 30
        "Poisson": _sample({1800.0: 15.0, 3600.0: 25.0}, 1.0),  # 60 min meets it
    }
    lines = comparison_lines(samples, costs, 30.0, "calibrated", "Poisson")
    assert lines[0].startswith("The choices differ: poll (cursor kept), every 30 min (calibrated)")
    assert "every 60 min (Poisson)" in lines[0]
    assert "it misses the target beyond noise" in lines[1]
    assert lines[2].startswith(
        "Its cost a day minus the calibrated choice's, on the same 6 days: -20"
    )
    assert "(beyond noise; below 0, it is cheaper)" in lines[2]
    same = comparison_lines(
        {"calibrated": samples["calibrated"], "Poisson": samples["calibrated"]},
        costs,
        30.0,
        "calibrated",
        "Poisson",
    )
    assert same == ["The two processes lead to the same choice."]


def test_a_wide_choice_says_the_days_it_needs_and_every_poll_interval_is_shown() -> None:
    from sim.advise.sampled import options
    from sim.advise.text import needed_lines, periodic_line

    sample = _sample({1800.0: 20.0, 3600.0: 45.0}, 8.0)  # 60 changed; 30 min is ±8.6 min
    [line] = needed_lines({"calibrated": sample}, Precision(), 30.0, Costs())
    assert line.startswith("The calibrated process: its choice's interval is wider than the ±5")
    assert "about 18 days would narrow it so" in line
    assert needed_lines({"calibrated": sample}, Precision(half_width_min=10.0), 30.0, Costs()) == []
    shown = periodic_line(options(sample, Costs()))
    assert "30 min: 17.3 (8.7–25.9) min, cost 40; 60 min: 46.2 (36.7–55.8) min, cost 20." in shown


def test_no_interval_is_shown_from_fewer_days_than_it_needs() -> None:
    """Two days that agree (1 of 9 CAS edits rejected on each) once printed "11.11 to 11.11":
    below MIN_DAYS_CHANGED days the share is shown with "not enough days", from them on with
    its interval."""
    from sim.advise.shares import share_ci

    for days in range(2, MIN_DAYS_CHANGED):
        r = ratio_interval(np.ones(days), np.full(days, 9.0))
        shown = share_ci(r, 100.0, ".2f")
        assert shown == f"11.11 (not enough days for an interval: {days} of {MIN_DAYS_CHANGED})"
    r = ratio_interval(np.array([1.0, 2, 1, 0, 1]), np.full(5, 9.0))
    assert "95 % CI" in share_ci(r, 100.0, ".2f")
