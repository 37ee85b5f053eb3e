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
from sim.bench.speed_table import readme_table, retimed_loops
from sim.bench.stdio import cold_start, throughput
from sim.bench.subscriptions import fanout
from sim.bench.targets import targets
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
        "loops": retimed_loops(bench) | on,
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
