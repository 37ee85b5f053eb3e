"""`make bench`: how long the study takes, and where the time goes.

Every figure is a median over repeated runs with its min and max: these machines
are noisy. Results go to results/bench.json and a table in the README.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import resource
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from sim.corpus import load
from sim.experiments import EXPERIMENTS, WRITEUP_SEEDS, experiment_params, run_study
from sim.kb.store import KBStore
from sim.kb.tools import KBServer, Session, ToolResult
from sim.model.day import KB_ID, Day
from sim.params import Params
from sim.reproduce import build_tables

Op = tuple[int, str, str, tuple, dict]
"""(clock µs, kind, name, positional args, keyword args) of one KB operation."""


def _spread(values: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "runs": len(values),
    }


def _timed(fn: Callable[[], object], repeats: int) -> dict[str, dict[str, float]]:
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return {"wall_s": _spread(wall), "cpu_s": _spread(cpu)}


# -- 1. the seeds 1–5 reproduction ------------------------------------------------------------
def reproduction(repeats: int) -> dict[str, Any]:
    def run() -> None:
        frames = run_study(Params(), WRITEUP_SEEDS, EXPERIMENTS, workers=1, progress=False)
        build_tables(Params(), frames)

    return _timed(run, repeats)


# -- 2 and 3. a day against the replay of its KB operations -------------------------------------
class _RecordingSession(Session):
    def call(self, name: str, arguments: Any) -> ToolResult:
        self.server.ops.append((self.server.clock(), "tool", name, (self.client_id,), arguments))
        return super().call(name, arguments)


class _RecordingServer(KBServer):
    ops: list[Op]

    def connect(self, client_id: str, grants: Any) -> Session:
        return _RecordingSession(self, client_id, frozenset(grants))


class _RecordingStore(KBStore):
    ops: list[Op]

    def save(self, *args: Any, **kwargs: Any) -> int:
        self.ops.append((self._clock(), "human", "save", args, kwargs))
        return super().save(*args, **kwargs)

    def set_published(self, *args: Any, **kwargs: Any) -> int:
        self.ops.append((self._clock(), "human", "set_published", args, kwargs))
        return super().set_published(*args, **kwargs)


class _RecordingDay(Day):
    store_class = _RecordingStore
    server_class = _RecordingServer

    def __init__(self, params: Params, seed: int) -> None:
        ops: list[Op] = []
        _RecordingStore.ops = _RecordingServer.ops = ops
        super().__init__(params, seed)
        self.ops = ops


def _replay(day: _RecordingDay) -> tuple[float, dict[str, list[float]]]:
    """Apply the day's KB operations to a fresh copy of its corpus, in order, at their
    simulated instants: no SimPy, no agent logic, no oracle."""
    now = [0]
    store = KBStore(lambda: now[0])
    load(store, KB_ID, day.specs)
    server = KBServer(store, lambda: now[0])
    sessions: dict[str, Session] = {}
    per_op: dict[str, list[float]] = defaultdict(list)
    started = time.perf_counter()
    for at, kind, name, args, kwargs in day.ops:
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
    return time.perf_counter() - started, per_op


def day_versus_replay(repeats: int, seed: int = 1) -> dict[str, Any]:
    days, replays = [], []
    per_op: dict[str, list[float]] = defaultdict(list)
    for _ in range(repeats):
        day = _RecordingDay(Params(), seed)
        t = time.perf_counter()
        day.run()
        days.append(time.perf_counter() - t)
        elapsed, ops = _replay(day)
        replays.append(elapsed)
        for k, v in ops.items():
            per_op[k].extend(v)
    ratios = [d / r for d, r in zip(days, replays, strict=True)]
    return {
        "day_s": _spread(days),
        "replay_s": _spread(replays),
        "ratio": _spread(ratios),
        "kb_operations": len(day.ops),
        "per_call_us": {
            k: {"median": 1e6 * statistics.median(v), "calls": len(v)}
            for k, v in sorted(per_op.items())
        },
    }


# -- the MCP protocol's cost -------------------------------------------------------------------
def mcp_overhead(repeats: int, seed: int = 1) -> dict[str, Any]:
    """The same staleness day with in-process calls and with every call over MCP."""
    direct, over_mcp = [], []
    calls = 0
    for _ in range(repeats):
        for transport, out in (("direct", direct), ("mcp", over_mcp)):
            t = time.perf_counter()
            result = Day(replace(Params(), transport=transport), seed).run()
            out.append(time.perf_counter() - t)
            calls = len(result.calls)
    extra = [(m - d) / calls * 1e6 for d, m in zip(direct, over_mcp, strict=True)]
    return {
        "direct_day_s": _spread(direct),
        "mcp_day_s": _spread(over_mcp),
        "tool_calls": calls,
        "overhead_us_per_call": _spread(extra),
    }


# -- 4. scaling ---------------------------------------------------------------------------------
def _scaled_day(factor: int, queue: multiprocessing.Queue) -> None:
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    p = replace(
        experiment_params(Params(), "cas"),
        n_articles=400 * factor,
        n_questions=120 * factor,
        n_saves=300 * factor,
    )
    t = time.perf_counter()
    day = Day(p, 1)
    setup = time.perf_counter() - t
    result = day.run()
    wall = time.perf_counter() - t
    (pages,) = day.store._db.execute("PRAGMA page_count").fetchone()
    (page_size,) = day.store._db.execute("PRAGMA page_size").fetchone()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    by_tool: dict[str, list[int]] = defaultdict(list)
    for c in result.calls:
        by_tool[c.tool].append(c.wall_us)
    queue.put(
        {
            "factor": factor,
            "articles": p.n_articles,
            "questions": p.n_questions,
            "saves": p.n_saves,
            "setup_s": setup,
            "day_s": wall,
            "tool_calls": len(result.calls),
            "us_per_call_median": {k: statistics.median(v) for k, v in sorted(by_tool.items())},
            "peak_rss_mib": peak / 1024,
            "rss_growth_mib": (peak - base) / 1024,
            "kb_database_mib": pages * page_size / 2**20,
        }
    )


def scaling(factors: tuple[int, ...]) -> list[dict[str, Any]]:
    """Each size in a fresh process, so peak RSS is that day's own."""
    ctx = multiprocessing.get_context("fork")
    rows = []
    for f in factors:
        queue = ctx.Queue()
        proc = ctx.Process(target=_scaled_day, args=(f, queue))
        proc.start()
        rows.append(queue.get())
        proc.join()
    return rows


