"""Medians with their spread: these machines are noisy, so no figure is a single run."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def spread(values: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "runs": len(values),
    }


def timed(fn: Callable[[], object], repeats: int) -> dict[str, dict[str, float]]:
    """Wall and CPU seconds of `repeats` runs of fn."""
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return {"wall_s": spread(wall), "cpu_s": spread(cpu)}
