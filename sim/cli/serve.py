"""`python -m sim serve`: the KB over MCP on stdio (sim/serve.py) or streamable HTTP
(sim/server/http.py), until stdin closes or Ctrl-C."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

from sim.cli.common import a_path, bounded, needs
from sim.cli.paramflags import default, param_flag
from sim.importer.paths import same_file

MAX_EDITS_PER_MINUTE = 60_000.0


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    srv = sub.add_parser(
        "serve", help="serve the simulated KB over MCP on stdio (or streamable HTTP: --http)"
    )
    srv.add_argument(
        "--seed",
        type=bounded(int, 0, 2**32 - 1),
        default=None,
        help="seed of the synthetic help centre and of the background editor (default 1)",
    )
    param_flag(srv, "n_articles", value=None, lo=0, also="of the synthetic help centre; 0: none")
    srv.add_argument(
        "--db",
        type=a_path,
        default=None,
        help="a KB file to serve, as `import` wrote it (default: the synthetic help centre, "
        "in memory)",
    )
    srv.add_argument(
        "--create",
        action="store_true",
        help="with --db: build the synthetic help centre (--seed, --articles) into that new "
        "file and serve it (processes sharing one file, e.g. behind one HTTP address)",
    )
    srv.add_argument(
        "--human-edits-per-minute",
        type=bounded(float, 0.0, MAX_EDITS_PER_MINUTE),
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
        type=a_path,
        default=None,
        help="append one JSON line per tool call to this file",
    )
    _http_arguments(srv)
    return srv


def _a_call_log(path: Path) -> bool:
    """A file the call log may append to: none yet, an empty one, or one whose first line
    is a JSON object (a call log's); never another file given by mistake (a KB, a CSV). A
    pipe or device is a stream, not a file of the user's, and is not read."""
    if not path.is_file() or path.stat().st_size == 0:
        return True
    try:
        with path.open("rb") as f:
            first = f.readline(1 << 16)
        return isinstance(json.loads(first), dict)
    except (OSError, ValueError):
        return False


def run(args: argparse.Namespace, srv: argparse.ArgumentParser) -> NoReturn:
    """serve: open the KB, serve it until stdin closes (stdio) or Ctrl-C, and leave."""
    import contextlib

    import anyio

    from sim.kb.rows import StoreError
    from sim.serve import Interrupts, check_writable, leave, open_store, serve

    if args.call_log is not None and args.db is not None and same_file(args.call_log, args.db):
        srv.error(
            f"--call-log {args.call_log}: the same file as --db {args.db}; name another file "
            "(nothing was written)"
        )
    if args.call_log is not None and not _a_call_log(args.call_log):
        srv.error(
            f"--call-log {args.call_log}: exists and is not a call log (its first line is not"
            " a JSON object); name a new file or an earlier call log (nothing was written)"
        )
    _synthetic_flags(srv, args)
    http = _serve_http(srv, args)
    interrupts = Interrupts() if http is None else None  # a Ctrl-C while the KB is built too
    try:
        try:
            store = open_store(args.seed, args.articles, args.db, args.create)
            if args.db is not None and args.write_gate:
                check_writable(store, "--write-gate")
            if args.db is not None and args.human_edits_per_minute > 0:
                check_writable(store, "--human-edits-per-minute")
            log = args.call_log.open("a", encoding="utf-8") if args.call_log else None
        except StoreError as e:
            srv.error(str(e))
        except OSError as e:
            srv.error(f"--call-log {args.call_log}: cannot append to it ({e.strerror})")
    except BaseException:  # a refused start: the caller of main() goes on with its own Ctrl-C
        if interrupts is not None:
            interrupts.withdraw()
        raise
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


def _synthetic_flags(srv: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--create, --articles and --seed only where they mean something: a --db file is
    served as it is, so its KB has neither (the seed still draws a background editor's
    saves); the defaults are filled in here."""
    if args.create and args.db is None:
        srv.error("--create needs --db FILE, the new file to build the synthetic help centre into")
    if args.db is not None and not args.create:
        said = [f"--{f}" for f in ("articles", "seed") if getattr(args, f) is not None]
        if args.seed is not None and args.human_edits_per_minute > 0:
            said.remove("--seed")  # it seeds the background editor
        if said:
            flags = " and ".join(said)
            editor = " or the background editor's saves" if "--seed" in said else ""
            srv.error(
                f"{flags}: only for the synthetic help centre (without --db, or with --create "
                f"and a new file){editor}; --db {args.db} is served as it is: leave out {flags}"
            )
    args.seed = 1 if args.seed is None else args.seed
    args.articles = default("n_articles") if args.articles is None else args.articles


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
        type=a_path,
        default=None,
        help='a JSON file of the bearer tokens and their grants: {"tokens": [{"label": …, '
        '"token": …, "read": [KB ids], "edit": [KB ids]}]}; the call log names the label, never'
        " the token",
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
        type=bounded(float, 0.1, 86_400.0),
        default=600.0,
        help="a session with no request in flight for this long is ended (default 600)",
    )
    http.add_argument(
        "--max-sessions",
        type=bounded(int, 1, 100_000),
        default=1000,
        help="open sessions at most; past it initialize is refused with 503 (default 1000)",
    )
    http.add_argument(
        "--max-sessions-per-token",
        type=bounded(int, 1, 100_000),
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
        for flag in ("max_sessions", "session_idle_s"):  # numbers: set only if not the default
            if getattr(args, flag) != srv.get_default(flag):
                srv.error(f"--{flag.replace('_', '-')} needs --http [HOST:]PORT")
        return None
    needs(srv, "http", "uvicorn", "starlette")
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
