"""The bench's table in results/SPEED.md: every measured figure, median and range, the
scaling rows, the imported KB's timings, and which loops were timed again since."""

from __future__ import annotations

from typing import Any

from sim.bench import http_report
from sim.bench.targets import targets


def _range(x: dict[str, float], fmt: str, unit: str = "") -> str:
    return f"{x['median']:{fmt}}{unit} | {x['min']:{fmt}} – {x['max']:{fmt}}{unit}"


def _scaling_lines(row: dict[str, Any]) -> list[str]:
    x = f"×{row['factor']}"
    tools = ", ".join(f"{k.split('_')[0]} {v:.0f}" for k, v in row["us_per_call_median"].items())
    p, m = row["search_probe"], row["memory_mib"]
    kept = row["tool_calls"] + sum(row["records"].values())
    return [
        f"| {x} day ({row['articles']:,} articles), CAS run | {row['day_s']:.1f} s "
        f"| µs/call: {tools}; peak RSS {row['peak_rss_mib']:.0f} MiB, "
        f"KB {row['kb_database_mib']:.1f} MiB |",
        f"| {x} search probe: µs per search, per matching article | "
        f"{p['us_per_search']:.0f} µs | {p['matches_per_search']:,.0f} matches, "
        f"{p['us_per_match']:.2f} µs each |",
        f"| {x} memory: RSS growth at opening, over the day | "
        f"{m['opening_rss_growth']:.0f} MiB, {m['day_rss_growth']:.0f} MiB | "
        f"KB {m['opening_kb']:.1f} MiB at opening, +{m['day_kb_growth']:.1f} MiB over the "
        f"day; {kept:,} records kept |",
    ]


def readme_table(b: dict[str, Any]) -> str:
    r, d, s = b["reproduction_seeds_1_5"], b["day_versus_replay"], b["sweep"]
    floor = b["reproduction_kb_floor"]
    by_op = floor["seconds_by_operation"]
    search_s = by_op.get("search_knowledge_base", 0.0)
    lines = [
        "| measure | median | min – max |",
        "|---|---|---|",
        f"| seeds 1–5 reproduction, one process, wall | {_range(r['wall_s'], '.2f', ' s')} |",
        f"| seeds 1–5 reproduction, CPU | {_range(r['cpu_s'], '.2f', ' s')} |",
        f"| its KB work alone: replay of its {floor['kb_operations']:,} KB operations | "
        f"{_range(floor['replay_s'], '.2f', ' s')} |",
        f"| of which search (bm25 from the in-memory index) | {search_s:.2f} s "
        f"| {search_s / floor['replay_s']['median']:.0%} of the KB work |",
        f"| one day / replay of its KB operations | {_range(d['ratio'], '.2f')} |",
    ]
    lines += [
        f"| {k}, µs per call | {v['median']:.0f} | {v['calls']} calls |"
        for k, v in d["per_call_us"].items()
    ]
    o = b["mcp"]["overhead_us_per_call"]
    lines.append(f"| MCP protocol overhead, µs per call | {_range(o, '.0f')} |")
    for row in b["scaling"]:
        lines += _scaling_lines(row)
    lines.append(
        f"| sweep throughput, {s['workers']} processes | {s['days_per_s']:.2f} days/s "
        f"| {s['days']} days |"
    )
    if "stdio" in b:
        io = b["stdio"]
        lines += [
            "| `python -m sim serve`: start to the initialize answer | "
            f"{_range(io['cold_start_s'], '.2f', ' s')} |",
            f"| over stdio, {io['calls']:,} mixed tool calls pipelined, calls/s | "
            f"{_range(io['calls_per_s'], ',.0f')} |",
        ]
    for row in b.get("push_fanout", []):
        lines.append(
            f"| push: µs per human save, {row['sessions']} subscribed sessions "
            f"({row['subscriptions_held']:,} subscriptions held, "
            f"{row['notifications_per_save']:g} notifications a save) | "
            f"{_range(row['us_per_save'], '.0f')} |"
        )
    if "http_load" in b:
        lines += ["", http_report.table(b["http_load"])]
    lines += _imported_table(b)
    lines += ["", "| target | measured | met |", "|---|---|---|"]
    lines += [
        f"| {t['target']} | {t['measured']} | {'yes' if t['met'] else 'no'} |" for t in targets(b)
    ]
    m = b["machine"]
    lines += [
        "",
        "Measured by `make bench`"
        + (f" on {b['commit']}" if b.get("commit") else "")
        + f", {m['cores']} cores ({m['processor']}"
        + (f", {m['cpu']}, numpy's kernels up to {m['numpy_top_level']}" if "cpu" in m else "")
        + f"), Python {m['python']}.",
    ]
    if "retimed" in b:
        machines = b["retimed"].get("machines", {})
        by_run: dict[tuple[str, str], list[str]] = {}
        for name, commit in retimed_loops(b).items():
            other = machines.get(name)
            where = "" if other in (None, m) else f" ({_machine_text(other)})"
            by_run.setdefault((commit, where), []).append(f"`{name}`")
        again = "; ".join(f"{', '.join(n)} on {c}{w}" for (c, w), n in by_run.items())
        lines[-1] += (
            f" Timed again (`python -m sim bench --only`): {again};"
            " every other figure is from the last full bench."
        )
    return "\n".join(lines)


def _machine_text(m: dict[str, Any]) -> str:
    """A machine record in words: a retimed loop's, where it is not the full bench's."""
    return f"{m['cpu']}, numpy's kernels up to {m['numpy_top_level']}" if "cpu" in m else "?"


IMPORTED_STEPS = ("import", "advise --db, 2 days", "advise --db (precision loop)")


def _imported_table(b: dict[str, Any]) -> list[str]:
    """`import` and `advise --db` at a docs site's size (sim/bench/imported.py), if timed."""
    sites = [(n, b[f"import_advise_{n}"]) for n in (1_000, 10_000) if f"import_advise_{n}" in b]
    if not sites:
        return []
    lines = [
        "",
        "Your own KB at a docs site's size (a generated git repository, two commits an"
        " article): `import` is bounded by reading the history (`git log`, its blobs read"
        " by `git cat-file` as the log comes) and one write transaction;"
        " `advise --db --simulate 2` by"
        " the cost of a simulated day at that size; `advise --db` as a user runs it by the"
        " precision it asks for or its `--max-seconds` (25 s), whichever comes first.",
        "",
        "| articles | import | advise --db, 2 days | advise --db as run |",
        "|---|---|---|---|",
    ]
    for n, row in sites:
        step = {s["step"]: s for s in row["steps"]}
        cells = [
            f"{step[k]['wall_s']:.1f} s (CPU {step[k]['cpu_s']:.1f} s)" for k in IMPORTED_STEPS
        ]
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    return lines


def retimed_loops(bench: dict[str, Any]) -> dict[str, str]:
    """Each loop timed again since the last full bench, and the commit it was timed on (an
    older file kept one commit for all of them)."""
    r = bench.get("retimed", {})
    if isinstance(r.get("loops"), list):
        return dict.fromkeys(r["loops"], r["commit"])
    return dict(r.get("loops", {}))
