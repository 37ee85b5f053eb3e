"""A day against the replay of its KB operations: what the simulation adds to the work the
store and the tools must do anyway.

A recording day logs every tool call and human write with its simulated instant. The
replay applies them, in order, to a copy of the same opening store: no SimPy, no agent
logic, no oracle. Its final store equals the day's (tested), so it does the same work.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sim.bench.timing import spread
from sim.kb.store import KBStore
from sim.model.day import KB_ID, Day
from sim.model.opening import Opening
from sim.params import Params
from sim.server.edit import Gate
from sim.server.tools import HOST_APPROVAL, KBServer, Session, ToolResult
from sim.study.experiments import EXPERIMENTS, WRITEUP_SEEDS, experiment_params

Op = tuple[int, str, str, tuple, dict]
"""(clock µs, kind, name, positional args, keyword args) of one KB operation."""


class _RecordingSession(Session):
    server: _RecordingServer

    def call(self, name: str, arguments: Any, why_not_approved: str = "") -> ToolResult:
        self.server.ops.append((self.server.clock(), "tool", name, (self.client_id,), arguments))
        return super().call(name, arguments, why_not_approved)


class _RecordingServer(KBServer):
    ops: list[Op]

    def connect(
        self,
        client_id: str,
        grants: Iterable[str],
        gate: Gate = HOST_APPROVAL,
        edit_grants: Iterable[str] | None = None,
    ) -> Session:
        """As KBServer.connect, with a session that records its calls."""
        session = _RecordingSession(
            self, client_id, frozenset(grants), gate if self.write_gate else None
        )
        if edit_grants is not None:
            session.edit_grants = frozenset(edit_grants)
        return session


class _RecordingStore(KBStore):
    ops: list[Op]

    def save(self, *args: Any, **kwargs: Any) -> int:
        self.ops.append((self._clock(), "human", "save", args, kwargs))
        return super().save(*args, **kwargs)

    def set_published(self, *args: Any, **kwargs: Any) -> int:
        self.ops.append((self._clock(), "human", "set_published", args, kwargs))
        return super().set_published(*args, **kwargs)


class RecordingDay(Day):
    store_class = _RecordingStore
    server_class = _RecordingServer
    store: _RecordingStore
    server: _RecordingServer

    def __init__(self, params: Params, seed: int, opening: Opening) -> None:
        super().__init__(params, seed, opening)
        self.ops: list[Op] = []
        self.store.ops = self.server.ops = self.ops


def replay(opening: Opening, ops: list[Op]) -> tuple[float, dict[str, list[float]], KBStore]:
    """(seconds, seconds per operation by kind, the final store) of applying ops in order."""
    now = [0]
    store = KBStore.copy_of(opening.store, lambda: now[0])
    server = KBServer(store, lambda: now[0])
    sessions: dict[str, Session] = {}
    per_op: dict[str, list[float]] = defaultdict(list)
    started = time.perf_counter()
    for at, kind, name, args, kwargs in ops:
        now[0] = at
        t = time.perf_counter()
        if kind == "tool":
            client = args[0]
            session = sessions.get(client) or sessions.setdefault(
                client, server.connect(client, [KB_ID])
            )
            session.call(name, kwargs)
        else:
            getattr(store, name)(*args, **kwargs)
        per_op["human " + name if kind == "human" else name].append(time.perf_counter() - t)
    return time.perf_counter() - started, per_op, store


def day_versus_replay(repeats: int, seed: int = 1) -> dict[str, Any]:
    """The default staleness day, timed whole and as the replay of its KB operations."""
    days, replays = [], []
    per_op: dict[str, list[float]] = defaultdict(list)
    opening = Opening.build(seed, Params().n_articles)
    for _ in range(repeats):
        day = RecordingDay(Params(), seed, opening)
        t = time.perf_counter()
        day.run()
        days.append(time.perf_counter() - t)
        elapsed, ops, _ = replay(opening, day.ops)
        replays.append(elapsed)
        for k, v in ops.items():
            per_op[k].extend(v)
    ratios = [d / r for d, r in zip(days, replays, strict=True)]
    return {
        "day_s": spread(days),
        "replay_s": spread(replays),
        "ratio": spread(ratios),
        "kb_operations": len(day.ops),
        "per_call_us": {
            k: {"median": 1e6 * statistics.median(v), "calls": len(v)}
            for k, v in sorted(per_op.items())
        },
    }


def reproduction_floor(repeats: int) -> dict[str, Any]:
    """The KB work inside the seeds 1–5 reproduction: every day's operations replayed.

    No change to the simulator can make the reproduction faster than this without making
    the store or the tools do less."""
    days = []
    for seed in WRITEUP_SEEDS:
        opening = Opening.build(seed, Params().n_articles)
        for experiment in EXPERIMENTS:
            day = RecordingDay(experiment_params(Params(), experiment), seed, opening)
            day.run()
            days.append((opening, day.ops))
    totals: list[float] = []
    by_kind: dict[str, list[float]] = defaultdict(list)
    for _ in range(repeats):
        total = 0.0
        kinds: dict[str, float] = defaultdict(float)
        for opening, ops in days:
            elapsed, per_op, _ = replay(opening, ops)
            total += elapsed
            for k, seconds in per_op.items():
                kinds[k] += sum(seconds)
        totals.append(total)
        for k, v in kinds.items():
            by_kind[k].append(v)
    return {
        "replay_s": spread(totals),
        "kb_operations": sum(len(ops) for _, ops in days),
        "seconds_by_operation": {k: statistics.median(v) for k, v in sorted(by_kind.items())},
    }
