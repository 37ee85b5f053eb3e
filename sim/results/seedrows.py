"""Per-seed rows: the commit point between the simulation and the report.

Every experiment turns its runs into tidy rows, one per seed × point (× reading, method,
delay...), holding the sums and counts its tables need; `make reproduce` writes them to
results/seeds/<part>.csv and builds every table, summary.json, REPORT.md, advise.txt and
the README blocks from those files alone (``sim.results.tables.build_tables``). So the regression
test can rebuild every reported figure from the committed rows, and rerun a few seeds of
each experiment to see that they still give their rows.

A few parts are pooled over seeds (a pooled median or percentile is no function of
per-seed sums): they are listed in ``Experiment.pooled``; `make check` covers them.

To add an experiment: write a ``run(base, seeds, workers, progress)`` returning
{part: DataFrame} (each frame with a ``seed`` column, its rows a pure function of the
seed), append an ``Experiment`` to EXPERIMENTS, and add the tables made from its parts to
``sim.results.tables.TABLES``. The module runs past ~300 lines because it is the table of
experiments, each plan beside its entry; how a plan runs is ``plans.py``, the rows files
``rowfiles.py``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from sim import atlas
from sim.advise import Costs, backtest, seedsets
from sim.advise.choice import advised_choice
from sim.calibrate import cache as fit_cache
from sim.calibrate.logs import PANEL
from sim.calibrate.panel import calibration_outputs
from sim.params import Params
from sim.report import sensitivity
from sim.results import quick
from sim.results.plans import Experiment, Plan, run_plans
from sim.results.rowfiles import Rows, read_csv
from sim.study import (
    breakeven,
    exposure,
    gate,
    readings,
    realshape,
    realshape_panel,
    realshape_seeds,
    staleness,
)
from sim.study.experiments import PointRuns, Request, distinct_days, study_frames
from sim.study.metrics import edit_rows, joined, per_seed
from sim.study.seedrule import SeedRule
from sim.studymap import grid as map_grid


def _staleness(base: Params, seeds: list[int]) -> Plan:
    def finish(runs: list[PointRuns]) -> Rows:
        f = study_frames(runs[0])
        return {
            "staleness_headline": per_seed(f),
            "staleness_by_run": staleness.by_run_rows(f),
            "staleness_checks": staleness.check_rows(f),
            "staleness_calls": f.calls,
        }

    records = ("days", "citations", "checks", "calls")
    return Plan((Request((base,), tuple(seeds), ("staleness", "control"), records),), finish)


def _cas(base: Params, seeds: list[int]) -> Plan:
    def finish(runs: list[PointRuns]) -> Rows:
        f = study_frames(runs[0])
        return {"cas_headline": per_seed(f), "cas_edits": edit_rows(f), "cas_calls": f.calls}

    records = ("days", "edits", "calls")
    return Plan((Request((base,), tuple(seeds), ("cas", "cas_curve"), records),), finish)


def _break_even(base: Params, seeds: list[int], axes: dict[str, list] = breakeven.AXES) -> Plan:
    request = breakeven.break_even_request(base, axes, seeds)
    return Plan(
        (request,), lambda runs: {"break_even": breakeven.break_even_rows(request, runs[0])}
    )


def _gate(
    base: Params,
    seeds: list[int],
    medians_s: tuple[float, ...] = gate.MEDIANS_S,
    conditions: tuple[gate.Condition, ...] = gate.CONDITIONS[1:],
) -> Plan:
    requests = gate.gate_requests(base, seeds, medians_s, conditions)

    def finish(runs: list[PointRuns]) -> Rows:
        edits = gate.gate_edits(requests, runs)
        return {
            "gate": gate.gate_rows(edits),
            "gate_medians": gate.gate_medians(edits),
            "gate_pairs": gate.gate_pairs(edits),
        }

    return Plan(tuple(requests), finish)


def _sensitivity(
    base: Params, seeds: list[int], keys: Sequence[readings.ReadingKey] | None = None
) -> Plan:
    named = None if keys is None else list(keys)
    return Plan(
        tuple(readings.sensitivity_requests(base, seeds, named)),
        lambda runs: {"sensitivity": readings.sensitivity_rows(base, runs, named)},
    )


def _grow_sensitivity(base: Params, rows: Rows, rule: SeedRule) -> Plan | None:
    """The readings still open after their last batch, on the rule's next batch (cut at the
    seeds the headline can pair them with)."""
    so_far = rows["sensitivity"]
    seeds = rule.next_batch(int(so_far["seed"].max()))
    headline = joined([rows["staleness_headline"], rows["cas_headline"]])
    batches: dict[tuple[int, ...], list[readings.ReadingKey]] = {}
    for key in sensitivity.open_readings(so_far, headline) if seeds else []:
        cap = sensitivity.paired_cap(key, headline)
        if batch := tuple(s for s in seeds if s <= cap):
            batches.setdefault(batch, []).append(key)
    if not batches:
        return None
    requests = [
        (keys, readings.sensitivity_requests(base, list(b), keys)) for b, keys in batches.items()
    ]

    def finish(runs: list[PointRuns]) -> Rows:
        parts, at = [so_far], 0
        for keys, reqs in requests:
            parts.append(readings.sensitivity_rows(base, runs[at : at + len(reqs)], keys))
            at += len(reqs)
        return {"sensitivity": readings.ordered(base, pd.concat(parts))}

    return Plan(tuple(r for _, reqs in requests for r in reqs), finish)


def _exposure(base: Params, seeds: list[int], intervals_s: tuple[float, ...] = ()) -> Plan:
    """The exposure runs: the interval sweep at ``intervals_s`` (the study's own where empty:
    ``experiments.SWEEP_INTERVALS_S``; a quick run's subset otherwise)."""
    day = replace(base, sweep_intervals_s=intervals_s) if intervals_s else base

    def finish(runs: list[PointRuns]) -> Rows:
        rows = exposure.exposure_rows(day, study_frames(runs[0]))
        return {"exposure": rows.rows, "exposure_p95": rows.p95}

    return Plan((exposure.exposure_request(day, seeds),), finish)


def _realshape(
    base: Params,
    seeds: list[int],
    logs: tuple[str, ...] = tuple(PANEL),
    arms: tuple[realshape.Arm, ...] = realshape.ARMS,
) -> Plan:
    request = realshape.panel_request(base, advised_choice(base), seeds, arms, logs)

    def finish(runs: list[PointRuns]) -> Rows:
        return {
            "realshape": realshape.panel_rows(base, advised_choice(base), runs[0], arms, logs),
            "realshape_traits": realshape_panel.panel_traits(logs),
        }

    return Plan((request,), finish)


def _grow_realshape(base: Params, rows: Rows, rule: SeedRule) -> Plan | None:
    """The panel's arms still open after their last batch, with their references, on the
    rule's next batch."""
    so_far = rows["realshape"]
    seeds = rule.next_batch(int(so_far["seed"].max()))
    arms = realshape_seeds.open_arms(so_far, rule.first) if seeds else {}
    if not arms:
        return None

    def finish(runs: list[PointRuns]) -> Rows:
        batch = realshape_seeds.batch_rows(base, advised_choice(base), runs, arms)
        return {"realshape": realshape_seeds.ordered(pd.concat([so_far, batch]))}

    requests = realshape_seeds.batch_requests(base, advised_choice(base), seeds, arms)
    return Plan(tuple(requests), finish)


def _map(base: Params, seeds: list[int], saves: map_grid.Saves = map_grid.SAVES) -> Plan:
    """The map's grid: edit intensity × how questions relate to edits (sim/studymap)."""
    request = map_grid.request(base, seeds, saves)

    def finish(runs: list[PointRuns]) -> Rows:
        return {
            "map_stale": map_grid.stale_rows(base, runs[0], saves),
            "map_cas": map_grid.cas_rows(base, runs[0], saves),
        }

    return Plan((request,), finish)


def _calibration(base: Params, seeds: list[int]) -> Plan:
    """The fit of the packaged help-centre log; the held-out validation with each log's drift,
    the transfer test and the initial imports, on every log of the panel: seeded, but not
    per seed (one bootstrap and one set of replicate runs, of len(seeds) each), so every part
    is pooled."""

    def finish(runs: list[PointRuns]) -> Rows:
        tables = calibration_outputs(reps=len(seeds), boot=len(seeds))
        shape = pd.DataFrame({"shape_json": [realshape_panel.packaged_shape().to_json()]})
        return {f"calibration_{name}": frame for name, frame in tables.items()} | {
            "calibration_shape": shape
        }

    return Plan((), finish)


def _backtest(base: Params, seeds: list[int], every: int = 1) -> Plan:
    """The advice made from each atlas site's history up to a year before its end, replayed
    on its last year (``sim.advise.backtest``): no days and no seeds, so its part is pooled
    (computed in `make reproduce`, read by every rebuild: 25 CPU-s for the 44 sites, most of
    it their fits, which ``calibrate.cache`` keeps while the histories and the fit's code stay);
    ``every``: every so many sites only (a quick run's)."""

    def finish(runs: list[PointRuns]) -> Rows:
        logs = {s.site: atlas.log(s.site) for s in atlas.sites()[::every]}
        rows, _share = backtest.table(
            logs, base, Costs(), BACKTEST_TARGET_MIN, shape_of=fit_cache.fit_shape
        )
        return {"advise_backtest": pd.DataFrame(rows)}

    return Plan((), finish)


def _seedsets(base: Params, seeds: list[int]) -> Plan:
    """The advisor's simulated day on set A (`seeds`) and on a disjoint set B
    (``sim.advise.seedsets``): the write-up's day pick made on each, A's checked on B."""
    request = seedsets.request(base, seeds, seedsets.TARGET_MIN)

    def finish(runs: list[PointRuns]) -> Rows:
        return {"advise_seedsets": seedsets.seed_rows(base, seedsets.TARGET_MIN, runs[0])}

    return Plan((request,), finish)


BACKTEST_TARGET_MIN = seedsets.TARGET_MIN
"""The backtest's target: minutes a change to a cited article goes unnoticed on average (the
first page's advice example's)."""

CALIBRATION_PARTS = (
    "calibration_fit",
    "calibration_gof",
    "calibration_burstiness",
    "calibration_validation",
    "calibration_shape",
    "calibration_transfer",
    "calibration_imports",
)

CALIBRATION_RUNS = 200
"""The calibration's bootstrap resamples, and its held-out and transfer replicate runs a log
or a cell (not days of the study); the drift test deals each log's weeks 5 × this − 1 times."""
STALENESS_SEEDS = 150
"""Seeds of the staleness runs (Zipf and control): each takes about 0.5 s."""
CAS_SEEDS = 300
"""Seeds of the CAS runs: cheaper, and the 1 h rejection share varies more from seed to seed."""

EXPERIMENTS = (
    Experiment(
        "staleness",
        STALENESS_SEEDS,
        _staleness,
        ("staleness_headline", "staleness_by_run", "staleness_checks", "staleness_calls"),
    ),
    Experiment("cas", CAS_SEEDS, _cas, ("cas_headline", "cas_edits", "cas_calls"), sample=2),
    Experiment(
        "break_even",
        3,
        _break_even,
        ("break_even",),
        quick=functools.partial(_break_even, axes=quick.BREAK_EVEN_AXES),
    ),
    Experiment(
        "gate",
        gate.SEEDS,
        _gate,
        ("gate", "gate_medians", "gate_pairs"),
        pooled=("gate_medians",),
        quick=functools.partial(
            _gate, medians_s=quick.GATE_MEDIANS_S, conditions=quick.GATE_CONDITIONS
        ),
    ),
    Experiment(
        "sensitivity",
        readings.SEEDS,
        _sensitivity,
        ("sensitivity",),
        grow=_grow_sensitivity,
        looks=readings.LOOKS,
        quick=functools.partial(_sensitivity, keys=quick.READINGS),
    ),
    Experiment(
        "exposure",
        exposure.SEEDS,
        _exposure,
        ("exposure", "exposure_p95"),
        pooled=("exposure_p95",),
        quick=functools.partial(_exposure, intervals_s=quick.EXPOSURE_INTERVALS_S),
    ),
    Experiment(
        "realshape",
        realshape.SEEDS,
        _realshape,
        ("realshape", "realshape_traits"),
        pooled=("realshape_traits",),
        grow=_grow_realshape,
        looks=realshape_seeds.HEADLINE_LOOKS,
        quick=functools.partial(_realshape, logs=quick.LOGS, arms=quick.ARMS),
    ),
    Experiment(
        "map",
        map_grid.SEEDS,
        _map,
        ("map_stale", "map_cas"),
        quick=functools.partial(_map, saves=quick.MAP_SAVES),
    ),
    Experiment(
        "calibration", CALIBRATION_RUNS, _calibration, CALIBRATION_PARTS, pooled=CALIBRATION_PARTS
    ),
    Experiment(
        "backtest",
        1,
        _backtest,
        ("advise_backtest",),
        pooled=("advise_backtest",),
        quick=functools.partial(_backtest, every=quick.SITES_EVERY),
    ),
    Experiment("advise_seedsets", seedsets.SEEDS, _seedsets, ("advise_seedsets",)),
)
BY_NAME = {e.name: e for e in EXPERIMENTS}


def run(
    base: Params,
    seeds: dict[str, int],
    workers: int | None = None,
    progress: bool = True,
    scheduler: str | None = None,
    max_looks: dict[str, int] | None = None,
    only: tuple[str, ...] | None = None,
    kept: Rows | None = None,
    subsets: bool = False,
) -> Rows:
    """Every experiment (or those named in ``only``) on seeds 1..seeds[name] (its default
    where not given), in a local pool or on the Dask cluster at ``scheduler``; then the
    growing experiments' open units, a batch at a time, until none is open (at most
    ``max_looks[name]`` batches a unit, where given: a quick run's). With ``only``, the
    other experiments' rows are taken from ``kept`` (a growing experiment's rule reads the
    headline's) and returned with the fresh ones. With ``subsets``, an experiment with a
    quick plan runs that (``sim.results.quick``: a quick run's)."""
    chosen = [e for e in EXPERIMENTS if only is None or e.name in only]
    rows: Rows = dict(kept or {})
    plans = _plans(base, seeds, chosen, subsets)
    for parts in run_plans(plans, workers, progress, scheduler):
        rows |= parts
    rules = {
        e.name: SeedRule(
            seeds.get(e.name, e.seeds), min(e.looks, (max_looks or {}).get(e.name, e.looks))
        )
        for e in chosen
        if e.grow
    }
    while more := [p for e in chosen if e.grow and (p := e.grow(base, rows, rules[e.name]))]:
        for parts in run_plans(more, workers, progress, scheduler):
            rows |= parts
    return rows


def _plans(
    base: Params,
    seeds: dict[str, int],
    chosen: Sequence[Experiment] = EXPERIMENTS,
    subsets: bool = False,
) -> list[Plan]:
    return [
        ((subsets and e.quick) or e.plan)(base, list(range(1, seeds.get(e.name, e.seeds) + 1)))
        for e in chosen
    ]


QUICK_DIVISOR = 60
"""``reproduce --quick`` runs every part on a sixtieth of its seeds (at least QUICK_FLOOR):
a twentieth ran 461 days, 80 % of the quick run's CPU; a sixtieth takes the readings, whose
sixteen and six points each day repeats, to one seed (and their one more look to two)."""
QUICK_FLOOR = 2
"""Seeds a part keeps however far it is scaled down: an interval needs two."""
QUICK_LOOKS = {"sensitivity": 2, "realshape": 1}
"""A quick run's batches at most, per growing experiment: the readings look once past the
first batch (of one seed: every reading is open after it, so each ends on two), enough to
run the rule's path (on the pool and on a Dask cluster alike); the panel keeps its first
batch, since at a quick run's two seeds every arm is open and a second batch would double
the panel's days (7.7 of the quick run's 54 CPU-s)."""


def scaled_seeds(divisor: int, seeds: dict[str, int] | None = None) -> dict[str, int]:
    """Every experiment's seeds (``seeds`` where given, else its default) divided by
    ``divisor``, rounded up, and at least QUICK_FLOOR in all: all parts scaled down
    together. A growing experiment's floor is its first batch's, QUICK_FLOOR over its quick
    batches (a unit on one seed has no interval, so it stays open and runs the next)."""
    given = seeds or {}
    return {
        e.name: max(quick_floor(e), math.ceil(given.get(e.name, e.seeds) / divisor))
        for e in EXPERIMENTS
    }


def quick_floor(e: Experiment) -> int:
    """The fewest seeds of `e`'s first batch in a quick run (QUICK_FLOOR in all)."""
    return math.ceil(QUICK_FLOOR / QUICK_LOOKS[e.name]) if e.grow else QUICK_FLOOR


def study_days(base: Params, seeds: dict[str, int] | None = None, subsets: bool = False) -> int:
    """The simulated days `run` runs (with ``subsets``, a quick run's): each distinct day
    once, however many experiments, readings and points use it."""
    plans = _plans(base, seeds or {}, subsets=subsets)
    return distinct_days([r for p in plans for r in p.requests])


def seed_counts(rows: Rows) -> dict[str, int]:
    """Seeds of every seeded experiment (the calibration's parts have no seed column)."""
    return {
        e.name: int(rows[e.parts[0]]["seed"].nunique())
        for e in EXPERIMENTS
        if "seed" in rows[e.parts[0]]
    }


def read(folder: Path, skip: Sequence[str] = ()) -> Rows:
    """Every experiment's rows in ``folder``, but those of the experiments named in ``skip``
    (about to be made again: a new experiment has none yet)."""
    return {
        p: read_csv(folder / f"{p}.csv") for e in EXPERIMENTS if e.name not in skip for p in e.parts
    }
