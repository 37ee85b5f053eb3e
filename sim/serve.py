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
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn, TextIO

import anyio

from sim.corpus import KB_ID
from sim.gcpause import collector_paused
from sim.kb.faults import BUSY_TIMEOUT_S, store_fault
from sim.kb.rows import StoreError
from sim.kb.store import KBStore
from sim.model.opening import open_kb
from sim.prog import PROG
from sim.server.editor import human_editor, wall_clock_us


def open_store(seed: int, n_articles: int, db: Path | None, create: bool = False) -> KBStore:
    """The KB file at db, as it is; with `create`, a new file at db holding the seed's
    synthetic help centre; without db, that help centre in memory. A KB is invented only
    when asked for: a mistyped --db once served made-up articles to an agent.

    Raises StoreError with a message for the user when db cannot be served; a refused file
    is left as it was, and a missing one is not created."""
    if db is not None:
        _a_served_file(db, create)
        if create:
            _reserve(db)
    try:
        with _removed_unless_built(db if create else None):
            store = KBStore(
                wall_clock_us, path=str(db) if db else ":memory:", busy_timeout_s=BUSY_TIMEOUT_S
            )
            if db is None or create:
                open_kb(store, seed, n_articles)
        served = store.kb_exists(KB_ID)
    except StoreError as e:  # a file of another program, or of another schema version
        raise StoreError(f"--db {e}") from None
    except sqlite3.DatabaseError as e:
        raise _refusal(e, db) from None
    if not served:
        store.close()
        raise StoreError(f"--db {db}: holds no knowledge base {KB_ID}; {_FIX.format(db=db)}")
    return store


_FIX = (
    f"write one with {PROG} import DOCS_DIR --db {{db}}, or add --create to build the "
    "synthetic help centre into a new file"
)
"""What a --db that is not a KB file yet needs: the user's docs imported, or the study's
corpus asked for by name."""

_EXISTS = (
    "--db {db}: the file exists, and --create writes a new one; name a new file, or leave out"
    " --create to serve this one"
)

SIDE_FILES = ("-wal", "-shm", "-journal")
"""What SQLite may write beside a database file."""


def _a_served_file(db: Path, create: bool) -> None:
    """Refuse a --db that cannot be served (or, with `create`, written anew) before
    SQLite opens it: SQLite would create a missing file and make an empty one a KB."""
    if db.is_dir():
        raise StoreError(f"--db {db}: is a directory; name a KB file")
    if create:
        if db.exists() or db.is_symlink():
            raise StoreError(_EXISTS.format(db=db))
        if not db.parent.is_dir():
            raise StoreError(f"--db {db}: the folder {db.parent} does not exist; create it first")
        return
    if not db.exists():
        raise StoreError(f"--db {db}: no such file; {_FIX.format(db=db)}")
    if not db.is_file():  # a pipe would block the open, a device is no KB
        raise StoreError(f"--db {db}: not a regular file; name a KB file")
    if db.stat().st_size == 0:
        raise StoreError(f"--db {db}: an empty file, not a KB; {_FIX.format(db=db)}")
    try:  # read-only: a file of no tables would be given the KB's schema by opening it
        probe = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = probe.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            probe.close()
    except sqlite3.DatabaseError as e:
        raise _refusal(e, db) from None
    if not tables:
        raise StoreError(
            f"--db {db}: an SQLite file with no tables, not a KB; {_FIX.format(db=db)}"
        )


def _refusal(e: sqlite3.DatabaseError, db: Path | None) -> StoreError:
    """SQLite's refusal of the --db file as one line for the user."""
    fault = store_fault(e, str(db))
    if fault.code in ("kb_file_damaged", "kb_io_error"):
        return StoreError(f"--db {db}: not a KB file SQLite can open ({e})")
    return StoreError(f"--db {db}: {fault.message} {fault.what_to_do}")


def _reserve(db: Path) -> None:
    """Make db, empty, for --create: exclusively, so another process creating the same name
    meanwhile is refused rather than shared (SQLite takes an empty file as a new database)."""
    try:
        os.close(os.open(db, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except FileExistsError:
        raise StoreError(_EXISTS.format(db=db)) from None
    except OSError as e:
        raise StoreError(f"--db {db}: cannot create it ({e.strerror})") from None


@contextlib.contextmanager
def _removed_unless_built(db: Path | None) -> Iterator[None]:
    """A file --create made is removed, with what SQLite wrote beside it, if its build does
    not finish (an error, a Ctrl-C): no half-built KB is left to be served later."""
    try:
        yield
    except BaseException:
        if db is not None:
            for path in (db, *(Path(f"{db}{side}") for side in SIDE_FILES)):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
        raise


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
        self._before = signal.getsignal(signal.SIGINT)
        if self._before is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, self._on_interrupt)

    def withdraw(self) -> None:
        """Give SIGINT back the handler it had, when the start is refused before serving:
        a process that goes on (a test calling ``main``) kept this one, which ignores every
        Ctrl-C after the first, and a later Ctrl-C there was lost. Not after a Ctrl-C: this
        process is ending by it."""
        ours = signal.getsignal(signal.SIGINT) == self._on_interrupt
        if ours and not self.seen and self._before is not None:
            signal.signal(signal.SIGINT, self._before)

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
