"""Days at ×1, ×10, ×100 the default size, each in a fresh process so its peak RSS is its own.

Articles, questions and saves scale together, and the corpus vocabulary grows as Heaps'
law (``sim/corpus.py``: a larger help centre documents more products). After each day a
fixed probe of searches measures the cost per search and per matching article: below 3,000
articles search ranks from a row × term matrix (``sim/kb/matrix_index.py``), from 3,000 on
from posting arrays that score only the rows that can reach the top hits
(``sim/kb/index.py``).
"""

from __future__ import annotations

import multiprocessing
import resource
import statistics
import time
from collections import defaultdict
from dataclasses import replace
from typing import Any

from sim.model.day import KB_ID, Day
from sim.params import Params
from sim.study.experiments import experiment_params

PROBE_QUERIES = 50


def _search_probe(day: Day) -> dict[str, float]:
    """The first PROBE_QUERIES customer questions searched through the tools at day end."""
    session = day.server.connect("bench-probe", [KB_ID])
    us, matches = [], []
    for spec in day.specs[:PROBE_QUERIES]:
        args = {"knowledge_base_id": KB_ID, "query": spec.query, "limit": 2}
        t = time.perf_counter()
        r = session.call("search_knowledge_base", args)
        us.append((time.perf_counter() - t) * 1e6)
        matches.append(r.structured["total_matches"])
    return {
        "us_per_search": statistics.median(us),
        "matches_per_search": statistics.median(matches),
        "us_per_match": statistics.median(u / m for u, m in zip(us, matches, strict=True) if m),
    }


def _peak_rss_mib() -> float:
    """This process's own peak resident set size (Linux VmHWM). Not ru_maxrss: Linux keeps
    that across exec, so a spawned child would report its parent's peak if higher."""
    with open("/proc/self/status") as f:
        line = next(text for text in f if text.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def _rss_mib() -> float:
    """Resident set size now (Linux /proc)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _kb_mib(day: Day) -> float:
    (pages,) = day.store._db.execute("PRAGMA page_count").fetchone()
    (page_size,) = day.store._db.execute("PRAGMA page_size").fetchone()
    return pages * page_size / 2**20


def _scaled_day(factor: int, queue: multiprocessing.Queue) -> None:
    base = _peak_rss_mib()
    rss_start = _rss_mib()
    p = replace(
        experiment_params(Params(), "cas"),
        n_articles=400 * factor,
        n_questions=120 * factor,
        n_saves=300 * factor,
    )
    t = time.perf_counter()
    day = Day(p, 1)
    setup = time.perf_counter() - t
    rss_opened, kb_opened = _rss_mib(), _kb_mib(day)
    result = day.run()
    wall = time.perf_counter() - t
    peak = _peak_rss_mib()
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
            "search_probe": _search_probe(day),
            "peak_rss_mib": peak,
            "rss_growth_mib": peak - base,
            "kb_database_mib": _kb_mib(day),
            "memory_mib": {
                "opening_rss_growth": rss_opened - rss_start,
                "opening_kb": kb_opened,
                "day_rss_growth": _rss_mib() - rss_opened,
                "day_kb_growth": _kb_mib(day) - kb_opened,
            },
            "records": {
                "citations": len(result.citations),
                "edits": len(result.edits),
                "saves": len(result.saves),
            },
        }
    )


def scaling(factors: tuple[int, ...]) -> list[dict[str, Any]]:
    # spawned, not forked: a forked child's RSS counts the parent's pages too, so its peak
    # would depend on whatever the bench ran before
    ctx = multiprocessing.get_context("spawn")
    rows = []
    for f in factors:
        queue = ctx.Queue()
        proc = ctx.Process(target=_scaled_day, args=(f, queue))
        proc.start()
        rows.append(queue.get())
        proc.join()
    return rows
