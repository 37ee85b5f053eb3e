"""`serve --http` under load, beside its floor: 1, 10, 50 and 200 concurrent clients over
loopback, each its own 2025-era session, each doing the study's call mix for a fixed time.

The mix is the study's own: the share of each tool among every call of the reproduction
(results/tool_calls.csv; reads and searches dominate, a few polls, the CAS experiments'
edits). A client reads an article of its own and edits it with the version it read, so an
edit is a real compare-and-swap save; a search asks for a query of the study's kind; a poll
asks from the head. The floor is the same SDK's minimal server (``http_floor.py``) taking
the same calls on the same number of clients: it echoes, so the gap is what this server's
store, grants and screening cost. Calls/s, p50 and p99 latency, errors (an HTTP status other
than 200, a JSON-RPC error, or a tool refusal) and the server's RSS at the end of each
level. Both servers are one process, one uvicorn worker: on one core each, with the load
generator (this process) on the same machine.

Run alone: ``python -m sim.bench.http_load`` prints the table (about a minute).
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2

from sim.bench import http_raw as raw
from sim.bench.http_process import HttpServer
from sim.model.opening import KB_ID

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = (1, 10, 50, 200)
LEVEL_S = 4.0
ARTICLES = 400
TOOL_CALLS = ROOT / "results" / "tool_calls.csv"
CYCLE = 20
"""Calls in one client's repeating cycle, apportioned to the mix."""
FLOOR = [sys.executable, "-m", "sim.bench.http_floor"]
SERVE = [sys.executable, "-m", "sim", "serve"]
TARGET_CLIENTS = 50
TARGET_FLOOR_RATIO = 0.9
TARGET_P99_MS = 100.0


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
    order = sorted(mix, key=mix.get, reverse=True)  # type: ignore[arg-type]
    return [t for t in order for _ in range(counts[t])]


class Client:
    """One session doing the cycle; each call's latency, and what went wrong."""

    def __init__(self, http: httpx2.AsyncClient, url: str, i: int, level: int) -> None:
        self.http, self.url, self.i, self.level = http, url, i, level
        self.article = f"art-{1 + i % ARTICLES:05d}"
        self.version = "2000-01-01T00:00:00Z"
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.session = ""
        self.next_id = itertools.count(1)

    async def open(self) -> None:
        try:
            await self._open()
        except (httpx2.HTTPError, KeyError) as e:  # counted; the client then makes no calls
            self.errors.append(f"initialize: {type(e).__name__} {e}")

    async def _open(self) -> None:
        r = await self.http.post(self.url, json=raw.initialize(), headers=raw.headers())
        self.session = r.headers[raw.SESSION]
        await self.http.post(
            self.url, json=raw.INITIALIZED, headers=raw.headers(session=self.session)
        )

    async def close(self) -> None:
        if self.session:
            with contextlib.suppress(httpx2.HTTPError):
                await self.http.delete(self.url, headers=raw.headers(session=self.session))

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
            key = f"l{self.level}-c{self.i}-{n}"  # a key is never reused across levels
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
                r = await self.http.post(
                    self.url, json=message, headers=raw.headers(session=self.session)
                )
            except httpx2.HTTPError as e:  # counted, as a client would see it
                self.errors.append(
                    f"{tool}: {type(e).__name__} after {time.perf_counter() - t:.1f} s"
                )
                continue
            self.latencies.append(time.perf_counter() - t)
            self._check(r, tool)

    def _check(self, r: httpx2.Response, tool: str) -> None:
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
    limits = httpx2.Limits(max_connections=clients + 5, max_keepalive_connections=clients + 5)
    async with httpx2.AsyncClient(limits=limits, timeout=60) as http:
        pool = [Client(http, url, i, clients) for i in range(clients)]
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


MODES = (("kb", "floor", "SSE", []), ("kb_json", "floor_json", "JSON", ["--http-json"]))
"""(this server's key, the floor's key, how each POST is answered, serve's flag): the SDK's
default SSE stream, and one JSON body (`serve --http-json`, the floor's --json)."""


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


def _load_average(load: dict[str, Any]) -> str:
    before, after = load.get("load_average_before"), load.get("load_average_after")
    if before is None or after is None:
        return ""
    return f"; the machine's 1-minute load average {before:.1f} before, {after:.1f} after"


