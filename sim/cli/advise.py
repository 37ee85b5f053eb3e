"""`python -m sim advise`: the method and check interval that keep staleness unnoticed under
a target, cheapest: from the closed forms (sim/advise/closedform.py), or by simulation for an
edit log, a fitted shape or an imported KB (sim/cli/advise_simulated.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from sim.cli.advise_simulated import simulated
from sim.cli.common import PROG, bounded


def _delays(text: str) -> tuple[float, ...]:
    """--edit-delays: seconds, comma-separated, each from 0 to a week, at most 100."""
    parts = [p.strip() for p in text.split(",")]
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if not values or len(values) > 100 or not all(0 <= v <= 7 * 86_400 for v in values):
        raise argparse.ArgumentTypeError(
            "expected 1 to 100 delays in seconds, comma-separated, each from 0 to 604800 "
            f"(a week), e.g. 5,60,600; got {text!r}"
        )
    return values


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    adv = sub.add_parser(
        "advise",
        help="the method and check interval that keep staleness unnoticed under a target, cheapest",
    )
    adv.add_argument(
        "--articles",
        type=bounded(int, 1, 100_000),
        default=None,
        help="articles in the KB (default 400; with an edit log, the log's)",
    )
    adv.add_argument(
        "--saves-per-day",
        type=bounded(int, 0, 10_000_000),
        default=None,
        help="human saves in the day (default 300; with an edit log, the log's own volume)",
    )
    adv.add_argument(
        "--questions-per-day",
        type=bounded(int, 1, 10_000_000),
        default=120,
        help="questions the agent answers a day (default: %(default)s, the write-up's)",
    )
    adv.add_argument(
        "--day-hours",
        type=bounded(float, 0.1, 24),
        default=8.0,
        help="working hours a day, when questions and saves come (default: %(default)s)",
    )
    adv.add_argument(
        "--zipf",
        type=bounded(float, 0, 10),
        default=0.9,
        help="Zipf exponent of question popularity over the articles (default: %(default)s)",
    )
    adv.add_argument(
        "--citations-per-answer",
        type=bounded(int, 1, 20),
        default=2,
        help="top hits the agent reads and cites an answer (default: %(default)s)",
    )
    adv.add_argument(
        "--cost-per-call",
        type=bounded(float, 0, 1e12),
        default=1.0,
        help="cost of a tool call or notification (default: %(default)s)",
    )
    adv.add_argument(
        "--cost-per-1k-chars",
        type=bounded(float, 0, 1e12),
        default=0.1,
        help="cost of 1,000 characters of tool results (default: %(default)s)",
    )
    adv.add_argument(
        "--chars-per-token",
        type=bounded(float, 0.1, 100),
        default=4.0,
        help="characters a token, to state characters as tokens (default 4; --db)",
    )
    adv.add_argument(
        "--max-unnoticed-min",
        type=bounded(float, 0, 1e6),
        default=30.0,
        help="target: mean minutes a change to a cited article goes unnoticed "
        "(default: %(default)s)",
    )
    adv.add_argument(
        "--simulate",
        type=bounded(int, 0, 10_000),
        default=0,
        metavar="N",
        help="also run N seeded days and print the simulated figures beside (with "
        "--edit-log, --edit-shape or --db: exactly N days instead of days to the precision)",
    )
    real = adv.add_mutually_exclusive_group()
    real.add_argument(
        "--edit-log",
        type=Path,
        metavar="LOG.csv",
        help="advise from the edit process fitted to this log (by simulation)",
    )
    real.add_argument(
        "--edit-shape",
        type=Path,
        metavar="shape.json",
        help=f"advise from this fitted edit shape ({PROG} calibrate writes one)",
    )
    adv.add_argument(
        "--db",
        type=Path,
        default=None,
        metavar="kb.sqlite",
        help=f"advise for this imported KB ({PROG} import writes one): the day runs on "
        "its articles, its saves from the edit log written beside it (or --edit-log)",
    )
    adv.add_argument(
        "--queries",
        type=Path,
        default=None,
        metavar="FILE",
        help="with --db: a query log, one query a line (default: the articles' titles)",
    )
    prec = adv.add_argument_group(
        "precision (--edit-log, --edit-shape, --db: days are run until it is reached)"
    )
    prec.add_argument(
        "--half-width",
        type=bounded(float, 0.01, 1e6),
        default=5.0,
        metavar="MIN",
        help="95 %% half-width wanted on the chosen option's unnoticed minutes (default 5)",
    )
    prec.add_argument(
        "--min-changed",
        type=bounded(int, 0, 10_000_000),
        default=30,
        metavar="N",
        help="changed cited articles wanted at least (default 30)",
    )
    prec.add_argument(
        "--max-days", type=bounded(int, 2, 10_000), default=60, help="cap on days (default 60)"
    )
    prec.add_argument(
        "--max-seconds",
        type=bounded(float, 1, 1e6),
        default=25.0,
        help="start no batch of days that would end later than this many seconds after the "
        "start (default 25)",
    )
    prec.add_argument(
        "--workers",
        type=bounded(int, 1, 256),
        default=2,
        help="processes running days (default 2)",
    )
    habits = adv.add_argument_group(
        "the team's agent (--db; default: the write-up's agent, said so in the output)"
    )
    habits.add_argument(
        "--edit-delays",
        type=_delays,
        default=(),
        metavar="S[,S...]",
        help="seconds from the read of the edited citation to its edit, in turn by answer "
        "(default: 13 delays from 1 s to 8 h)",
    )
    habits.add_argument(
        "--reread-before-edit",
        choices=("yes", "no"),
        default="no",
        help="the agent re-reads the article at once before it edits (default no)",
    )
    habits.add_argument(
        "--edit-targets",
        choices=("any", "distinct_articles"),
        default="any",
        help="'any': every answer edits its first citation; 'distinct_articles': not an "
        "article an earlier answer of the day edits (default any)",
    )
    habits.add_argument(
        "--edit-share",
        type=bounded(float, 0, 1),
        default=1.0,
        metavar="0..1",
        help="the share of answers that edit, each drawn at random (default 1: every answer, "
        "the write-up's agent)",
    )
    habits.add_argument(
        "--hold-hours",
        type=bounded(float, 0.01, 168),
        default=None,
        metavar="H",
        help="hours a citation is held after its read; then it is no longer checked, and "
        "counts as stale only if it was stale when let go (default: to the day's end)",
    )
    habits.add_argument(
        "--call-log",
        type=Path,
        default=None,
        metavar="calls.jsonl",
        help="estimate the agent's habits and questions a day from this call log"
        f" ({PROG} serve --call-log writes one) and advise with them",
    )
    adv.add_argument("--json", action="store_true", help="the full table as JSON")
    return adv


def run(args: argparse.Namespace, adv: argparse.ArgumentParser) -> int:
    import json

    from sim.advise import Costs, advise, as_json, render
    from sim.params import Params as AdviseParams

    if args.queries is not None and args.db is None:
        adv.error("--queries: only with --db (the query log asks of an imported KB)")
    for flag, value, default in (
        ("--edit-delays", args.edit_delays, ()),
        ("--reread-before-edit", args.reread_before_edit, "no"),
        ("--edit-targets", args.edit_targets, "any"),
        ("--edit-share", args.edit_share, 1.0),
        ("--hold-hours", args.hold_hours, None),
    ):
        if value != default and args.db is None:
            adv.error(f"{flag}: only with --db (the agent's edits are simulated on a KB)")
    if args.call_log is not None and args.db is None:
        adv.error("--call-log: only with --db (the agent's habits are simulated on a KB)")
    if args.db is not None and args.articles is not None:
        adv.error("--articles: not with --db (the KB's published articles are counted)")
    runs_days = args.edit_log is not None or args.edit_shape is not None or args.db is not None
    for flag in ("half_width", "min_changed", "max_days", "max_seconds", "workers"):
        if not runs_days and getattr(args, flag) != adv.get_default(flag):
            adv.error(
                f"--{flag.replace('_', '-')}: only with --edit-log, --edit-shape or --db (days"
                " are simulated only then; the closed forms need none)"
            )
    if runs_days:
        return simulated(adv, args)
    try:
        params = AdviseParams(
            n_articles=400 if args.articles is None else args.articles,
            n_saves=300 if args.saves_per_day is None else args.saves_per_day,
            n_questions=args.questions_per_day,
            day_s=args.day_hours * 3600,
            zipf_s=args.zipf,
            citations_per_answer=args.citations_per_answer,
        )
    except ValueError as e:
        adv.error(str(e))
    costs = Costs(args.cost_per_call, args.cost_per_1k_chars)
    result = advise(params, costs, args.max_unnoticed_min, args.simulate)
    if args.json:
        print(json.dumps(as_json(params, costs, args.max_unnoticed_min, result), indent=2))
    else:
        print(render(params, costs, args.max_unnoticed_min, result))
    return 0
