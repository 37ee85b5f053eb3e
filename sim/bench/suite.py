"""The whole suite: the reproduction and its KB floor, day against replay, MCP overhead,
scaling and sweep throughput; written to bench.json and the table in results/SPEED.md."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from sim import environment
from sim.bench import http_report
from sim.bench.loops import ALWAYS, LOOPS
from sim.bench.replay import day_versus_replay, reproduction_floor
from sim.bench.scaling import scaling
from sim.bench.stdio import cold_start, throughput
from sim.bench.subscriptions import fanout
from sim.bench.timing import spread, timed
from sim.model.day import Day
from sim.params import Params, Transport
from sim.results import rowfiles, seedrows
from sim.results.tables import build_tables
from sim.study.experiments import EXPERIMENTS, WRITEUP_SEEDS, run_study

STUDY_TABLES = (
    "per_seed",
    "staleness",
    "check_cost",
    "cas_by_delay",
    "cas_curve",
    "stale_over_day",
    "check_calls_by_check",
    "tool_calls",
)


def reproduction(repeats: int) -> dict[str, Any]:
    """The seeds 1–5 reproduction of the four runs (the staleness and CAS experiments'
    per-seed rows) and their tables, no figures, one process."""

    def run() -> None:
        rows: rowfiles.Rows = {}
        for e in seedrows.EXPERIMENTS[:2]:
            rows |= e.run(Params(), WRITEUP_SEEDS, 1, False)
        build_tables(Params(), rows, STUDY_TABLES)

    return timed(run, repeats)


def mcp_overhead(repeats: int, seed: int = 1) -> dict[str, Any]:
    """The same staleness day with in-process calls and with every call over MCP."""
    direct: list[float] = []
    over_mcp: list[float] = []
    arms: tuple[tuple[Transport, list[float]], ...] = (("direct", direct), ("mcp", over_mcp))
    calls = 0
    for _ in range(repeats):
        for transport, out in arms:
            t = time.perf_counter()
            result = Day(replace(Params(), transport=transport), seed).run()
            out.append(time.perf_counter() - t)
            calls = len(result.calls)
    extra = [(m - d) / calls * 1e6 for d, m in zip(direct, over_mcp, strict=True)]
    return {
        "direct_day_s": spread(direct),
        "mcp_day_s": spread(over_mcp),
        "tool_calls": calls,
        "overhead_us_per_call": spread(extra),
    }


def sweep_throughput(seeds: int) -> dict[str, Any]:
    workers = os.cpu_count() or 1
    t = time.perf_counter()
    run_study(Params(), list(range(1, seeds + 1)), EXPERIMENTS, workers=workers, progress=False)
    wall = time.perf_counter() - t
    days = seeds * len(EXPERIMENTS)
    return {"workers": workers, "days": days, "wall_s": wall, "days_per_s": days / wall}


def machine() -> dict[str, Any]:
    """What the timings were taken on: this project's machines of one kind differ in CPU
    model and vector units, and its timings with them, so both are named."""
    info: dict[str, str] = {}
    cpuinfo = Path("/proc/cpuinfo")
    for line in cpuinfo.read_text().splitlines() if cpuinfo.is_file() else []:
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    model = info.get("model name", "")
    if model and "model" in info:  # a virtual machine's name is often generic: its number
        model += f" (family {info.get('cpu family', '?')}, model {info['model']})"
    found = environment.cpu_features()["dispatched_found"]
    return {
        "python": platform.python_version(),
        "processor": platform.machine(),
        "cores": os.cpu_count(),
        "cpu": model or platform.processor(),
        "numpy_top_level": found[-1] if found else "baseline",
    }


def run_all(
    repeats: int = 5,
    factors: tuple[int, ...] = (1, 10, 100),
    sweep_seeds: int = 20,
    loops: bool = True,
) -> dict[str, Any]:
    timed_loops = {
        name: time_loop() for name, time_loop in LOOPS.items() if loops or name in ALWAYS
    }
    return {
        "machine": machine(),
        "reproduction_seeds_1_5": reproduction(repeats),
        "reproduction_kb_floor": reproduction_floor(repeats),
        "day_versus_replay": day_versus_replay(repeats),
        "mcp": mcp_overhead(repeats),
        "scaling": scaling(factors),
        "sweep": sweep_throughput(sweep_seeds),
        "stdio": {"cold_start_s": cold_start(repeats), **throughput(2_000, repeats=3)},
        "push_fanout": fanout(),
        **timed_loops,
    }


SWEEP_DAYS_PER_S_BEFORE = 6.4
"""Issue 13's starting point: simulated days a second on all cores."""
PEAK_RSS_X100_BEFORE_MIB = 302.2
"""Issue 13's starting point: peak RSS of the ×100 day, measured on the code before it
(e570f26) as scaling.py measures now, in a spawned process by its own high-water mark.
The 345 MiB the issue quotes came from a forked child's ru_maxrss, which also counted the
parent's pages."""


