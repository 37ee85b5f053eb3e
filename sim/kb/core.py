"""The store's core: one SQLite connection and everything each operation shares.

It opens (or checks) the schema, serialises operations across threads and tells listeners of
committed changes (``serialised``), runs transactions, appends to the event log and writes an
article's row with FTS kept equal to the published set. The operations themselves live in the
mixins ``sim.kb.store`` composes; each sees only this.
"""

from __future__ import annotations

import functools
import itertools
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Concatenate, ParamSpec, Self, TypeVar

from sim.kb.rows import Change, StoreError
from sim.kb.schema import KB_ROWID_BITS, SCHEMA, SCHEMA_VERSION
from sim.kb.search import INDEX_MIN_ROWS, Search
from sim.kb.versions import Clock

_S = TypeVar("_S", bound="StoreCore")
ChangeFields = tuple[str, int, str, str]
"""A Change's fields: listeners are told of Change objects, made only if one listens."""
Row = tuple[int, str, str, int, int]
"""An article's row: rowid, title, content, published (0 or 1), updated_us."""
_P = ParamSpec("_P")
_R = TypeVar("_R")


def serialised(
    method: Callable[Concatenate[_S, _P], _R],
) -> Callable[Concatenate[_S, _P], _R]:
    """One operation at a time on the connection, from whichever thread.

    The simulation's MCP transport calls the tools from its event-loop thread while the
    humans save from the SimPy thread; without the lock two threads' statements would
    interleave inside one BEGIN IMMEDIATE.
    """

    @functools.wraps(method)
    def locked(self: _S, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            self._depth += 1
            try:
                result = method(self, *args, **kwargs)
            finally:
                self._depth -= 1
            committed = self._committed if self._depth == 0 else []
            if committed:
                self._committed = []
        if self._listeners:  # outside the lock: a listener may block on another thread
            for fields in committed:
                change = Change(*fields)
                for listener in self._listeners:
                    listener(change)
        return result

    return locked


class StoreCore:
    """The connection and the state every operation shares; no operation of its own."""

    def __init__(
        self,
        clock: Clock,
        path: str = ":memory:",
        event_retention: int | None = None,
        index_min_rows: int = INDEX_MIN_ROWS,
        busy_timeout_s: float = 5.0,
    ) -> None:
        if event_retention is not None and event_retention < 1:
            raise ValueError(f"event_retention must be None or >= 1, got {event_retention}")
        self._clock = clock
        self._retention = event_retention
        self._rowid_ranges: dict[str, tuple[int, int]] = {}
        self._lock = threading.RLock()
        self._depth = 0
        self._pending: list[ChangeFields] = []
        self._committed: list[ChangeFields] = []
        self._listeners: list[Callable[[Change], None]] = []
        self.path = path
        self._db = sqlite3.connect(
            path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        if not self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'kbs'").fetchone():
            self._refuse_foreign(path)
            self._db.executescript(SCHEMA)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version != SCHEMA_VERSION:
            self._db.close()
            raise StoreError(
                f"{path}: a KB file of schema version {version}; this code reads version "
                f"{SCHEMA_VERSION}. Open another file, or remove this one to start afresh."
            )
        self._search = Search(self._db, index_min_rows)
        self._seen_version = self._data_version()

    def _data_version(self) -> int:
        (version,) = self._db.execute("PRAGMA data_version").fetchone()
        return int(version)

    def _sync(self) -> None:
        """Take in what other connections to the file committed since this one last looked:
        the in-memory search index is rebuilt from the committed rows when SQLite's
        ``data_version`` moved (it moves on another connection's commit, never on this
        one's). Asked before every search and at the start of every write transaction, so
        search ranks exactly the published rows as of the call, whoever wrote them; on a
        file only this store writes (the simulation's) it costs one PRAGMA."""
        version = self._data_version()
        if version != self._seen_version:
            self._seen_version = version
            self._search.reload()

    def _refuse_foreign(self, path: str) -> None:
        """A file with tables but no KB is someone else's database: never written to."""
        tables = [
            r[0]
            for r in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"
            )
        ]
        if tables:
            self._db.close()
            more = f" and {len(tables) - 5} more" if len(tables) > 5 else ""
            shown = ", ".join(tables[:5]) + more
            raise StoreError(
                f"{path}: an SQLite file of another program (tables {shown}), not a KB file; "
                "nothing was written. Name a new file, or one `python -m sim import` wrote."
            )

    def close(self) -> None:
        """Close the connection: the store is not used again."""
        self._db.close()

    @classmethod
    def copy_of(cls, template: StoreCore, clock: Clock) -> Self:
        """A new in-memory store holding every page of `template` (SQLite online backup)."""
        store = cls(
            clock, event_retention=template._retention, index_min_rows=template._search.min_rows
        )
        with template._lock:
            template._db.backup(store._db)
            store._search.copy_index(template._search)
        return store

    # -- transactions -------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._sync()  # the index must hold what this write changes, as committed
            yield self._db
            self._db.execute("COMMIT")  # inside: a commit the file refuses rolls back too
        except BaseException:
            if self._db.in_transaction:  # SQLite may have rolled back already (a full disk)
                self._db.execute("ROLLBACK")
            self._pending = []
            self._search.rolled_back()
            raise
        self._committed.extend(self._pending)
        self._pending = []
        self._search.committed()

    def check_writable(self) -> None:
        """Raise sqlite3.OperationalError now if the file refuses writes (read-only file or
        folder, or a lock), instead of at the first write: a write that changes nothing."""
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(f"PRAGMA user_version = {int(version)}")
            finally:
                self._db.execute("ROLLBACK")

    def add_listener(self, listener: Callable[[Change], None]) -> None:
        """Call `listener` with every change once its transaction has committed (never for a
        rolled-back one), in sequence order, after the store's lock is released."""
        self._listeners.append(listener)

    def _next_version(self, current_us: int | None) -> int:
        now = self._clock()
        return now if current_us is None or now > current_us else current_us + 1

    def _append_event(self, kb_id: str, type_: str, article_id: str, us: int, actor: str) -> int:
        return self._append_events(kb_id, [(type_, article_id, us, actor)])

    def _append_events(self, kb_id: str, events: list[tuple[str, str, int, str]]) -> int:
        """Append (type, article_id, us, actor) events in order, in three statements (many
        as one), and return the new head sequence."""
        first = self._claim_sequences(kb_id, len(events))
        self._db.executemany(
            "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
            [(kb_id, seq, *event) for seq, event in enumerate(events, first)],
        )
        return self._appended(kb_id, first, [e[0] for e in events], [e[1] for e in events])

    def _append_created(self, kb_id: str, first_rowid: int, article_ids: list[str]) -> int:
        """``_append_events`` of the human's 'created' event for each row from first_rowid
        on, just written (`article_ids` in rowid order), at the row's version: copied from
        the rows by one INSERT ... SELECT (a bulk load's 50,000 never pass through Python)."""
        first = self._claim_sequences(kb_id, len(article_ids))
        self._db.execute(
            "INSERT INTO events SELECT kb_id, ? + rowid - ?, 'created', article_id, updated_us, "
            "'human' FROM articles WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
            (first, first_rowid, first_rowid, first_rowid + len(article_ids) - 1),
        )
        return self._appended(kb_id, first, itertools.repeat("created"), article_ids)

    def _claim_sequences(self, kb_id: str, n: int) -> int:
        """Move the KB's head on by n events; the first of their sequence numbers."""
        (head,) = self._db.execute(
            "UPDATE kbs SET head_sequence = head_sequence + ? WHERE kb_id = ? "
            "RETURNING head_sequence",
            (n, kb_id),
        ).fetchone()
        return head - n + 1

    def _appended(
        self, kb_id: str, first: int, types: Iterable[str], article_ids: list[str]
    ) -> int:
        """Tell the listeners of the events of these types and articles, from sequence
        `first` on, once committed; drop what retention no longer keeps; return the head."""
        head = first + len(article_ids) - 1
        self._pending += zip(itertools.repeat(kb_id), itertools.count(first), types, article_ids)
        if self._retention is not None and head > self._retention:
            self._db.execute(
                "DELETE FROM events WHERE kb_id = ? AND sequence <= ?",
                (kb_id, head - self._retention),
            )
        return head

    def _row(self, kb_id: str, article_id: str) -> Row | None:
        return self._db.execute(
            "SELECT rowid, title, content, published, updated_us FROM articles "
            "WHERE kb_id = ? AND article_id = ?",
            (kb_id, article_id),
        ).fetchone()

    def _require_row(self, kb_id: str, article_id: str) -> Row:
        row = self._row(kb_id, article_id)
        if row is None:
            raise StoreError(f"no article {article_id!r} in knowledge base {kb_id!r}")
        return row

    def _write(
        self,
        row: Row,
        kb_id: str,
        article_id: str,
        title: str,
        content: str,
        published: bool,
        type_: str,
        actor: str,
    ) -> tuple[int, int]:
        """Write the new state over `row` (the article as this transaction read it: every
        write reads it first, to decide), keep FTS equal to the published set, append the
        event."""
        rowid, old_title, old_content, was_published, current_us = row
        us = self._next_version(current_us)
        self._db.execute(
            "UPDATE articles SET title = ?, content = ?, published = ?, updated_us = ? "
            "WHERE rowid = ?",
            (title, content, int(published), us, rowid),
        )
        if was_published:
            self._search.remove(rowid, old_title, old_content)
        if published:
            self._search.add(rowid, title, content)
        return us, self._append_event(kb_id, type_, article_id, us, actor)

    def _rowid_range(self, kb_id: str) -> tuple[int, int]:
        """The KB's article rowids, first and last possible; fixed once the KB exists."""
        if kb_id not in self._rowid_ranges:
            row = self._db.execute("SELECT kb_no FROM kbs WHERE kb_id = ?", (kb_id,)).fetchone()
            if row is None:
                raise StoreError(f"no knowledge base {kb_id!r}")
            first = row[0] << KB_ROWID_BITS
            self._rowid_ranges[kb_id] = (first, first + (1 << KB_ROWID_BITS) - 1)
        return self._rowid_ranges[kb_id]
