"""What push costs the server: a human save's time as the subscriptions held grow.

Each factor k connects k sessions, each subscribed to the same `per_session` articles
(about the distinct articles a day's agent cites), and times human saves of those
articles: every save commits, then fans out one notification per subscribed session,
each a line of the call log and a listener call. The session's transport is left out
(in-process listeners), so this is the KB server's own cost.
"""

from __future__ import annotations

import statistics
import time
from functools import partial
from typing import Any

from sim.bench.timing import spread
from sim.kb.store import KBStore
from sim.model.opening import DAY_START_US, KB_ID, open_kb
from sim.server import resources
from sim.server.tools import KBServer


def _hear(heard: list[int], _uri: str) -> None:
    heard[0] += 1


def fanout(
    factors: tuple[int, ...] = (0, 1, 10, 100),
    per_session: int = 150,
    saves: int = 300,
    repeats: int = 3,
) -> list[dict[str, Any]]:
    rows = []
    for k in factors:
        runs = []
        notified = 0
        for _ in range(repeats):
            clock = [DAY_START_US]

            def tick(clock: list[int] = clock) -> int:
                clock[0] += 1_000
                return clock[0]

            store = KBStore(tick)
            specs = open_kb(store, 1, max(per_session, 400))
            server = KBServer(store, tick)
            heard = [0]
            uris = [resources.uri(KB_ID, s.article_id) for s in specs[:per_session]]
            for i in range(k):
                session = server.connect(f"agent-{i}", [KB_ID])
                session.on_notification(partial(_hear, heard))
                for uri in uris:
                    session.subscribe(uri)
            times = []
            for j in range(saves):
                article = specs[j % per_session].article_id
                start = time.perf_counter_ns()
                store.save(KB_ID, article, f"Saved {j}.")
                times.append((time.perf_counter_ns() - start) / 1000)
            runs.append(statistics.median(times))
            notified = heard[0]
        rows.append(
            {
                "sessions": k,
                "subscriptions_held": k * per_session,
                "notifications_per_save": notified / saves,
                "us_per_save": spread(runs),
            }
        )
    return rows
