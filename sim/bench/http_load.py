"""`serve --http` under load, beside its floor: 1, 10, 50 and 200 concurrent clients over
loopback, each its own 2025-era session, each doing the study's call mix for a fixed time.

The mix is the study's own: the share of each tool among every call of the reproduction
(results/tool_calls.csv; reads and searches dominate, a few polls, the CAS experiments'
edits). A client reads an article of its own and edits it with the version it read, so an
edit is a real compare-and-swap save; a search asks for a query of the study's kind; a poll
asks from the head. The floor is the same SDK's minimal server (``http_floor.py``) taking
the same calls on the same number of clients: it echoes, so the gap is what this server's
store, grants and screening cost. Each is measured answering POSTs in SSE (the SDK's
default) and in JSON (``--http-json``; the floor's ``--json``), so each way is compared
with its own floor. Calls/s, p50 and p99 latency, errors (an HTTP status other than 200, a
JSON-RPC error, or a tool refusal), the server's CPU a call and its RSS at the end of each
level. Every server is one process, one uvicorn worker: on one core each, with the load
generator (this process, HTTP/1.1 on asyncio streams: ``http_wire.py``) on the same
machine; what it costs a call is the "load CPU" column.

Run alone: ``python -m sim.bench.http_load`` prints the table (about two minutes).
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import anyio

from sim.bench import http_raw as raw
from sim.bench.http_process import HttpServer
from sim.bench.http_report import MODES, table
from sim.bench.http_wire import Connection, WireError, WireResponse
from sim.corpus import KB_ID

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = (1, 10, 50, 200)
LEVEL_S = 4.0
ARTICLES = 400
TOOL_CALLS = ROOT / "results" / "tool_calls.csv"
CYCLE = 20
"""Calls in one client's repeating cycle, apportioned to the mix."""
FLOOR = [sys.executable, "-m", "sim.bench.http_floor"]
SERVE = [sys.executable, "-m", "sim", "serve"]


def study_mix(path: Path = TOOL_CALLS) -> dict[str, float]:
    """Each tool's share of the reproduction's calls (results/tool_calls.csv)."""
    totals: dict[str, int] = {}
    with path.open() as f:
        for row in csv.DictReader(f):
            totals[row["tool"]] = totals.get(row["tool"], 0) + int(row["calls"])
    n = sum(totals.values())
    return {tool: calls / n for tool, calls in sorted(totals.items())}


def cycle_of(mix: dict[str, float], n: int = CYCLE) -> list[str]:
    """n calls in the mix's proportions (largest remainder; every tool at least once)."""
    counts = {t: max(1, int(share * n)) for t, share in mix.items()}
    by_remainder = sorted(mix, key=lambda t: mix[t] * n - int(mix[t] * n), reverse=True)
    for t in itertools.islice(itertools.cycle(by_remainder), max(0, n - sum(counts.values()))):
        counts[t] += 1
    order = sorted(mix, key=mix.__getitem__, reverse=True)
    return [t for t in order for _ in range(counts[t])]


class Client:
    """One session doing the cycle; each call's latency, and what went wrong."""

    def __init__(self, url: str, i: int, run: str) -> None:
        self.wire, self.i, self.run_id = Connection(url), i, run
        self.article = f"art-{1 + i % ARTICLES:05d}"
        self.version = "2000-01-01T00:00:00Z"
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.session = ""
        self.next_id = itertools.count(1)

    async def open(self) -> None:
        try:
            await self._open()
        except (WireError, KeyError) as e:  # counted; the client then makes no calls
            self.errors.append(f"initialize: {type(e).__name__} {e}")

    async def _open(self) -> None:
        r = await self.wire.post(raw.initialize(), raw.headers())
        self.session = r.headers[raw.SESSION]
        await self.wire.post(raw.INITIALIZED, raw.headers(session=self.session))

    async def close(self) -> None:
        if self.session:
            with contextlib.suppress(WireError):
                await self.wire.delete(raw.headers(session=self.session))
        await self.wire.close()

    def arguments(self, tool: str, n: int) -> dict[str, Any]:
        read = {"knowledge_base_id": KB_ID, "article_id": self.article}
        if tool == "search_knowledge_base":
            return {
                "knowledge_base_id": KB_ID,
                "query": ("reset password", "export invoice")[n % 2],
            }
        if tool == "poll_resource_events":
            return {"resource_type": "knowledge_base", "resource_id": KB_ID, "limit": 10}
        if tool == "edit_knowledge_article":
            key = f"{self.run_id}-c{self.i}-{n}"  # a key is never reused across runs
            return {
                **read,
                "content": f"Body {key}.",
                "expected_version": self.version,
                "idempotency_key": key,
            }
        return read

    async def run(self, tools: list[str], until: float) -> None:
        if not self.session:
            return
        for n, tool in enumerate(itertools.cycle(tools)):
            if time.perf_counter() >= until:
                return
            message = {
                "jsonrpc": "2.0",
                "id": next(self.next_id),
                "method": "tools/call",
                "params": {"name": tool, "arguments": self.arguments(tool, n)},
            }
            t = time.perf_counter()
            try:
                r = await self.wire.post(message, raw.headers(session=self.session))
            except WireError as e:  # counted, as a client would see it
                self.errors.append(
                    f"{tool}: {type(e).__name__} after {time.perf_counter() - t:.1f} s"
                )
                continue
            self.latencies.append(time.perf_counter() - t)
            self._check(r, tool)

    def _check(self, r: WireResponse, tool: str) -> None:
        answer = raw.answer(r) if r.status_code == 200 else None
        if answer is None or "error" in answer:
            self.errors.append(f"{tool}: HTTP {r.status_code} {r.text[:120]}")
            return
        result = answer["result"]
        structured = result.get("structuredContent") or {}
        if result.get("isError"):
            self.errors.append(f"{tool}: {structured.get('error', {}).get('code')}")
        elif "updated_at" in structured:  # a read or a save: the version the next edit sends
            self.version = structured["updated_at"]


