"""Command line: `python -m sim reproduce | notebook | sweep | bench | serve | log-report |
advise | calibrate | import | export`."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

from sim.bench.loops import LOOPS

MAX_SERVED_ARTICLES = 100_000
MAX_EDITS_PER_MINUTE = 60_000.0


class _Parser(argparse.ArgumentParser):
    """Bad flags get one line naming the flag and what it takes, and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _bounded(kind: type[int] | type[float], lo: float, hi: float) -> Callable[[str], Any]:
    def convert(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:  # NaN fails this too
            noun, fmt = ("an integer", ",") if kind is int else ("a number", "g")
            raise argparse.ArgumentTypeError(
                f"expected {noun} from {lo:{fmt}} to {hi:{fmt}}; got {text!r}"
            )
        return value

    return convert


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


def _at_least_5(text: str) -> int:
    n = int(text)
    if n < 5:
        raise argparse.ArgumentTypeError(f"expected 5 or more (the write-up's seeds 1–5); got {n}")
    return n


def _advise_calibrated(adv: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """advise --edit-log / --edit-shape / --db: simulated advice from a real edit process
    (and with --db on a real KB), run to the precision asked for."""
    import json
    import time

    started = time.monotonic()
    from sim import advise_calibrated as ac
    from sim import advise_db
    from sim.advise import Costs
    from sim.advise_sampled import Precision
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
        except ValueError as e:
            adv.error(str(e))
        from sim.advise_agent import Agent

        defaults = (args.edit_delays, args.reread_before_edit, args.edit_targets, args.edit_share)
        hold_s = float("inf") if args.hold_hours is None else args.hold_hours * 3600
        habits = None
        if args.call_log is not None:
            from sim import advise_calllog

            if defaults != ((), "no", "any", 1.0) or args.citations_per_answer != 2:
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
                if defaults == ((), "no", "any", 1.0)
                and args.citations_per_answer == 2
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
        )
        text = text.replace("\n", f"\n{note}\n", 1) if note else text
        if args.edit_shape is None:
            from sim.importer.cli import default_edit_log

            text, out = _with_log(text, out, args.edit_log or default_edit_log(args.db))
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
        if args.saves_per_day is None:
            params = replace(params, n_saves=ac.log_volume(params, shape))
        else:
            params = replace(params, n_saves=args.saves_per_day)
    except ValueError as e:  # LogError too
        adv.error(str(e))
    text, out = advise_db.edit_log_advice(
        params, shape, costs, target, want, args.workers, args.simulate
    )
    if args.edit_log is not None:
        text, out = _with_log(text, out, args.edit_log)
    print(json.dumps(out, indent=2) if args.json else text)
    return 0


def _with_log(text: str, out: dict[str, Any], log: Path) -> tuple[str, dict[str, Any]]:
    """The advice with the edit log's own stale share by age (as § 7 measures the shared
    logs), when there is a log."""
    if not log.exists():
        return text, out
    from sim.studymap import yourlog

    lines, rows = yourlog.lines_for(log)
    return f"{text}\n{lines}", out | {"stale_by_age_from_log": rows}


def _serve(srv: argparse.ArgumentParser, args: argparse.Namespace) -> NoReturn:
    """serve: open the KB, serve it until stdin closes (stdio) or Ctrl-C, and leave."""
    import contextlib

    import anyio

    from sim.kb.rows import StoreError
    from sim.serve import Interrupts, check_writable, leave, open_store, serve

    http = _serve_http(srv, args)
    interrupts = Interrupts() if http is None else None  # a Ctrl-C while the KB is built too
    try:
        store = open_store(args.seed, args.articles, args.db)
        if args.db is not None and args.write_gate:
            check_writable(store, "--write-gate")
        if args.db is not None and args.human_edits_per_minute > 0:
            check_writable(store, "--human-edits-per-minute")
        log = args.call_log.open("a", encoding="utf-8") if args.call_log else None
    except StoreError as e:
        srv.error(str(e))
    except OSError as e:
        srv.error(f"--call-log {args.call_log}: cannot append to it ({e.strerror})")
    status = 0
    try:
        if interrupts is not None:
            if interrupts.serving():  # installed before the loop: asyncio's runner keeps it
                anyio.run(
                    serve,
                    *(
                        store,
                        interrupts,
                        args.human_edits_per_minute,
                        args.seed,
                        log,
                        args.write_gate,
                        args.db is not None,  # another process may commit to the file
                    ),
                )
        else:
            from sim.server.http import serve_http

            follow = args.db is not None  # another process may save to the same file
            anyio.run(
                serve_http,
                *(
                    store,
                    http,
                    args.human_edits_per_minute,
                    args.seed,
                    log,
                    args.write_gate,
                    follow,
                ),
            )
    except KeyboardInterrupt:
        pass
    except Exception as e:  # no traceback reaches the client's terminal
        print(f"{srv.prog}: stopped by an internal error: {e!r}", file=sys.stderr)
        status = 1
    finally:
        if log is not None:
            with contextlib.suppress(OSError):  # a failed log was said when it failed
                log.close()
    leave(status)


def _http_arguments(srv: argparse.ArgumentParser) -> None:
    """serve's HTTP flags (sim/server/http.py says what the server does with them)."""
    http = srv.add_argument_group("streamable HTTP (instead of stdio)")
    http.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        default=None,
        help="serve MCP at http://HOST:PORT/mcp (HOST 127.0.0.1 by default; PORT 0 picks a "
        "free one and prints it); without --tokens only a loopback HOST is served",
    )
    http.add_argument(
        "--tokens",
        type=Path,
        default=None,
        help='bearer tokens and their grants: {"tokens": [{"label": …, "token": …, '
        '"read": [KB ids], "edit": [KB ids]}]}; the call log names the label, never the token',
    )
    http.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an Origin allowed besides loopback ones (repeatable), e.g. https://app.example",
    )
    http.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="a Host header allowed besides the served address (repeatable), e.g. behind a proxy",
    )
    http.add_argument(
        "--session-idle-s",
        type=_bounded(float, 0.1, 86_400.0),
        default=600.0,
        help="a session with no request in flight for this long is ended (default 600)",
    )
    http.add_argument(
        "--max-sessions",
        type=_bounded(int, 1, 100_000),
        default=1000,
        help="open sessions at most; past it initialize is refused with 503 (default 1000)",
    )
    http.add_argument(
        "--max-sessions-per-token",
        type=_bounded(int, 1, 100_000),
        default=None,
        metavar="N",
        help="open sessions one token may hold; past it its initialize is refused with 429 "
        "(default: --max-sessions shared evenly among the tokens, so none can lock out the rest)",
    )
    http.add_argument(
        "--http-json",
        action="store_true",
        help="answer each POST with one JSON body instead of an SSE stream (the 2025-era "
        "spec lets the server choose; a session's notifications and approval prompts go on "
        "its GET stream either way, and 2026-07-28 listen streams stay SSE)",
    )


