"""`advise --db kb.sqlite` and `advise --edit-log LOG.csv`: simulated advice for a real KB.

With --db the day runs on the imported KB's own published articles (questions from their
titles, or a query log), the agent searching them with the KB's bm25, and the humans'
saves the KB's history's own, its days replayed where it is long enough, else drawn from
the edit process fitted to it (``tracedays``: the edit log ``import`` wrote beside it;
without one, the write-up's Poisson process at --saves-per-day); the pick is checked on
independent days (``checking``). It
answers for that KB how fast its citations go stale, which method and interval keep a
change unnoticed under the target most cheaply, and how often a compare-and-swap edit is
rejected by the delay between read and edit. With --edit-log the synthetic corpus is
used, on the log's articles, and the log's history replayed (or, where it is too short,
the fitted process) is compared with the write-up's Poisson process at the same volume on
the same days, its pick checked as --db's is. Days are run to a stated precision
(``sim.advise.sampled``); for --edit-log each figure on the days it needs, the days
without a save not simulated (``sim.advise.sparse``). The shares and the CAS table by
cause are worded in ``shares.py``. Some 390 lines: ``db_advice`` states every assumption,
both deciders' picks and the checks between them in one place, in the order the text reads.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from sim import stats
from sim.advise import Costs, checking, sampled, shares, sparse, text
from sim.advise.agent import Agent
from sim.advise.calibrated import log_volume
from sim.advise.calllog import Habits
from sim.advise.closedform_text import _plain
from sim.advise.tracedays import DaysFrom
from sim.calibrate.shape import EditShape
from sim.params import Params
from sim.server.reads import count

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _volume_source(process: Params, shape: EditShape) -> str:
    """Where the day's volume comes from: the log's saves a calendar day over its whole
    span, put into its busiest weekday working window (the hours of the day simulated)."""
    from sim.model.calibrated import day_window

    day, hour = divmod(round(day_window(process) / 3600), 24)
    end = (hour + process.day_s / 3600) % 24
    return (
        f"the log's own volume: {shape.log_saves_per_day:.3g} saves a calendar day over its "
        f"whole span, all its articles, deleted ones too, the {WEEKDAYS[day]} "
        f"{hour:02d}:00–{end:02.0f}:00 UTC window of its profile holding {process.n_saves:.2g}"
    )


def saves_text(n: float) -> str:
    """Saves in the day in words: a whole count, or a quiet KB's fraction of a save."""
    return count(int(n), "save") if float(n).is_integer() else f"{n:.2g} saves"


def _header(params: Params, costs: Costs, target: float, source: str) -> str:
    return (
        f"Advice for {source}: {params.n_articles:,} articles, {saves_text(params.n_saves)} "
        f"(on average) and {params.n_questions:,} questions in a {params.day_s / 3600:g}-hour "
        "day; "
        f"a call costs {costs.per_call:g}, 1,000 characters {costs.per_1k_chars:g}. Target: a "
        f"change to a cited article goes unnoticed {target:g} min or less on average. By "
        "simulation; every figure with its 95 % interval over the days."
    )