async def level(url: str, clients: int, tools: list[str], seconds: float) -> dict[str, Any]:
    run = uuid.uuid4().hex[:12]  # this level's run, in its edits' idempotency keys
    pool = [Client(url, i, run) for i in range(clients)]
    async with anyio.create_task_group() as tg:
        for c in pool:
            tg.start_soon(c.open)
    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for c in pool:
            tg.start_soon(c.run, tools, started + seconds)
    wall = time.perf_counter() - started
    async with anyio.create_task_group() as tg:
        for c in pool:
            tg.start_soon(c.close)
    latencies = sorted(x for c in pool for x in c.latencies)
    errors = [e for c in pool for e in c.errors]
    return {
        "clients": clients,
        "wall_s": wall,
        "calls": len(latencies),
        "calls_per_s": len(latencies) / wall,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
        "errors": len(errors),
        "first_error": errors[0] if errors else "",
    }


def measure(
    clients: tuple[int, ...] = CLIENTS,
    seconds: float = LEVEL_S,
    mix: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Each level on each server in turn (this one and the floor, each answering in SSE and
    in JSON), all four started once: a level's rows are seconds apart, so they share the
    machine's load."""
    mix = study_mix() if mix is None else mix
    tools = cycle_of(mix)
    out: dict[str, Any] = {"mix": mix, "cycle": tools, "level_s": seconds, "articles": ARTICLES}
    out["load_average_before"] = os.getloadavg()[0]  # the machine's other work, said beside
    kb = [*SERVE, "--http", "0", "--articles", str(ARTICLES), "--max-sessions", "1000"]
    commands = {}
    for kb_key, floor_key, _, flag in MODES:
        commands[kb_key] = [*kb, *flag]
        commands[floor_key] = [*FLOOR, *(["--json"] if flag else [])]
    with contextlib.ExitStack() as stack:
        servers = {
            key: stack.enter_context(HttpServer(command, cwd=ROOT, http=False))
            for key, command in commands.items()
        }
        for name in servers:
            out[name] = []
        for n in clients:
            for name, server in servers.items():
                server_cpu, own_cpu = server.cpu_s(), time.process_time()
                row = anyio.run(level, server.url, n, tools, seconds)
                wall = row.pop("wall_s")
                row["server_cpu_ms_per_call"] = (
                    1000 * (server.cpu_s() - server_cpu) / max(1, row["calls"])
                )
                row["server_cpu_share"] = (server.cpu_s() - server_cpu) / wall
                row["client_cpu_share"] = (time.process_time() - own_cpu) / wall
                row["server_rss_mib"] = server.rss_kb() / 1024
                print(name, row, file=sys.stderr, flush=True)
                out[name].append(row)
        for server in servers.values():
            assert "Traceback" not in server.stderr(), server.stderr()[-2_000:]
    out["load_average_after"] = os.getloadavg()[0]
    return out


if __name__ == "__main__":
    result = measure()
    print(table(result))
    for kb_key, floor_key, _answered, _flags in MODES:
        for name in (kb_key, floor_key):
            for row in result[name]:
                if row["first_error"]:
                    print(name, row["clients"], row["first_error"])