MAKE_TEST_BEFORE_S = 270.0
"""`make test` once installed before issue 23 (bench of b309cfa): its regression test
reran the whole study."""
MAKE_TEST_BEFORE_SPLIT_S = 560.0
"""pytest alone, in one process, on 4db5bcd (the study grown, the regression split into
rows, rebuild and sampled reruns; before pytest-xdist)."""
REPRODUCE_BEFORE_CPU_S = 2_034.0
"""`python -m sim reproduce` on 4db5bcd's parent (CPU seconds, before the study's days ran
in one pool)."""
ADVISE_5000_BEFORE_S = 38.0
"""Issue 23's starting point: the advisor at 5,000 articles, 36.5 s of it in two closed
forms (`theory.push_counts`, `theory.unnoticed_time`)."""


def _study_days(b: dict[str, Any]) -> str:
    """What bounds the reproduction: its days, what one costs, what the bound allows."""
    loop = b.get("make_reproduce", {})
    study = next((s for s in loop.get("steps", []) if s["step"] == "study"), None)
    days = loop.get("study_days")
    if not days or study is None or "cpu_s" not in study:
        return ""
    cores = b["machine"]["cores"]
    return (
        f". The study's first batches run {days:,} distinct days (each shared by every"
        f" experiment, reading and point that uses it) and the sequential rule's later batches"
        f" more, so a day costs under {study['cpu_s'] / days:.2f} CPU-s (its step's CPU, the"
        f" calibration, tables and figures included, over the first batches' days); 240 s on"
        f" {cores} cores holds {240 * cores / days:.2f} CPU-s a day for the first batches alone,"
        " even with no notebook"
    )


def _seconds(wall_s: float) -> str:
    """Two decimals under 10 s, so a 2.04 s loop does not read as meeting a 2 s bound."""
    return f"{wall_s:.2f}" if wall_s < 10 else f"{wall_s:.1f}"


def _runs(loop: dict[str, Any]) -> str:
    """'median of 5 runs, 1.4–2.0 s; ' for a loop timed several times, else ''."""
    walls = loop.get("runs_wall_s", [])
    if len(walls) < 2:
        return ""
    return f"median of {len(walls)} runs, {min(walls):.2f}–{max(walls):.2f} s; the median run: "