# -- 5. sweep throughput -------------------------------------------------------------------------
def sweep_throughput(seeds: int) -> dict[str, Any]:
    workers = os.cpu_count() or 1
    t = time.perf_counter()
    run_study(Params(), list(range(1, seeds + 1)), EXPERIMENTS, workers=workers, progress=False)
    wall = time.perf_counter() - t
    days = seeds * len(EXPERIMENTS)
    return {"workers": workers, "days": days, "wall_s": wall, "days_per_s": days / wall}


def run_all(
    repeats: int = 5, factors: tuple[int, ...] = (1, 10, 100), sweep_seeds: int = 20
) -> dict[str, Any]:
    return {
        "machine": {
            "python": platform.python_version(),
            "processor": platform.machine(),
            "cores": os.cpu_count(),
        },
        "reproduction_seeds_1_5": reproduction(repeats),
        "day_versus_replay": day_versus_replay(repeats),
        "mcp": mcp_overhead(repeats),
        "scaling": scaling(factors),
        "sweep": sweep_throughput(sweep_seeds),
    }


def readme_table(b: dict[str, Any]) -> str:
    r, d, s = b["reproduction_seeds_1_5"], b["day_versus_replay"], b["sweep"]
    per = d["per_call_us"]
    lines = [
        "| measure | median | min – max |",
        "|---|---|---|",
        f"| seeds 1–5 reproduction, one process, wall | {r['wall_s']['median']:.2f} s "
        f"| {r['wall_s']['min']:.2f} – {r['wall_s']['max']:.2f} s |",
        f"| seeds 1–5 reproduction, CPU | {r['cpu_s']['median']:.2f} s "
        f"| {r['cpu_s']['min']:.2f} – {r['cpu_s']['max']:.2f} s |",
        f"| one day / replay of its KB operations | {d['ratio']['median']:.2f} "
        f"| {d['ratio']['min']:.2f} – {d['ratio']['max']:.2f} |",
    ]
    lines += [
        f"| {k}, µs per call | {v['median']:.0f} | {v['calls']} calls |" for k, v in per.items()
    ]
    o = b["mcp"]["overhead_us_per_call"]
    lines.append(
        f"| MCP protocol overhead, µs per call | {o['median']:.0f} "
        f"| {o['min']:.0f} – {o['max']:.0f} |"
    )
    for row in b["scaling"]:
        tools = ", ".join(
            f"{k.split('_')[0]} {v:.0f}" for k, v in row["us_per_call_median"].items()
        )
        lines.append(
            f"| ×{row['factor']} day ({row['articles']:,} articles), CAS run | "
            f"{row['day_s']:.1f} s | µs/call: {tools}; peak RSS {row['peak_rss_mib']:.0f} MiB, "
            f"KB {row['kb_database_mib']:.1f} MiB |"
        )
    lines.append(
        f"| sweep throughput, {s['workers']} processes | {s['days_per_s']:.2f} days/s "
        f"| {s['days']} days |"
    )
    m = b["machine"]
    lines += [
        "",
        f"Measured by `make bench` on {m['cores']} cores ({m['processor']}), Python {m['python']}.",
    ]
    return "\n".join(lines)


def main(out: Path, readme_path: Path | None, repeats: int, factors: tuple[int, ...]) -> None:
    from sim.report import readme

    b = run_all(repeats, factors)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(b, indent=2) + "\n")
    if readme_path is not None:
        readme.update(readme_path, "bench", readme_table(b))