def _modes(load: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The (this server, floor, answers) pairs the run measured (an older run: SSE alone)."""
    return [(kb, floor, how) for kb, floor, how, _ in MODES if kb in load and floor in load]


def table(load: dict[str, Any]) -> str:
    """The levels beside the floor, under a sentence that says what was run and the target."""
    lines = [
        f"`serve --http` under load over loopback: each client its own 2025-era session doing "
        f"the study's call mix for {load['level_s']:g} s, back to back (no think time, so "
        "latency is about clients ÷ calls/s), on this server and on the SDK's own echo server "
        "(the floor), each answering POSTs in SSE (the default) and in JSON (`--http-json`), "
        f"a level's rows seconds apart in the same run{_load_average(load)}. Target at "
        f"{TARGET_CLIENTS} clients: ≥ {TARGET_FLOOR_RATIO:g}× the floor's calls/s, p99 < "
        f"{TARGET_P99_MS:g} ms; errors 0 at every level. Server CPU a call includes opening "
        "and closing the sessions; on its one core a server answers at most 1,000 ÷ that "
        "many calls a second, which with latency ≈ clients ÷ calls/s is what bounds p99.",
        "",
        "| clients | server | answers | calls/s | p50 ms | p99 ms | errors | RSS MiB "
        "| server CPU | CPU ms a call | load CPU | ×floor |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    modes = _modes(load)
    for i, first in enumerate(load["kb"]):
        for kb_key, floor_key, how in modes:
            kb, floor = load[kb_key][i], load[floor_key][i]
            for name, row in (("this KB", kb), ("SDK echo floor", floor)):
                ratio = (
                    f"{kb['calls_per_s'] / floor['calls_per_s']:.2f}" if name == "this KB" else ""
                )
                cpu = row.get("server_cpu_ms_per_call")
                lines.append(
                    f"| {first['clients']} | {name} | {how} | {row['calls_per_s']:,.0f} "
                    f"| {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['errors']} "
                    f"| {row['server_rss_mib']:.0f} | {row['server_cpu_share']:.0%} "
                    f"| {'' if cpu is None else f'{cpu:.2f}'} | {row['client_cpu_share']:.0%} "
                    f"| {ratio} |"
                )
    return "\n".join(lines)


def targets(load: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets at 50 clients in each way of answering, and no error at any
    level of either."""
    rows = []
    for kb_key, floor_key, how in _modes(load):
        kb = {row["clients"]: row for row in load[kb_key]}
        floor = {row["clients"]: row for row in load[floor_key]}
        if TARGET_CLIENTS not in kb:
            continue
        at, base = kb[TARGET_CLIENTS], floor[TARGET_CLIENTS]
        ratio = at["calls_per_s"] / base["calls_per_s"]
        what = f"`serve --http`, {how}, {TARGET_CLIENTS} clients"
        bound = (
            f"; the server used {at['server_cpu_share']:.0%} of a core and the load "
            f"generator {at['client_cpu_share']:.0%}; back to back, p99 < "
            f"{TARGET_P99_MS:g} ms needs about {TARGET_CLIENTS / TARGET_P99_MS * 1000:,.0f} "
            "calls/s or more"
        )
        rows += [
            {
                "target": f"{what}: calls/s ≥ {TARGET_FLOOR_RATIO:g} × the SDK's echo floor",
                "measured": f"{ratio:.2f}× ({at['calls_per_s']:,.0f} against "
                f"{base['calls_per_s']:,.0f})" + bound,
                "met": ratio >= TARGET_FLOOR_RATIO,
            },
            {
                "target": f"{what}: p99 < {TARGET_P99_MS:g} ms",
                "measured": f"{at['p99_ms']:.0f} ms (p50 {at['p50_ms']:.0f} ms; the floor's "
                f"p99 {base['p99_ms']:.0f} ms)" + bound,
                "met": at["p99_ms"] < TARGET_P99_MS,
            },
        ]
    failed = [r for kb_key, _, _ in _modes(load) for r in load[kb_key] if r["errors"]]
    errors = sum(r["errors"] for r in failed)
    rows.append(
        {
            "target": "`serve --http`: no error at 1 to 200 clients",
            "measured": f"{errors} errors"
            + "".join(f"; {r['clients']} clients: {r['first_error']}" for r in failed),
            "met": errors == 0,
        }
    )
    return rows


def readme_line(load: dict[str, Any]) -> str:
    """One sentence for the README: the target level beside its floor in each way of
    answering, and the errors."""
    parts = []
    for kb_key, floor_key, how in _modes(load):
        kb = {row["clients"]: row for row in load[kb_key]}
        floor = {row["clients"]: row for row in load[floor_key]}
        at, base = kb[TARGET_CLIENTS], floor[TARGET_CLIENTS]
        parts.append(
            f"{how} {at['calls_per_s']:,.0f} calls/s, "
            f"{at['calls_per_s'] / base['calls_per_s']:.2f}× the SDK's echo server, p99 "
            f"{at['p99_ms']:.0f} ms"
        )
    errors = sum(r["errors"] for kb_key, _, _ in _modes(load) for r in load[kb_key])
    levels = ", ".join(str(row["clients"]) for row in load["kb"])
    return (
        f"Under load (`make bench`, loopback, one process, {TARGET_CLIENTS} clients; target "
        f"≥ {TARGET_FLOOR_RATIO:g}× the floor, p99 < {TARGET_P99_MS:g} ms): "
        + "; ".join(parts)
        + f"; {errors} errors at {levels} clients (results/SPEED.md)."
    )


if __name__ == "__main__":
    result = measure()
    print(table(result))
    for kb_key, floor_key, _, _ in MODES:
        for name in (kb_key, floor_key):
            for row in result[name]:
                if row["first_error"]:
                    print(name, row["clients"], row["first_error"])
