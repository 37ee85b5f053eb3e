"""`python -m sim serve`: the simulated KB as an MCP server over stdio.

It serves a KB seeded with the study's synthetic corpus (or a SQLite file), on the
wall clock. With --human-edits-per-minute a background editor saves Zipf-popular
articles while a client is connected, so staleness can be watched live: read an
article, wait, poll events.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import numpy as np
from mcp.server.stdio import stdio_server

from sim.kb.mcp_server import build_server
from sim.kb.store import KBStore
from sim.kb.tools import KBServer
from sim.model.opening import KB_ID, open_kb
from sim.popularity import zipf_weights


def wall_clock_us() -> int:
    return time.time_ns() // 1000


def open_store(seed: int, n_articles: int, db: Path | None) -> KBStore:
    """The KB at db (created and seeded if new), or a seeded in-memory one."""
    store = KBStore(wall_clock_us, path=str(db) if db else ":memory:")
    if not store.kb_exists(KB_ID):
        open_kb(store, seed, n_articles)
    return store


async def human_editor(store: KBStore, edits_per_minute: float, seed: int) -> None:
    """Saves Zipf-popular articles at Poisson times, as people in the editor app would."""
    draws = np.random.default_rng(seed)
    ids = store.article_ids(KB_ID)
    weights = zipf_weights(len(ids), 0.9)[draws.permutation(len(ids))]
    while True:
        await anyio.sleep(draws.exponential(60.0 / edits_per_minute))
        article_id = ids[draws.choice(len(ids), p=weights)]
        current = store.article_state(KB_ID, article_id)
        stamp = time.strftime("%H:%M:%S", time.gmtime())
        store.save(KB_ID, article_id, f"{current.content}\n\nEdited in the editor app at {stamp}.")
        print(f"human edit: {article_id}", file=sys.stderr)


async def serve(seed: int, n_articles: int, db: Path | None, edits_per_minute: float) -> None:
    store = open_store(seed, n_articles, db)
    session = KBServer(store, wall_clock_us).connect("mcp-client", [KB_ID])
    server = build_server(session)
    async with stdio_server() as (read, write), anyio.create_task_group() as tg:
        if edits_per_minute > 0:
            tg.start_soon(human_editor, store, edits_per_minute, seed)
        await server.run(read, write, server.create_initialization_options())
        tg.cancel_scope.cancel()