def edit_log_advice(
    params: Params,
    shape: EditShape,
    costs: Costs,
    target: float,
    want: sampled.Precision,
    workers: int,
    fixed_days: int = 0,
    days_from: DaysFrom | None = None,
) -> tuple[str, dict[str, Any]]:
    """The log's history replayed (``tracedays``) or the fitted process, against the
    Poisson one at the same volume and days, the pick checked on independent days; text
    and JSON."""
    days_from = DaysFrom("fitted", "no history given") if days_from is None else days_from
    if days_from.trace is not None:
        main, label = "trace", "History replayed"
        first = days_from.process(params)
        poisson = replace(params, n_saves=first.n_saves, arrivals="poisson")
        source = f"the history of {Path(shape.source).name} replayed"
    else:
        main, label = "calibrated", "Calibrated process"
        first = replace(params, save_process="calibrated", edit_shape=shape)
        poisson = params
        source = f"the edit process fitted to {Path(shape.source).name}"
    samples, why = sparse.run_sparse(
        {main: first, "Poisson": poisson},
        costs,
        target,
        want,
        workers,
        fixed_days,
        sampled.progress,
    )
    tables = {n: sampled.options(s, costs) for n, s in samples.items()}
    check = checking.run(first, costs, target, want, workers, samples[main].days)
    strict = checking.strict(tables[main], check)
    pick = sampled.choice(strict, target)
    lines = [
        _header(poisson, costs, target, source),
        days_from.line(),
        f"Stopped because {why}.",
        text.option_line(label, checking.kept(tables[main], strict, target), target),
        text.periodic_line(tables[main]),
        text.option_line(
            "Write-up's Poisson process, same volume and days", tables["Poisson"], target
        ),
        text.periodic_line(tables["Poisson"]),
        *text.comparison_lines(samples, costs, target, main, "Poisson"),
        *checking.lines(pick, tables[main], check, target, True),
        *text.needed_lines(samples, want, target, costs),
    ]
    out = _json(tables, why, target)
    out["choices"][main] = None if pick is None else _plain_row(pick)
    out["days_from"] = {"process": days_from.kind, "why": days_from.why}
    out["checked"] = checking.as_json(pick, check)
    return "\n".join(x for x in lines if x), out


def db_inputs(
    db: Path,
    base: Params,
    queries: Path | None = None,
    saves: int | None = None,
    edit_log: Path | None = None,
    edit_shape: Path | None = None,
) -> tuple[Params, EditShape | None, str]:
    """The day's parameters on an imported KB, the edit shape fitted to its history (the
    edit log beside it, unless another log or a shape is given; None: the KB's log is too
    short to fit, and the note says so); bad input raises ValueError naming it."""
    from sim.advise import calibrated as ac
    from sim.calibrate.fit import fit_shape
    from sim.calibrate.logs import from_rows
    from sim.importer.corpus import event_log_rows
    from sim.importer.paths import default_edit_log

    log = edit_log or default_edit_log(db)
    params = db_params(db, queries, base, saves)
    shape, note = None, ""
    try:
        if edit_shape is not None or log.exists():
            shape = ac.shape_from(None if edit_shape else log, edit_shape)
        else:  # copied or renamed without its log: the KB's own event log
            rows = event_log_rows(str(db))
            note = (
                f"No edit log beside the KB ({log.name}): fitted to the KB's own event log "
                f"({len(rows):,} events; --edit-log LOG to give one)."
            )
            shape = fit_shape(from_rows(rows, f"{db.name} (its event log)"))
    except ValueError as e:  # the log import wrote may be too short to fit
        if edit_log is not None or edit_shape is not None:
            raise
        note = f"The KB's edit log cannot be fitted ({e}); its saves are Poisson."
    return params, shape, note