def targets(b: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 13's targets against the measured figures, each met or not."""
    rep = b["reproduction_seeds_1_5"]["wall_s"]["median"]
    floor = b["reproduction_kb_floor"]["replay_s"]["median"]
    rows = [
        {
            "target": "seeds 1–5 reproduction, computation only, ≤ 2.5 s",
            "measured": f"{rep:.2f} s; its KB work alone takes {floor:.2f} s",
            "met": rep <= 2.5,
        },
    ]
    for key, what, bound, why in (
        (
            "make_reproduce",
            "full `make reproduce` (study, then notebook) wall",
            240.0,
            f" (issue 23 asked for no slower than about 4 min after the study grew; on"
            f" 4db5bcd's parent the study alone took {REPRODUCE_BEFORE_CPU_S:,.0f} CPU-s)"
            + _study_days(b),
        ),
        (
            "reproduce_quick",
            "`python -m sim reproduce --quick` (every table and figure, marked quick) wall",
            90.0,
            "",
        ),
        (
            "make_test",
            "`make test` wall, once installed (ruff, import contracts, mypy, pytest)",
            120.0,
            f" (before issue 23: {MAKE_TEST_BEFORE_S:.0f} s; on 4db5bcd pytest alone, in one"
            f" process, took {MAKE_TEST_BEFORE_SPLIT_S:.0f} s)",
        ),
        (
            "make_check",
            "`make check` (the full fresh rerun, then the deep tests) wall",
            300.0,
            "",
        ),
        (
            "advise_5000",
            "`python -m sim advise` at 5,000 articles wall",
            2.0,
            f" (before: {ADVISE_5000_BEFORE_S:.0f} s)",
        ),
        ("advise_50000", "`python -m sim advise` at 50,000 articles wall", 10.0, ""),
        (
            "calibrate_4m",
            "`python -m sim calibrate` on a generated 4 M-row log wall",
            120.0,
            "",
        ),
        (
            "calibrate_long_400k",
            "`python -m sim calibrate` on the shared log repeated to 400,000 rows (288 articles,"
            " long histories) wall",
            25.0,
            "",
        ),
        (
            "advise_edit_log",
            "`python -m sim advise --edit-log` on the shared log wall (issue 35)",
            30.0,
            "",
        ),
    ):
        if key in b:
            loop = b[key]
            rows.append(
                {
                    "target": f"{what} ≤ {bound:g} s",
                    "measured": f"{_seconds(loop['wall_s'])} s ("
                    + _runs(loop)
                    + ", ".join(
                        f"{s['step']} {_seconds(s['wall_s'])} s, CPU "
                        f"{s.get('cpu_s', float('nan')):.1f} s"
                        for s in loop["steps"]
                    )
                    + ")"
                    + (
                        f"; peak memory {loop['peak_rss_mb']:,.0f} MB"
                        if "peak_rss_mb" in loop
                        else ""
                    )
                    + ("" if loop["passed"] else "; FAILED")
                    + ("" if loop["wall_s"] <= bound else why),
                    "met": loop["passed"] and loop["wall_s"] <= bound,
                }
            )
    if "stdio" in b:
        start = b["stdio"]["cold_start_s"]["median"]
        rows.append(
            {
                "target": "`python -m sim serve`: start to the initialize answer ≤ 1 s",
                "measured": f"{start:.2f} s",
                "met": start <= 1.0,
            }
        )
    sweep = b["sweep"]["days_per_s"]
    days = len(WRITEUP_SEEDS) * len(EXPERIMENTS)  # the reproduction's days: the sweep's mix
    cap = b["sweep"].get("workers", 1) * days / floor
    rows.append(
        {
            "target": f"sweep ≥ 3 × {SWEEP_DAYS_PER_S_BEFORE:g} simulated days/s on all cores",
            "measured": f"{sweep:.2f} days/s; the KB work alone of the same mix of days "
            f"({days} in {floor:.2f} s) allows {cap:.1f} on these cores",
            "met": sweep >= 3 * SWEEP_DAYS_PER_S_BEFORE,
        }
    )
    by_factor = {row["factor"]: row for row in b["scaling"]}
    if 1 in by_factor:
        small = by_factor[1]["us_per_call_median"]
        for factor, row in sorted(by_factor.items()):
            if factor == 1:
                continue
            for tool, us in row["us_per_call_median"].items():
                growth = us / small[tool]
                bound = 3.0 if tool == "search_knowledge_base" else 1.5
                matches = (
                    f"; {row['search_probe']['matches_per_search']:,.0f} matches a search"
                    if tool == "search_knowledge_base"
                    else ""
                )
                rows.append(
                    {
                        "target": f"{tool}: µs per call at ×{factor} within {bound:g}× of ×1",
                        "measured": f"{growth:.2f}× ({us:.0f} against {small[tool]:.0f} µs)"
                        + matches,
                        "met": growth <= bound,
                    }
                )
    if "http_load" in b:
        rows += http_report.targets(b["http_load"])
    if 100 in by_factor:
        rss = by_factor[100]["peak_rss_mib"]
        rows.append(
            {
                "target": f"peak RSS at ×100 ≤ {PEAK_RSS_X100_BEFORE_MIB:g} MiB (before)",
                "measured": f"{rss:.0f} MiB",
                "met": rss <= PEAK_RSS_X100_BEFORE_MIB,
            }
        )
    return rows


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
        for name, commit in _retimed(b).items():
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
        " article): `import` is bounded by reading the history (one `git log`, one"
        " `git cat-file --batch`) and one write transaction; `advise --db --simulate 2` by"
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


def _retimed(bench: dict[str, Any]) -> dict[str, str]:
    """Each loop timed again since the last full bench, and the commit it was timed on (an
    older file kept one commit for all of them)."""
    r = bench.get("retimed", {})
    if isinstance(r.get("loops"), list):
        return dict.fromkeys(r["loops"], r["commit"])
    return dict(r.get("loops", {}))


def retime(bench: dict[str, Any], names: list[str], commit: Callable[[], str]) -> dict[str, Any]:
    """The bench with the named loops timed again on this code, the rest as they were; which
    loops were retimed since the last full bench, each on what commit and what machine, is
    kept in the file with them (a later --only adds to the list). ``commit`` names the code
    checked out as each loop starts: a loop of many minutes can outlive the commit the run
    started on."""
    timed, on = {}, {}
    for name in names:
        on[name] = commit()
        timed[name] = LOOPS[name]()
    b = {**bench, **timed}
    here = machine()
    b["retimed"] = {
        "loops": _retimed(bench) | on,
        "machines": bench.get("retimed", {}).get("machines", {}) | dict.fromkeys(names, here),
    }
    return b


BENCH_OUTPUTS = ("results/bench.json", "results/SPEED.md")
"""What the bench writes itself: a change to them alone leaves the code timed as committed."""


def checked_out() -> str:
    """The commit checked out, short, with '+changes' when tracked files other than the
    bench's own outputs differ from it (the loop then times code no commit holds)."""

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=False)

    head = git("rev-parse", "--short", "HEAD").stdout.strip()
    changed = git("diff", "--quiet", "HEAD", "--", ".", *(f":!{p}" for p in BENCH_OUTPUTS))
    return head + ("+changes" if changed.returncode == 1 else "")


def main(
    out: Path,
    readme_path: Path | None,
    repeats: int,
    factors: tuple[int, ...],
    loops: bool,
    only: list[str] | None = None,
    front_readme: Path | None = None,
) -> None:
    """bench.json into `out`; the table into `readme_path` (SPEED.md) and the HTTP load
    line into `front_readme` (README.md), each only when given."""
    from sim.report import readme

    if only:
        b = retime(json.loads((out / "bench.json").read_text()), only, checked_out)
    else:
        b = run_all(repeats, factors, loops=loops) | {"commit": checked_out()}
    b["targets"] = targets(b)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(b, indent=2) + "\n")
    if readme_path is not None:
        readme.update(readme_path, "bench", readme_table(b))
    if front_readme is not None and "http_load" in b:
        readme.update(front_readme, "http_load", http_report.readme_line(b["http_load"]), True)
