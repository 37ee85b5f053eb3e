"""`python -m sim log-report FILE`: the cost table of a session, from its call log alone.

The study computes its costs from the same lines, so a real agent's session connected
to `python -m sim serve --call-log FILE` can be set beside the simulated ones.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from sim.server.calllog import ToolCall, read_jsonl
from sim.server.describe import terminal


def _percentile(values: list[int], q: float) -> float:
    """The q-quantile by linear interpolation (numpy's default), in the values' unit."""
    if len(values) == 1:
        return float(values[0])
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def summarise(calls: list[ToolCall]) -> list[dict[str, Any]]:
    """One row per tool, then one for all tools: calls, characters, empties, refusals,
    and dispatch time p50/p95 in milliseconds."""
    groups: dict[str, list[ToolCall]] = defaultdict(list)
    for c in calls:
        groups[c.tool].append(c)
    rows = []
    for tool, group in [*sorted(groups.items()), ("all tools", calls)]:
        if not group:
            continue
        dispatch = [c.wall_us for c in group]
        rows.append(
            {
                "tool": tool,
                "calls": len(group),
                "chars": sum(c.result_chars for c in group),
                "chars_per_call": sum(c.result_chars for c in group) / len(group),
                "empty": sum(c.empty for c in group),
                "refused": sum(c.outcome != "ok" for c in group),
                "dispatch_ms_p50": _percentile(dispatch, 0.5) / 1000,
                "dispatch_ms_p95": _percentile(dispatch, 0.95) / 1000,
            }
        )
    return rows


def _cell(text: str) -> str:
    return terminal(text).replace("|", "\\|")


def render(rows: list[dict[str, Any]], path: Path) -> str:
    """The table for a terminal: the log's path and tool names escaped (``terminal``), as a
    log is a file anyone can write, and a tool name's ``|`` kept inside its cell."""
    if not rows:
        return f"{terminal(path)}: no tool calls logged."
    total = rows[-1]
    head = (
        f"{total['calls']:,} tool calls in {terminal(path)}, {total['chars']:,} characters sent "
        "to the client (text plus structured content); dispatch time is this machine's."
    )
    lines = [
        head,
        "",
        "| tool | calls | characters | per call | empty | refused | dispatch p50 | p95 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {_cell(r['tool'])} | {r['calls']:,} | {r['chars']:,} | {r['chars_per_call']:,.0f} | "
        f"{r['empty']:,} | {r['refused']:,} | {r['dispatch_ms_p50']:.2f} ms | "
        f"{r['dispatch_ms_p95']:.2f} ms |"
        for r in rows
    ]
    return "\n".join(lines)


def report(path: Path, as_json: bool = False) -> str:
    rows = summarise(read_jsonl(path))
    return json.dumps(rows, indent=2) if as_json else render(rows, path)