def advise_for_db(
    db: Path,
    base: Params,
    costs: Costs,
    target: float,
    want: sampled.Precision,
    workers: int = 2,
    fixed_days: int = 0,
    queries: Path | None = None,
    saves: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """`advise --db`'s text and JSON for an imported KB (what the notebook shows)."""
    from sim.advise.tracedays import choose
    from sim.importer.paths import default_edit_log

    params, shape, note = db_inputs(db, base, queries, saves)
    days_from = choose(None, db, default_edit_log(db), False, saves)
    text, out = db_advice(
        params, shape, costs, target, want, workers, fixed_days, saves, days_from=days_from
    )
    return (text.replace("\n", f"\n{note}\n", 1) if note else text), out


def db_params(db: Path, queries: Path | None, params: Params, saves: int | None) -> Params:
    """The day's parameters on the imported KB: its article count and file."""
    from sim.importer.corpus import published_count

    corpus = replace(params, corpus_db=str(db), corpus_queries=str(queries or ""))
    return replace(corpus, n_articles=published_count(str(db), str(queries or "")))


def db_advice(
    params: Params,
    shape: EditShape | None,
    costs: Costs,
    target: float,
    want: sampled.Precision,
    workers: int,
    fixed_days: int = 0,
    saves: int | None = None,
    agent: Agent | None = None,
    habits: Habits | None = None,
    days_from: DaysFrom | None = None,
) -> tuple[str, dict[str, Any]]:
    """The advice for an imported KB: its text and JSON."""
    agent = Agent(params.citations_per_answer) if agent is None else agent
    params = agent.apply(params)
    days_from = DaysFrom("fitted", "no history given") if days_from is None else days_from
    if days_from.trace is not None:
        process = days_from.process(params)
        name = f"the KB's own history replayed ({days_from.trace.source})"
    elif shape is not None:
        fitted = replace(params, save_process="calibrated", edit_shape=shape)
        process = replace(fitted, n_saves=log_volume(params, shape) if saves is None else saves)
        name = f"the edit process fitted to its history ({Path(shape.source).name})"
    else:
        process = replace(params, n_saves=300 if saves is None else saves)
        name = "the write-up's Poisson process (no edit log fitted to its history)"
    if days_from.trace is not None:
        saves_said = f"{saves_text(process.n_saves)} in the day ({days_from.window(process)})"
    else:
        saves_said = (
            f"{saves_text(process.n_saves)} in the day"
            + (
                f" ({_volume_source(process, shape)})"
                if shape is not None and saves is None
                else ""
            )
            + (" (the write-up's 300)" if shape is None and saves is None else "")
        )
    from sim.advise import closed

    cf = closed.closed_forms(process, costs, target)  # a second or so: before the days
    samples, why = sampled.run(
        {"kb": process},
        True,
        costs,
        target,
        want,
        workers,
        fixed_days,
        sampled.progress,
        agent.cas_experiment(),
    )
    s = samples["kb"]
    chosen = sampled.options(s, costs)
    check = checking.run(process, costs, target, want, workers, s.days)
    table = checking.strict(chosen, check)  # what a pick must meet: both intervals under
    stale = pd.concat(s.stale, ignore_index=True)
    enough = sampled.MIN_DAYS_CHANGED  # days an interval needs, in the text and the JSON
    share = stats.share_interval(stale["stale"].to_numpy(), stale["citations"].to_numpy(), enough)
    held = stale.merge(s.exposure.drop_duplicates("seed")[["seed", "held_s"]], on="seed")
    per_hour = stats.ratio_interval(
        held["stale"].to_numpy(float), held["held_s"].to_numpy(float) / 3600, enough
    )
    cas = pd.concat(s.cas, ignore_index=True) if s.cas else pd.DataFrame(columns=["delay_s"])
    by_end = (
        "by its end"
        if math.isinf(agent.hold_s)
        else "when let go (or at the day's end, if held to it)"
    )
    staleness = (
        "No question found a published article, so nothing was cited."
        if stale.empty
        else "Citations going stale: "
        + shares.share_ci(share, 100.0, ".1f")
        + f" % of the day's citations were stale {by_end} ({share.n} days); "
        + shares.share_ci(per_hour, 1000.0, ".2f", cap=math.inf)
        + " stale per 1,000 citation-hours held."
    )
    checks = closed.check_rows(chosen, cf.table)
    by_sim = closed.simulation_decides(table, target) and days_from.kind != "forms"
    cf = cf if by_sim else closed.checked_choice(cf, table)
    lines = [
        f"Advice for the KB {params.corpus_db}: {params.n_articles:,} published articles. By "
        "simulated days (run to the precision asked for, or to the cap on days) "
        "where their pick meets the target with margin, else by the closed forms; the line "
        "'Decided by' says which.",
        *text.assumptions(process, costs, target, want, f"{name}, {saves_said}", agent),
        *([] if habits is None else habits.lines()),
        days_from.line(fitted=shape is not None),
        f"Days stopped because {why}.",
        staleness,
    ]
    pick = sampled.choice(table, target) if by_sim else cf.choice
    if by_sim:
        lines += [
            "Decided by simulation: "
            + text.option_line(
                "cheapest way to notice", checking.kept(chosen, table, target), target
            )
            + _precision_note(pick, want, why),
            "The options, simulated (mean a day over the days the costs rest on):",
            *text.options_table(chosen, pick),
        ]
    else:
        lines += [
            closed.decision_line(cf, chosen, target, why),
            text.days_line(chosen),
            "The options, by the closed forms:",
            *text.options_table(closed.as_options(cf, costs), cf.choice, exact=True),
        ]
    lines += [
        *checking.lines(pick, chosen, check, target, by_sim),
        closed.check_line(checks),
        *text.needed_lines({"kb": s}, want),
    ]
    if agent.hold_s / 60 <= target:
        lines.append(
            f"Citations are held {agent.hold_s / 60:g} min (--hold-hours), no longer than the "
            f"target of {target:g} min: a change cannot go unnoticed longer than its "
            "citation is held, so the target is met with no check at all; a check only "
            "shortens the time a stale citation is used."
        )
    if not math.isinf(agent.hold_s):
        lines.append(
            "The closed forms take the hold (--hold-hours) into the time a change goes "
            "unnoticed and into the re-read and poll calls; push's subscriptions and "
            "notifications in them are those of citations held to the day's end."
        )
    none = (
        "the agent edits no answer (--edit-share 0, or the call log's share)"
        if agent.edit_share == 0
        else "no question found a published article to edit"
    )
    cas_rows, cas_lines = shares.cas_by_cause(cas, none)
    if agent.reread_before_edit and len(cas):
        cas_lines.append(
            "  (re-read at once before each edit: the delay from that read is 0 s whatever "
            "the agent waited; each edit costs one more read call)"
        )
    lines += [*cas_lines, f"Intervals of a share: {stats.SHARE_METHOD}."]
    out = {"assumptions": lines[2:8], **_json({"kb": chosen}, why, target)}
    out["choices"] = {"kb": None if pick is None or not by_sim else _plain_row(pick)}
    out["days_from"] = {"process": days_from.process_name(shape is not None), "why": days_from.why}
    out["checked"] = checking.as_json(pick, check)
    out["stale_share"] = shares.share_json(share, int(stale["stale"].sum()) if len(stale) else 0)
    out["cas_by_delay"] = cas_rows
    out["agent"] = agent.as_json()
    out["call_log"] = None if habits is None else habits.as_json()
    out["decided_by"] = "simulation" if by_sim else "closed forms"
    if not by_sim:  # the days made no pick of their own: only `pick` (the closed forms') is
        out["choices"] = {"kb": None}
    out["pick"] = (
        None
        if pick is None
        else {
            "decided_by": out["decided_by"],
            **{k: _plain(v) for k, v in pick.items()},
        }
    )
    out["closed_forms"] = closed.as_json(cf, checks, costs)
    return "\n".join(lines), out


def _plain_row(row: pd.Series) -> dict[str, Any]:
    return {k: _plain(v) for k, v in row.items()}


def _precision_note(pick: pd.Series | None, want: sampled.Precision, why: str) -> str:
    """Where the days stopped short of the precision asked for, that the pick still meets
    the target with margin (its interval's upper end below it), and its half-width."""
    if pick is None or pick["method"] == "push" or "precision" in why:
        return ""
    half = (pick["unnoticed_hi"] - pick["unnoticed_lo"]) / 2
    if not half > want.half_width_min:
        return ""
    return (
        f" (the ±{want.half_width_min:g} min asked for was not reached, ±{half:.1f}; the "
        "pick meets the target with margin all the same)"
    )


def _json(tables: dict[str, pd.DataFrame], why: str, target: float) -> dict[str, Any]:
    def plain(row: pd.Series | None) -> dict[str, Any] | None:
        return None if row is None else {k: _plain(v) for k, v in row.items()}

    return {
        "stopped": why,
        "choices": {n: plain(sampled.choice(t, target)) for n, t in tables.items()},
        "rows": {
            n: [{k: _plain(v) for k, v in r.items()} for r in t.to_dict("records")]
            for n, t in tables.items()
        },
    }
