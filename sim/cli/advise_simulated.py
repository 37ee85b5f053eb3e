"""`python -m sim advise --edit-log / --edit-shape / --db`: advice by simulation
(sim/advise/db.py), with the edit log's own stale share by age when there is a log."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.advise import Costs
    from sim.params import Params

TIME_LIMIT_STATUS = 3
"""advise's exit status where --max-seconds stopped the days: nothing was decided."""


def simulated(adv: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """advise --edit-log / --edit-shape / --db: simulated advice from a real edit process
    (and with --db on a real KB), run to the precision asked for; a run stopped by
    --max-seconds prints why on one line and exits TIME_LIMIT_STATUS, with no advice."""
    import sys

    from sim.advise.sampled import TimeLimit

    try:
        return _simulated(adv, args)
    except TimeLimit as e:
        print(f"{adv.prog}: {e}", file=sys.stderr)
        return TIME_LIMIT_STATUS


def _simulated(adv: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    import json
    import time

    started = time.monotonic()
    from sim.advise import Costs
    from sim.advise import calibrated as ac
    from sim.advise import db as advise_db
    from sim.advise.sampled import Precision
    from sim.params import Params

    want = Precision(args.half_width, args.min_changed, args.max_days, args.max_seconds, started)
    costs = Costs(args.cost_per_call, args.cost_per_1k_chars, args.chars_per_token)
    target = args.max_unnoticed_min
    if args.db is not None:
        try:
            base = Params(
                n_questions=args.questions_per_day,
                day_s=args.day_hours * 3600,
                zipf_s=args.zipf,
                citations_per_answer=args.citations_per_answer,
            )
            params, shape, note = advise_db.db_inputs(
                args.db, base, args.queries, args.saves_per_day, args.edit_log, args.edit_shape
            )
            from sim.advise import tracedays
            from sim.importer.paths import default_edit_log

            days_from = tracedays.choose(
                args.days_from,
                args.db,
                args.edit_log or default_edit_log(args.db),
                args.edit_shape is not None,
                args.saves_per_day,
            )
        except ValueError as e:
            adv.error(str(e))
        from sim.advise.agent import Agent

        habit_flags = ("edit_delays", "reread_before_edit", "edit_targets", "edit_share")
        given = tuple(getattr(args, flag) for flag in habit_flags)
        writeup = tuple(adv.get_default(flag) for flag in habit_flags)
        cites = adv.get_default("citations_per_answer")
        hold_s = float("inf") if args.hold_hours is None else args.hold_hours * 3600
        habits = None
        if args.call_log is not None:
            from sim.advise import calllog as advise_calllog

            if given != writeup or args.citations_per_answer != cites:
                adv.error(
                    "--call-log: not with --citations-per-answer, --edit-delays, "
                    "--reread-before-edit, --edit-targets or --edit-share (the log's habits "
                    "are used; --hold-hours is not in a log and may be given)"
                )
            try:
                habits = advise_calllog.habits(args.call_log)
            except ValueError as e:
                adv.error(str(e))
            per_day = habits.questions_per_day.mean
            params = replace(params, n_questions=max(1, round(per_day)))
        agent = (
            habits.agent(hold_s)
            if habits is not None
            else Agent(
                args.citations_per_answer,
                args.edit_delays,
                args.reread_before_edit == "yes",
                args.edit_targets,
                "the write-up's agent"
                if given == writeup
                and args.citations_per_answer == cites
                and args.hold_hours is None
                else "the agent the flags describe",
                edit_share=args.edit_share,
                hold_s=hold_s,
            )
        )
        text, out = advise_db.db_advice(
            params,
            shape,
            costs,
            target,
            want,
            args.workers,
            args.simulate,
            args.saves_per_day,
            agent,
            habits,
            days_from,
        )
        text = text.replace("\n", f"\n{note}\n", 1) if note else text
        if args.edit_shape is None:
            from sim.importer.paths import default_edit_log

            log = args.edit_log or default_edit_log(args.db)
            text, out = _with_log(text, out, log)
            text, out = _with_backtest(text, out, log, params, costs, target)
        print(json.dumps(out, indent=2) if args.json else text)
        return 0
    try:
        shape = ac.shape_from(args.edit_log, args.edit_shape)
        params = Params(
            n_articles=shape.log_articles if args.articles is None else args.articles,
            n_questions=args.questions_per_day,
            day_s=args.day_hours * 3600,
            zipf_s=args.zipf,
            citations_per_answer=args.citations_per_answer,
        )
        if args.saves_per_day is None:  # the log's volume, a mean: Poisson counts beside it
            params = replace(params, n_saves=ac.log_volume(params, shape), arrivals="poisson")
        else:
            params = replace(params, n_saves=args.saves_per_day)
        log_days = None
        if args.edit_log is not None and args.edit_shape is None:
            from sim.advise import tracedays

            log_days = tracedays.choose_log(
                args.days_from, args.edit_log, args.articles, args.saves_per_day
            )
        elif args.days_from is not None:
            raise ValueError(
                "--days-from: not with --edit-shape (a fitted shape has no history to "
                "replay); give --edit-log LOG instead"
            )
    except ValueError as e:  # LogError too
        adv.error(str(e))
    text, out = advise_db.edit_log_advice(
        params, shape, costs, target, want, args.workers, args.simulate, log_days
    )
    if args.edit_log is not None:
        text, out = _with_log(text, out, args.edit_log)
        text, out = _with_backtest(text, out, args.edit_log, params, costs, target)
    print(json.dumps(out, indent=2) if args.json else text)
    return 0


def _with_log(text: str, out: dict[str, Any], log: Path) -> tuple[str, dict[str, Any]]:
    """The advice with the edit log's own stale share by age (as § 7 measures the shared
    logs), when there is a log."""
    if not log.exists():
        return text, out
    from sim.atlas import place
    from sim.studymap import yourlog

    lines, rows = yourlog.lines_for(log)
    if not rows:
        return f"{text}\n{lines}", out | {"stale_by_age_from_log": rows}
    return f"{text}\n{lines}\n{place.line(rows)}", out | {
        "stale_by_age_from_log": rows,
        "atlas_percentiles": place.placement(rows),
    }


def _with_backtest(
    text: str, out: dict[str, Any], log: Path, params: Params, costs: Costs, target: float
) -> tuple[str, dict[str, Any]]:
    """The advice's backtest (``sim.advise.backtest``): the closed forms' pick from the
    log up to a year before its end, replayed on its last year; where the log is too short,
    why not."""
    if not log.exists():
        return text, out
    from sim.advise import backtest
    from sim.calibrate.logs import read_log

    try:
        b = backtest.backtest(read_log(log), params, costs, target)
    except backtest.NoBacktest as e:
        return f"{text}\nBacktest: not possible here: {e}.", out | {"backtest": None}
    return f"{text}\n{b.line()}", out | {"backtest": b.row()}
