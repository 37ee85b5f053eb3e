"""An experiment as the study runs it: its plan (the days it asks for and what it makes of
them) and every plan's days run in one pool, a day two plans share run once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sim.params import Params
from sim.results.rowfiles import Rows
from sim.study.experiments import PointRuns, Request, run_requests
from sim.study.seedrule import SeedRule


@dataclass(frozen=True)
class Plan:
    """An experiment's days, and what it makes of them."""

    requests: tuple[Request, ...]
    finish: Callable[[list[PointRuns]], Rows]
    """The experiment's parts from its requests' runs, in the requests' order."""


@dataclass(frozen=True)
class Experiment:
    name: str
    """Its key in summary.json's seed counts."""
    seeds: int
    """Seeds 1..seeds in `make reproduce`."""
    plan: Callable[[Params, list[int]], Plan]
    parts: tuple[str, ...]
    """The rows files it writes, the first one per-seed (its seeds are counted)."""
    pooled: tuple[str, ...] = ()
    """Parts pooled over seeds: not per-seed, so not compared by the sampled rerun."""
    sample: int = 1
    """Seeds the regression test reruns."""
    grow: Callable[[Params, Rows, SeedRule], Plan | None] | None = None
    """For an experiment under the sequential seed rule (``sim/study/seedrule.py``): given every
    experiment's rows so far, the next batch of seeds of its units still open, as a plan
    whose parts hold the rows so far and the batch's (None when no unit is open). Its
    ``seeds`` are then the rule's first batch."""
    looks: int = 5
    """The sequential rule's batches at most (with ``grow``)."""
    quick: Callable[[Params, list[int]], Plan] | None = None
    """The plan a quick run takes instead: a subset of its points (``sim.results.quick``)."""

    def run(self, base: Params, seeds: list[int], workers: int | None, progress: bool) -> Rows:
        """Its parts on `seeds`."""
        [rows] = run_plans([self.plan(base, seeds)], workers, progress)
        return rows


def run_plans(
    plans: list[Plan], workers: int | None, progress: bool, scheduler: str | None = None
) -> list[Rows]:
    """Every plan's days in one pool (or on a Dask cluster), seed by seed, a day two plans
    share run once (``run_requests``); each plan finished as soon as its last day is in, and
    those that run no day while the pool works."""
    requests: list[Request] = []
    owner: list[tuple[int, int]] = []
    for i, p in enumerate(plans):
        requests += p.requests
        owner += [(i, k) for k in range(len(p.requests))]
    got: list[list[PointRuns]] = [[[] for _ in p.requests] for p in plans]
    left = [len(p.requests) for p in plans]
    out: dict[int, Rows] = {}
    dayless = [i for i, p in enumerate(plans) if not p.requests]
    for j, runs in run_requests(requests, workers, progress, scheduler):
        i, k = owner[j]
        got[i][k] = runs
        left[i] -= 1
        if not left[i]:
            out[i] = plans[i].finish(got[i])
            got[i] = []
        for d in dayless:  # the pool is at work now
            out[d] = plans[d].finish([])
        dayless = []
    for i in dayless:
        out[i] = plans[i].finish([])
    return [out[i] for i in range(len(plans))]
