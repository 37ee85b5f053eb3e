"""`python -m sim advise`: the method and check interval that keep staleness unnoticed under
a target, cheapest: from the closed forms (sim/advise/closedform.py), or by simulation for an
edit log, a fitted shape or an imported KB (sim/cli/advise_simulated.py)."""

from __future__ import annotations

import argparse

from sim.cli.advise_simulated import simulated
from sim.cli.common import PROG, a_path, bounded, target_flag
from sim.cli.paramflags import param_flag, param_flags

MAX_SIMULATE = 20
"""--simulate at most (days run beside the closed forms)."""


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
    _day_flags(adv)
    _cost_flags(adv)
    _input_flags(adv)
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
        "--max-days",
        type=bounded(int, 2, 10_000),
        default=60,
        help="cap on days (default 60): the only budget, so the pick is the same on any "
        "machine; with --db as many independent days again check the pick",
    )
    prec.add_argument(
        "--max-seconds",
        type=bounded(float, 1, 1e6),
        default=None,
        help="a safety stop, not a budget: past it no more days are run and advise exits with "
        "status 3 deciding nothing, never another pick (default: none)",
    )
    prec.add_argument(
        "--workers",
        type=bounded(int, 1, 256),
        default=2,
        help="processes running days (default 2)",
    )
    _habit_flags(adv)
    adv.add_argument("--json", action="store_true", help="the full table as JSON")
    return adv


def _day_flags(adv: argparse.ArgumentParser) -> None:
    """The day's Params fields (sim/params.py holds their defaults, limits and help)."""
    also = "with an edit log, the log's"
    param_flag(adv, "n_articles", value=None, also=also)
    param_flag(adv, "n_saves", value=None, also=f"{also} own volume")
    param_flags(adv, "n_questions", "day_s", "zipf_s", "citations_per_answer")


def _cost_flags(adv: argparse.ArgumentParser) -> None:
    """What a call and its characters cost, the target, and the days run beside."""
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
    target_flag(adv)
    adv.add_argument(
        "--simulate",
        # at most what runs in about a minute on two cores: a default day is 5.6 CPU-s
        # (--simulate 10 took 57 CPU-s); 10,000, the top before, was some 8 hours
        type=bounded(int, 0, MAX_SIMULATE),
        default=0,
        metavar="N",
        help="also run N seeded days and print the simulated figures beside (with "
        "--edit-log, --edit-shape or --db: exactly N days instead of days to the precision)",
    )


def _input_flags(adv: argparse.ArgumentParser) -> None:
    """What to advise from: an edit log or shape, an imported KB and its queries."""
    real = adv.add_mutually_exclusive_group()
    real.add_argument(
        "--edit-log",
        type=a_path,
        metavar="LOG.csv",
        help="advise from the edit process fitted to this log (by simulation)",
    )
    real.add_argument(
        "--edit-shape",
        type=a_path,
        metavar="shape.json",
        help=f"advise from this fitted edit shape ({PROG} calibrate writes one)",
    )
    adv.add_argument(
        "--db",
        type=a_path,
        default=None,
        metavar="kb.sqlite",
        help=f"advise for this imported KB ({PROG} import writes one): the day runs on "
        "its articles, its saves from the edit log written beside it (or --edit-log)",
    )
    adv.add_argument(
        "--days-from",
        default=None,
        metavar="trace|fitted|forms",
        help="with --db or --edit-log, the simulated days' saves: trace, the history "
        "replayed (days drawn in 7-day blocks; the default where it has saves on 60 days or "
        "more spanning 90 or more); fitted, the process fitted to it (the default otherwise); "
        "forms (--db only), the closed forms pick, the fitted days giving the other figures",
    )
    adv.add_argument(
        "--queries",
        type=a_path,
        default=None,
        metavar="FILE",
        help="with --db: a query log, one query a line (default: the articles' titles)",
    )


def _habit_flags(adv: argparse.ArgumentParser) -> None:
    """How the team's agent cites and edits (--db)."""
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
    param_flags(habits, "agent_edit_targets", "agent_edit_share")
    param_flag(habits, "citation_hold_s", value=None)
    habits.add_argument(
        "--call-log",
        type=a_path,
        default=None,
        metavar="calls.jsonl",
        help="estimate the agent's habits and questions a day from this call log"
        f" ({PROG} serve --call-log writes one) and advise with them",
    )


def run(args: argparse.Namespace, adv: argparse.ArgumentParser) -> int:
    import json

    from sim.advise import Costs, advise, as_json, render
    from sim.params import Params as AdviseParams

    if args.queries is not None and args.db is None:
        adv.error("--queries: only with --db (the query log asks of an imported KB)")
    for flag, value, default in (
        ("--edit-delays", args.edit_delays, ()),
        ("--reread-before-edit", args.reread_before_edit, "no"),
        ("--edit-targets", args.edit_targets, adv.get_default("edit_targets")),
        ("--edit-share", args.edit_share, adv.get_default("edit_share")),
        ("--hold-hours", args.hold_hours, None),
    ):
        if value != default and args.db is None:
            adv.error(f"{flag}: only with --db (the agent's edits are simulated on a KB)")
    if args.call_log is not None and args.db is None:
        adv.error("--call-log: only with --db (the agent's habits are simulated on a KB)")
    from sim.advise.tracedays import CHOICES

    if args.days_from not in (None, *CHOICES):
        adv.error(
            f"--days-from: expected one of {', '.join(CHOICES)}; received {args.days_from!r}; "
            "leave it out for the default"
        )
    if args.days_from is not None and args.db is None and args.edit_log is None:
        adv.error(
            "--days-from: only with --db or --edit-log (a history is replayed from its saves)"
        )
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
            n_articles=AdviseParams.n_articles if args.articles is None else args.articles,
            n_saves=AdviseParams.n_saves if args.saves_per_day is None else args.saves_per_day,
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