def _serve_http(srv: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The HTTP options of serve, or None for stdio; a bad one ends with a usage error."""
    if args.http is None:
        for flag in ("tokens", "allow_origin", "allow_host", "http_json", "max_sessions_per_token"):
            if getattr(args, flag):
                srv.error(f"--{flag.replace('_', '-')} needs --http [HOST:]PORT")
        return None
    _needs(srv, "http", "uvicorn", "starlette")
    from sim.server.grants import GrantsError, load_grants
    from sim.server.http import AddressError, HttpOptions, check_options, listen, parse_address

    try:
        host, port = parse_address(args.http)
        options = HttpOptions(
            host,
            port,
            None if args.tokens is None else load_grants(args.tokens),
            tuple(args.allow_origin),
            tuple(args.allow_host),
            args.session_idle_s,
            args.max_sessions,
            args.max_sessions_per_token,
            json_response=args.http_json,
        )
        check_options(options)
        options = replace(options, sock=listen(host, port))
    except AddressError as e:
        srv.error(f"--http {args.http}: {e}")
    except GrantsError as e:
        srv.error(str(e))
    return options


def _extra(parser: argparse.ArgumentParser, extra: str, e: ModuleNotFoundError) -> NoReturn:
    """A command whose optional dependencies are not installed: one line saying which."""
    parser.error(
        f"needs the {extra!r} extra ({e.name} is not installed):"
        f" pip install 'stale-citations-sim[{extra}]'"
    )


def _needs(parser: argparse.ArgumentParser, extra: str, *modules: str) -> None:
    """Before a command that imports an extra's packages: each found, or one line."""
    for name in modules:
        if importlib.util.find_spec(name) is None:
            _extra(parser, extra, ModuleNotFoundError(name=name))


def _notebook(nbp: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """notebook: run it with its parameters overridden, save its outputs and the executed
    .ipynb; on its own parameters, into results/notebook and the committed .ipynb."""
    try:
        from nbclient.exceptions import CellExecutionError

        from sim import notebook
    except ModuleNotFoundError as e:
        _extra(nbp, "notebook", e)
    if not args.path.is_file():
        nbp.error(f"--path: {args.path} is not a file (a notebook's .py: notebooks/explore.py)")
    if args.db is not None and not args.db.is_file():
        nbp.error(f"--db: {args.db} is not a file (python -m sim import writes one)")
    try:
        values = notebook.overrides(args.parameter, notebook.defaults(args.path))
    except notebook.ParameterError as e:
        nbp.error(str(e))
    own = not values and args.db is None
    out = args.out or Path("results/notebook" if own else "notebook-out")
    ipynb = args.ipynb or (args.path.with_suffix(".ipynb") if own else out / "explore.ipynb")
    out.mkdir(parents=True, exist_ok=True)
    here = args.path.resolve().parent
    # relative to the notebook when under this checkout, so the saved .ipynb names no machine
    shown = Path(os.path.relpath(out.resolve(), here))
    inside = out.resolve().is_relative_to(here.parent)
    values = {**values, "OUT_DIR": str(shown if inside else out.resolve())}
    if args.db is not None:
        values["KB_DB"] = str(args.db.resolve())
    try:
        nb = notebook.execute(args.path.resolve(), values, progress=True)
    except CellExecutionError as e:
        last = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        print(f"python -m sim notebook: error: a cell failed: {last}", file=sys.stderr)
        return 1
    notebook.save(nb, ipynb)
    print(f"ran {args.path} into {ipynb}; its tables and figures are in {out}", file=sys.stderr)
    return 0


def entry(argv: list[str] | None = None) -> int:
    """What `python -m sim` runs: the command line, and Ctrl-C ended in one line and status
    130, not a traceback; `serve` ends on Ctrl-C while it starts (its flags, its imports,
    the corpus) as on one while serving: status 0, nothing said."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        return main(argv)
    except KeyboardInterrupt:
        if argv[:1] == ["serve"]:
            return 0
        print("python -m sim: interrupted", file=sys.stderr)
        return 130


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m sim", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("reproduce", help="run the study and write results/")
    rep.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder (default: results; quick-results with --quick)",
    )
    rep.add_argument(
        "--seeds", type=_at_least_5, default=None, help="staleness runs on seeds 1..N (default 150)"
    )
    rep.add_argument(
        "--cas-seeds", type=_at_least_5, default=None, help="CAS runs on seeds 1..N (default 300)"
    )
    rep.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    rep.add_argument(
        "--scheduler",
        default=None,
        help="run the days on the Dask cluster at this scheduler address, e.g. tcp://host:8786"
        " (same bytes as a local run)",
    )
    rep.add_argument(
        "--quick",
        action="store_true",
        help="every part on a twentieth of its seeds (at least 2), each page marked as a quick"
        " run: every table and figure in about a minute, into quick-results/ or --out",
    )
    bench = sub.add_parser(
        "bench", help="speed figures into results/bench.json and results/SPEED.md"
    )
    bench.add_argument("--out", type=Path, default=Path("results"))
    bench.add_argument("--repeats", type=int, default=5, help="runs per timed figure")
    bench.add_argument(
        "--factors",
        type=int,
        nargs="+",
        default=[1, 10, 100],
        help="day sizes to scale to, as multiples of the default day",
    )
    bench.add_argument(
        "--no-loops",
        action="store_true",
        help="leave out the timed loops: `make reproduce`, `make test`, `make check`, advise "
        "(about 30 minutes); the HTTP load table (a minute) is kept",
    )
    bench.add_argument(
        "--only",
        nargs="+",
        choices=list(LOOPS),
        default=None,
        help="time only these loops again, into the existing bench.json (it says which)",
    )
    sw = sub.add_parser("sweep", help="a parameter grid × seeds into one tidy table")
    sw.add_argument(
        "axes",
        nargs="+",
        metavar="name=v1,v2,...",
        help="a swept parameter and its values, e.g. zipf_s=0,0.5,0.9",
    )
    sw.add_argument("--seeds", type=int, default=10, help="seeds 1..N per grid point")
    sw.add_argument(
        "--experiments",
        nargs="+",
        default=None,
        help="runs per seed among staleness control cas cas_curve exposure (default:"
        " staleness control cas; staleness cas with save_process=calibrated)",
    )
    sw.add_argument("--out", type=Path, default=Path("sweep.csv"), help="CSV file to write")
    sw.add_argument("--workers", type=int, default=None, help="local processes (default: all)")
    sw.add_argument(
        "--scheduler",
        default=None,
        help="address of a running Dask scheduler, e.g. tcp://host:8786",
    )
    nbp = sub.add_parser(
        "notebook",
        help="run notebooks/explore.ipynb (on its own parameters, or -p NAME=VALUE), saving it"
        " with its outputs",
    )
    nbp.add_argument("--path", type=Path, default=Path("notebooks/explore.py"))
    nbp.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a value of the parameters cell, e.g. -p SEEDS=5 -p ZIPF_S=1.2 (repeatable)",
    )
    nbp.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder of its tables and figures (default: results/notebook on its own"
        " parameters, notebook-out with -p or --db)",
    )
    nbp.add_argument(
        "--ipynb",
        type=Path,
        default=None,
        help="where the executed notebook goes (default: the .ipynb paired with --path on its"
        " own parameters, OUT/explore.ipynb with -p or --db)",
    )
    nbp.add_argument(
        "--db",
        type=Path,
        default=None,
        metavar="kb.sqlite",
        help="an imported KB (python -m sim import writes one): section 7 shows its advice",
    )
    srv = sub.add_parser(
        "serve", help="serve the simulated KB over MCP on stdio (or streamable HTTP: --http)"
    )
    srv.add_argument(
        "--seed", type=_bounded(int, 0, 2**32 - 1), default=1, help="corpus seed (default 1)"
    )
    srv.add_argument(
        "--articles",
        type=_bounded(int, 0, MAX_SERVED_ARTICLES),
        default=400,
        help=f"articles in a new KB, 0 to {MAX_SERVED_ARTICLES:,} (default 400)",
    )
    srv.add_argument(
        "--db", type=Path, default=None, help="SQLite file to serve (created and seeded if missing)"
    )
    srv.add_argument(
        "--human-edits-per-minute",
        type=_bounded(float, 0.0, MAX_EDITS_PER_MINUTE),
        default=0.0,
        help="a background human editor's save rate (default 0: none)",
    )
    srv.add_argument(
        "--write-gate",
        action="store_true",
        help="every edit needs its own approval, asked of the user with elicitation/create",
    )
    srv.add_argument(
        "--call-log",
        type=Path,
        default=None,
        help="append one JSON line per tool call to this file",
    )
    _http_arguments(srv)
    lr = sub.add_parser("log-report", help="the cost table of a call log (serve --call-log)")
    lr.add_argument("file", type=Path, help="a call log: one JSON line per tool call")
    lr.add_argument("--json", action="store_true", help="rows as JSON instead of a table")
    adv = sub.add_parser(
        "advise",
        help="the method and check interval that keep staleness unnoticed under a target, cheapest",
    )
    adv.add_argument(
        "--articles",
        type=_bounded(int, 1, 100_000),
        default=None,
        help="articles in the KB (default 400; with an edit log, the log's)",
    )
    adv.add_argument(
        "--saves-per-day",
        type=_bounded(int, 0, 10_000_000),
        default=None,
        help="human saves in the day (default 300; with an edit log, the log's own volume)",
    )
    adv.add_argument("--questions-per-day", type=_bounded(int, 1, 10_000_000), default=120)
    adv.add_argument("--day-hours", type=_bounded(float, 0.1, 24), default=8.0)
    adv.add_argument("--zipf", type=_bounded(float, 0, 10), default=0.9, help="popularity skew")
    adv.add_argument("--citations-per-answer", type=_bounded(int, 1, 20), default=2)
    adv.add_argument("--cost-per-call", type=_bounded(float, 0, 1e12), default=1.0)
    adv.add_argument("--cost-per-1k-chars", type=_bounded(float, 0, 1e12), default=0.1)
    adv.add_argument(
        "--chars-per-token",
        type=_bounded(float, 0.1, 100),
        default=4.0,
        help="characters a token, to state characters as tokens (default 4; --db)",
    )
    adv.add_argument(
        "--max-unnoticed-min",
        type=_bounded(float, 0, 1e6),
        default=30.0,
        help="target: mean minutes a change to a cited article goes unnoticed",
    )
    adv.add_argument(
        "--simulate",
        type=_bounded(int, 0, 10_000),
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
        help="advise from this fitted edit shape (python -m sim calibrate writes one)",
    )
    adv.add_argument(
        "--db",
        type=Path,
        default=None,
        metavar="kb.sqlite",
        help="advise for this imported KB (python -m sim import writes one): the day runs on "
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
        type=_bounded(float, 0.01, 1e6),
        default=5.0,
        metavar="MIN",
        help="95 %% half-width wanted on the chosen option's unnoticed minutes (default 5)",
    )
    prec.add_argument(
        "--min-changed",
        type=_bounded(int, 0, 10_000_000),
        default=30,
        metavar="N",
        help="changed cited articles wanted at least (default 30)",
    )
    prec.add_argument(
        "--max-days", type=_bounded(int, 2, 10_000), default=60, help="cap on days (default 60)"
    )
    prec.add_argument(
        "--max-seconds",
        type=_bounded(float, 1, 1e6),
        default=25.0,
        help="start no batch of days that would end later than this many seconds after the "
        "start (default 25)",
    )
    prec.add_argument(
        "--workers",
        type=_bounded(int, 1, 256),
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
        type=_bounded(float, 0, 1),
        default=1.0,
        metavar="0..1",
        help="the share of answers that edit, each drawn at random (default 1: every answer, "
        "the write-up's agent)",
    )
    habits.add_argument(
        "--hold-hours",
        type=_bounded(float, 0.01, 168),
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
        help="estimate the agent's habits and questions a day from this call log (python -m "
        "sim serve --call-log writes one) and advise with them",
    )
    adv.add_argument("--json", action="store_true", help="the full table as JSON")
    from sim.calibrate.flags import add_parser as add_calibrate

    cal = add_calibrate(sub)
    from sim.importer.cli import add_parser as add_import

    imp = add_import(sub)
    from sim.importer.export import add_parser as add_export

    exp = add_export(sub)
    args = parser.parse_args(argv)
    if args.command == "reproduce":
        from sim.reproduce import CAS_SEEDS, STALENESS_SEEDS, reproduce

        if args.scheduler is not None:
            _needs(rep, "dask", "distributed")
        readme = Path("README.md")
        args.out = args.out or Path("quick-results" if args.quick else "results")
        in_place = args.out == Path("results") and readme.exists()
        if args.quick and args.out.resolve() == Path("results").resolve():
            parser.error(
                "--quick: a quick run does not overwrite the study's results/; got --out"
                f" {args.out}: give another folder, e.g. --out quick-results"
            )
        reproduce(
            args.out,
            args.seeds or STALENESS_SEEDS,
            args.cas_seeds or CAS_SEEDS,
            args.workers,
            readme_path=readme if in_place and not args.quick else None,
            scheduler=args.scheduler,
            quick=args.quick,
        )
        print(f"wrote {args.out}/REPORT.md and its tables and figures", file=sys.stderr)
    elif args.command == "bench":
        from sim.bench.suite import main as bench_main

        # SPEED.md is rewritten wherever --out holds one (a copy in a scratch folder too);
        # the README's line only by a bench into results/
        speed = args.out / "SPEED.md"
        in_place = args.out == Path("results") and speed.exists()
        bench_main(
            args.out,
            speed if speed.exists() else None,
            args.repeats,
            tuple(args.factors),
            loops=not args.no_loops,
            only=args.only,
            front_readme=Path("README.md") if in_place else None,
        )
        print(f"wrote {args.out}/bench.json", file=sys.stderr)
    elif args.command == "sweep":
        from sim.params import Params
        from sim.sweep import experiments_for, grid, parse_axis, sweep

        try:
            axes = dict(parse_axis(a) for a in args.axes)
            points = grid(Params(), axes)
            experiments = experiments_for(points, args.experiments and tuple(args.experiments))
        except ValueError as e:
            sw.error(str(e))
        if args.scheduler is not None:
            _needs(sw, "dask", "distributed")
        if args.experiments is None:
            print(f"runs per seed: {' '.join(experiments)}", file=sys.stderr)
        table = sweep(
            points,
            list(range(1, args.seeds + 1)),
            experiments,
            args.workers,
            args.scheduler,
        )
        table.to_csv(args.out, index=False)
        print(f"wrote {len(table)} runs to {args.out}", file=sys.stderr)
    elif args.command == "notebook":
        return _notebook(nbp, args)
    elif args.command == "advise":
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
        if args.edit_log is not None or args.edit_shape is not None or args.db is not None:
            return _advise_calibrated(adv, args)
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
    elif args.command == "calibrate":
        from sim.calibrate.cli import run as calibrate

        return calibrate(args, cal)
    elif args.command == "import":
        from sim.importer.cli import run as import_folder

        return import_folder(args, imp)
    elif args.command == "export":
        from sim.importer.export import run as export

        return export(args, exp)
    elif args.command == "log-report":
        from sim.server.calllog import BadLogLine
        from sim.server.logreport import report

        try:
            print(report(args.file, args.json))
        except OSError as e:
            lr.error(f"{args.file}: cannot read it ({e.strerror})")
        except BadLogLine as e:
            lr.error(f"{args.file}: not a call log of this project: {e}")
    elif args.command == "serve":
        _serve(srv, args)
    return 0


if __name__ == "__main__":
    sys.exit(entry())
