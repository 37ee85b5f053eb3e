"""The human editor `serve --human-edits-per-minute` runs beside the server (stdio or
HTTP): Zipf-popular published articles saved at Poisson times on the wall clock, as people
in the editor app would, so staleness can be watched live."""

from __future__ import annotations

import sqlite3
import sys
import time

import anyio
import numpy as np

from sim.corpus import KB_ID
from sim.kb.faults import store_fault
from sim.kb.store import KBStore
from sim.popularity import zipf_weights

NO_ARTICLE_WAIT_S = 5.0
"""How long the editor waits before looking again when no article is published."""


def wall_clock_us() -> int:
    return time.time_ns() // 1000


def _say(text: str) -> None:
    print(f"human editor: {text}", file=sys.stderr, flush=True)


async def human_editor(store: KBStore, edits_per_minute: float, seed: int) -> None:
    """Saves Zipf-popular published articles at Poisson times, as people in the editor would.

    It never stops the server: with nothing published it says so and waits; a save the file
    refuses (read-only, damaged, full) stops the editor alone, with one line on stderr, and
    a lock held by another process skips that save."""
    draws = np.random.default_rng(seed)
    try:
        ids = store.article_ids(KB_ID)
    except sqlite3.Error as e:
        _say(f"did not start; the server goes on serving. {store_fault(e, store.path).message}")
        return
    weights = zipf_weights(len(ids), 0.9)[draws.permutation(len(ids))] if ids else np.empty(0)
    waiting = False
    while True:
        await anyio.sleep(draws.exponential(60.0 / edits_per_minute))
        try:
            saved = _save_one(store, ids, weights, draws)
        except sqlite3.Error as e:
            fault = store_fault(e, store.path)
            if fault.code == "kb_busy":  # another process's lock: try again at the next save
                _say(f"skipped a save: {fault.message}")
                continue
            _say(f"stopped; the server goes on serving. {fault.message}")
            return
        if saved is None:
            if not waiting:
                _say(f"no published article to edit; looking again every {NO_ARTICLE_WAIT_S:g} s")
            waiting = True
            await anyio.sleep(NO_ARTICLE_WAIT_S)
            continue
        waiting = False
        _say(f"saved {saved}")


def _save_one(
    store: KBStore, ids: list[str], weights: np.ndarray, draws: np.random.Generator
) -> str | None:
    """Save one Zipf-drawn published article; its id, or None when none is published."""
    hidden = set(store.unpublished_among(KB_ID, ids))
    published = [i for i, a in enumerate(ids) if a not in hidden]
    if not published:
        return None
    p = weights[published] / weights[published].sum()
    article_id = ids[published[draws.choice(len(published), p=p)]]
    current = store.article_state(KB_ID, article_id)
    stamp = time.strftime("%H:%M:%S", time.gmtime())
    store.save(KB_ID, article_id, f"{current.content}\n\nEdited in the editor app at {stamp}.")
    return article_id
