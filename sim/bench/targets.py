"""The bench's targets (issue 13's and those after it) against the measured figures, each
met or not, with the starting points they are measured from."""

from __future__ import annotations

from typing import Any

from sim.bench import http_report
from sim.study.experiments import EXPERIMENTS, WRITEUP_SEEDS

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


CPU_BOUNDS = {"make_test": 240.0, "reproduce_quick": 60.0}
"""The loops whose wall bound is set for 2 cores, held as these CPU seconds (``_held``)."""


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


def _cold(loop: dict[str, Any]) -> str:
    """'; with no fit kept yet: …' for a loop timed after a cold run of its own."""
    cold = loop.get("cold")
    if not cold:
        return ""
    cpu = sum(s.get("cpu_s", float("nan")) for s in cold["steps"])
    wall = _seconds(cold["wall_s"])
    return f"; with no fixed log's fit kept yet (a fresh machine): {wall} s, CPU {cpu:.1f} s"


def _held(loop: dict[str, Any], bound: float, cpu_bound: float | None) -> bool:
    """Within the bound: a bound set as wall seconds on 2 cores is held as CPU seconds
    (where every step's were measured), since machines differ about 2x in speed and CPU
    seconds move less with the machine's other load than wall seconds do."""
    cpu = [s["cpu_s"] for s in loop["steps"] if "cpu_s" in s]
    if cpu_bound is None or not cpu or len(cpu) < len(loop["steps"]):
        return bool(loop["wall_s"] <= bound)
    return sum(cpu) <= cpu_bound


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
            30.0,
            " (issue 61; its days are capped by tests/test_quick_run.py at QUICK_MOST_DAYS, a"
            " day costs 0.2–0.5 CPU-s, and its tables, figures and texts about 20 CPU-s more)",
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
            cpu_bound = CPU_BOUNDS.get(key)
            held = _held(loop, bound, cpu_bound)
            rows.append(
                {
                    "target": f"{what} ≤ {bound:g} s"
                    + (f" on 2 cores, held as ≤ {cpu_bound:g} CPU-s" if cpu_bound else ""),
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
                    + _cold(loop)
                    + ("" if loop["passed"] else "; FAILED")
                    + ("" if held else why),
                    "met": loop["passed"] and held,
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
