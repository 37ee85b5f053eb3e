"""Push across processes: the event log of a shared ``--db`` file, followed.

A store's listeners hear of the changes committed through it alone; a save made by another
process on the same SQLite file (another ``serve``, an editor, a script) reaches this
process's subscribers only through the file. ``follow_log`` reads the event log from the
head it found at start, every ``every_s`` seconds, and hands each event this process did
not commit itself to the server's subscriptions, so every subscribed session hears of it
as of a local save; `serve --db` runs it on stdio and over HTTP alike. (Search and read need
no follower: the store takes in another connection's commits by itself at the next call,
``StoreCore._sync``.) The log is the durable change feed: a client whose stream dropped
polls from its own cursor (poll_resource_events), since nothing is replayed to it.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING

import anyio

from sim.kb.rows import Change
from sim.kb.store import KBStore

if TYPE_CHECKING:  # the server's modules load after its flags are checked (serve.py)
    from sim.server.tools import KBServer

PAGE = 500
DEFAULT_FOLLOW_S = 0.25
"""How often a server on a --db file reads the event log: the most a subscriber waits,
past the commit, to hear of another process's save (stdio and HTTP alike)."""
_log = logging.getLogger(__name__)


async def follow_log(store: KBStore, kb: KBServer, kb_ids: list[str], every_s: float) -> None:
    """Runs until cancelled; a busy or failing file skips a round (said once on stderr),
    the first one too (an import holding the file as the server starts)."""
    local: set[tuple[str, int]] = set()
    store.add_listener(lambda change: local.add((change.kb_id, change.sequence)))
    cursors: dict[str, int] = {}
    failing = False
    while True:
        try:
            for kb_id in kb_ids:
                if kb_id not in cursors:  # followed from the head found first
                    cursors[kb_id] = store.events_after(kb_id, 0, 1).head_sequence
                else:
                    cursors[kb_id] = _catch_up(store, kb, kb_id, cursors[kb_id], local)
        except sqlite3.Error as e:
            if not failing:
                _log.warning("following the event log paused: %s", e)
            failing = True
        else:
            failing = False
        await anyio.sleep(every_s)


def _catch_up(
    store: KBStore, kb: KBServer, kb_id: str, cursor: int, local: set[tuple[str, int]]
) -> int:
    while True:
        page = store.events_after(kb_id, cursor, PAGE)
        for event in page.events:
            if (kb_id, event.sequence) in local:
                local.discard((kb_id, event.sequence))
            else:
                kb.changed(Change(kb_id, event.sequence, event.type, event.article_id))
        cursor = page.events[-1].sequence if page.events else max(cursor, page.head_sequence)
        if len(page.events) < PAGE:
            return cursor
