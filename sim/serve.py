"""`python -m sim serve`: the simulated KB as an MCP server over stdio.

It serves a KB seeded with the study's synthetic corpus (or a SQLite file), on the
wall clock. With --human-edits-per-minute a background editor saves Zipf-popular
articles while a client is connected, so staleness can be watched live: read an
article, wait, poll events. Every line on stdin gets a JSON-RPC answer (`sim/server/stdio.py`).
With --write-gate every edit needs its own approval, asked of the client's user with
elicitation/create and recorded in the KB.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import NoReturn, TextIO

import anyio

from sim.corpus import KB_ID
from sim.gcpause import collector_paused
from sim.kb.faults import BUSY_TIMEOUT_S, store_fault
from sim.kb.rows import StoreError
from sim.kb.store import KBStore
from sim.model.opening import open_kb
from sim.server.editor import human_editor, wall_clock_us


def open_store(seed: int, n_articles: int, db: Path | None) -> KBStore:
    """The KB at db (created and seeded if new), or a seeded in-memory one.

    Raises StoreError with a message for the user when db cannot be a KB file."""
    if db is not None:
        if db.is_dir():
            raise StoreError(f"--db {db}: is a directory; name a file (it is created if missing)")
        if not db.parent.is_dir():
            raise StoreError(f"--db {db}: the folder {db.parent} does not exist; create it first")
    try:
        store = KBStore(
            wall_clock_us, path=str(db) if db else ":memory:", busy_timeout_s=BUSY_TIMEOUT_S
        )
        if not store.kb_exists(KB_ID):
            open_kb(store, seed, n_articles)
    except StoreError as e:  # a file of another program, or of another schema version
        raise StoreError(f"--db {e}") from None
    except sqlite3.DatabaseError as e:
        fault = store_fault(e, str(db))
        if fault.code in ("kb_file_damaged", "kb_io_error"):
            raise StoreError(f"--db {db}: not a KB file SQLite can open ({e})") from None
        raise StoreError(f"--db {db}: {fault.message} {fault.what_to_do}") from None
    return store


def check_writable(store: KBStore, needed_by: str) -> None:
    """Refuse to start when a flag needs writes the file will refuse (read-only, busy).

    Raises StoreError with one line for the user."""
    try:
        store.check_writable()
    except sqlite3.Error as e:
        fault = store_fault(e, store.path)
        what = "read-only" if fault.code == "kb_read_only" else fault.code.removeprefix("kb_")
        raise StoreError(
            f"--db {store.path}: {needed_by} writes to the KB, but the file is {what} "
            f"(SQLite: {e}); make it writable, or serve it without {needed_by}"
        ) from None


async def serve(
    store: KBStore,
    interrupts: Interrupts,
    edits_per_minute: float,
    seed: int,
    call_log: TextIO | None,
    write_gate: bool,
    follow: bool = False,
) -> None:
    """Serve the KB over stdio until stdin closes or Ctrl-C (``interrupts``: made before the
    event loop starts, which only its caller can do). With `follow` (a --db file, which
    other processes may write) the file's event log is followed, so their commits notify
    this client's subscriptions as this process's own do (``follow.py``)."""
    # Imported here, not above: the MCP SDK takes about a second to load, and a bad flag or
    # --db file is refused (by open_store and check_writable) before anything needs it. The
    # SDK builds some 2,000 pydantic classes as it loads; the cyclic collector, run again and
    # again over them meanwhile, finds nothing to free, so it waits (about 0.2 s a start),
    # and what they leave is frozen out of every later collection.
    with collector_paused():
        from sim.server.calllog import CallLog
        from sim.server.follow import DEFAULT_FOLLOW_S, follow_log
        from sim.server.mcp_server import ELICITATION_GATE, build_server, tools_call_refusal
        from sim.server.stdio import screened_stdio
        from sim.server.tools import KBServer
    gc.freeze()

    log = CallLog(sink=call_log, keep=False)
    kb = KBServer(store, wall_clock_us, log, write_gate=write_gate)
    session = kb.connect("mcp-client", [KB_ID], gate=ELICITATION_GATE)
    server = build_server(session)
    async with anyio.create_task_group() as outer:
        outer.start_soon(_stop_on_interrupt, outer.cancel_scope, interrupts)
        async with (
            screened_stdio(tools_call_refusal) as (read, write),
            anyio.create_task_group() as tg,
        ):
            if edits_per_minute > 0:
                tg.start_soon(human_editor, store, edits_per_minute, seed)
            if follow:
                tg.start_soon(follow_log, store, kb, [KB_ID], DEFAULT_FOLLOW_S)
            await server.run(read, write, server.create_initialization_options())
            tg.cancel_scope.cancel()
        outer.cancel_scope.cancel()


INTERRUPT_POLL_S = 0.02
"""How often serving looks at the Ctrl-C flag: the most a Ctrl-C waits to end it."""


class Interrupts:
    """Ctrl-C (SIGINT) as a flag, caught from before the event loop starts.

    Left to Python, Ctrl-C raised KeyboardInterrupt inside whichever SDK task ran, and the
    SDK's others then met closed streams: reported as an internal error with status 1.
    asyncio's runner, started with Python's handler in place, installs its own, which
    cancels the main task: a Ctrl-C in the moment before serving took SIGINT over left a
    task group waiting on stdin for good (a loaded machine's server start). The event
    loop's signal receiver, on leaving, put Python's handler back for a moment, and a
    second Ctrl-C then (2 ms after the first) printed a traceback during the loop's
    shutdown. So the handler is installed before the loop runs, only sets a flag (raising
    nothing into the code it interrupts, whichever thread the signal reaches), and ignores
    every later Ctrl-C at once. A server started with SIGINT ignored (a non-interactive
    shell's `&` starts background jobs so, to spare them the foreground's Ctrl-C) keeps
    ignoring it, as Python did while it started.

    It is installed before the KB is built, too: there a Ctrl-C raises KeyboardInterrupt at
    once (the start ends quietly), and the flag keeps it even where C code that called the
    handler drops the exception (on a loaded machine about one Ctrl-C in 25 during the
    corpus's build was lost so, and the server then served on); ``serving`` stops the
    raising before the loop starts."""

    def __init__(self) -> None:
        self.seen = False
        self._raising = True
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, self._on_interrupt)

    def serving(self) -> bool:
        """From here on a Ctrl-C only sets the flag; whether to serve at all (no Ctrl-C came
        while the server started)."""
        self._raising = False
        return not self.seen

    def _on_interrupt(self, _signum: int, _frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.seen = True
        if self._raising:
            raise KeyboardInterrupt


async def _stop_on_interrupt(serving: anyio.CancelScope, interrupts: Interrupts) -> None:
    """End serving at the first Ctrl-C, as the end of stdin does; once serving ends, by
    either, a further Ctrl-C is ignored."""
    try:
        while not interrupts.seen:
            await anyio.sleep(INTERRUPT_POLL_S)
        serving.cancel()
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def leave(status: int) -> NoReturn:
    """End the process once serving is over, without the interpreter's teardown: freeing the
    SDK's classes one by one took half a second after stdin closed, and a client (or a test)
    that waits for the server to exit waited that long. Everything the server wrote is
    already committed (SQLite) or closed (the call log); the standard streams are flushed."""
    for stream in (sys.stdout, sys.stderr):
        # a reader gone away, or a stream already closed: nothing more can reach it
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
