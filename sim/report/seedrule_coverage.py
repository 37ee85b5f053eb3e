"""How often the seed rules' intervals and calls err, simulated through the rules as they run:
results/coverage/seedrule_coverage.csv.

Each replication draws a unit's per-seed values by resampling committed rows, moved so the
truth is known: a reading's (default, reading) pairs and the headline's seeds; a panel arm's
seeds beside its reference's. It then runs the batches the production rule gives it
(``SeedRule.next_batch`` while ``sensitivity.unsettled`` or ``realshape_seeds.open_arms``
keeps it open, a reading cut at its paired cap) and is judged where it stops as the report
judges it (``sensitivity.full_strength``; the panel's ``sim.stats.mean_interval``). Beside
the readings' rule runs the rule it replaced (on while a verdict is undecided) and a fixed
count at the cap. Resampling makes the values as skewed and bounded as the study's; the
truth is the resampled population's mean. Each measure has a Monte-Carlo standard error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.report import sensitivity
from sim.stats import Z95, mean_interval
from sim.study import readings, realshape, realshape_seeds
from sim.study.seedrule import SeedRule

NOMINAL = 0.05
"""The error every rule states: its intervals are 95 % ones, its calls 5 % tests."""
Rows = dict[str, pd.DataFrame]
"""The committed per-seed rows by part (``sim.results.seedrows.read``)."""
ON_THRESHOLD = "a verdict decided on the threshold"
"""A measure with no stated level: the verdict's threshold rests on an estimated spread, so
even a fixed count decides more often than 5 %; a rule must not decide more often than a
fixed count does (``error_at_fixed_count``)."""
STOPS = ("width only (the rule)", "until decided (replaced)", "fixed at the cap")
"""The readings' rule, the one it replaced, and no sequential stop at all."""


@dataclass(frozen=True)
class ReadingCase:
    figure: str
    choice: str
    reading: str
    at_threshold: bool
    """The headline moved so the reading's true value sits on its verdict's threshold."""
    null: bool
    """The reading's shift centred at zero; else the committed shift is the truth."""

    def describe(self) -> str:
        where = "on the threshold" if self.at_threshold else "as committed"
        shift = "zero shift" if self.null else "committed shift"
        return f"{self.choice} = {self.reading} on {self.figure}, {where}, {shift}"


READING_CASES = (
    ReadingCase("cas_reject_share_3600s", "agent_edit_targets", "distinct_articles", True, True),
    ReadingCase("zipf_stale_share", "unpublished_save", "republish", True, True),
    ReadingCase("cas_reject_share_3600s", "agent_edit_targets", "distinct_articles", False, False),
)
"""A CAS reading (up to 300 seeds) and a staleness one (cut at 150) at their verdicts' worst
case, and the first page's −17.8 as committed."""
PANEL_CASES = (
    ("Obsidian", realshape_seeds.HEADLINE_ARM, "stale_share", True),
    ("Obsidian", "+popularity", "stale_share", True),
    ("Obsidian", realshape_seeds.HEADLINE_ARM, "stale_share", False),
)
"""(log, arm, figure, zero move): the headline arm (99 seeds) and a feature arm (33)."""


@dataclass(frozen=True)
class Population:
    """What a reading's replications resample, and the truth they estimate."""

    headline: np.ndarray
    default: np.ndarray
    """The default reading on the reading's seeds, paired with ``diff``."""
    diff: np.ndarray
    truth: float
    """The reading's value at full strength: the headline's mean plus the shift."""
    shift: float


def _reading_population(rows: Rows, case: ReadingCase) -> Population:
    """The populations a reading's replications resample, and their truth."""
    head = pd.concat(
        [rows["staleness_headline"].set_index("seed"), rows["cas_headline"].set_index("seed")],
        axis=1,
    )
    headline = head[case.figure].dropna().to_numpy(dtype=float)
    sens = rows["sensitivity"]
    own = sens[(sens["choice"] == case.choice) & (sens["reading"] == case.reading)]
    own = own.set_index("seed")[case.figure]
    default = head.loc[own.index, case.figure].to_numpy(dtype=float)
    diff = own.to_numpy(dtype=float) - default
    if case.null:
        diff = diff - diff.mean()
    move = 0.0
    band = next(f.bounds for f in readings.FIGURES if f.key == case.figure)
    if case.at_threshold:  # the five-seed range's edge on the band's low side
        sd = headline.std(ddof=1) * np.std(default + diff, ddof=1) / default.std(ddof=1)
        move = band[0] - Z95 * sd / math.sqrt(5) - headline.mean() - diff.mean()
    return Population(
        headline + move,
        default + move,
        diff,
        float(headline.mean() + move + diff.mean()),
        float(diff.mean()),
    )


def _judged(
    band: tuple[float, float], headline: np.ndarray, default: np.ndarray, diff: np.ndarray
) -> dict[str, float | str | bool]:
    """``full_strength`` on a replication's seeds 1..n."""
    seeds = pd.RangeIndex(1, len(diff) + 1)
    mine = pd.Series(default + diff, index=seeds)
    return sensitivity.full_strength(band, headline, mine, pd.Series(default, index=seeds))


def simulate_reading(rows: Rows, case: ReadingCase, stop: str, reps: int, seed: int) -> dict:
    """One reading's replications under ``stop`` (one of STOPS): its error rates."""
    pop = _reading_population(rows, case)
    band = next(f.bounds for f in readings.FIGURES if f.key == case.figure)
    rule = SeedRule(readings.SEEDS, readings.LOOKS)
    cap = min(rule.cap, len(pop.headline))  # paired_cap: the headline's seeds
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(pop.diff), size=(reps, cap))
    default, diff = pop.default[pick], pop.diff[pick]
    headline = rng.choice(pop.headline, size=(reps, len(pop.headline)))
    done = np.full(reps, cap if stop == STOPS[2] else rule.first)
    running = np.full(reps, stop != STOPS[2])
    while running.any() and (batch := [s for s in rule.next_batch(int(done.max())) if s <= cap]):
        running &= _still_open(case, stop, band, headline, default, diff, done, running)
        done[running] = batch[-1]
    judged = [
        _judged(band, headline[r], default[r, : done[r]], diff[r, : done[r]]) for r in range(reps)
    ]
    out = pd.DataFrame(judged)
    measured = {
        "interval misses the truth": ~out["ci_lo"].le(pop.truth) | ~out["ci_hi"].ge(pop.truth),
        "shift interval misses the shift": ~out["shift_ci_lo"].le(pop.shift)
        | ~out["shift_ci_hi"].ge(pop.shift),
    }
    if case.null:
        measured["a zero shift called a move (p < 0.05)"] = out["shift_p"] < NOMINAL
    if case.at_threshold:
        measured[ON_THRESHOLD] = out["verdict"] != "undecided"
    return {"measures": {k: v.to_numpy() for k, v in measured.items()}, "seeds": done.mean()}


def _still_open(
    case: ReadingCase,
    stop: str,
    band: tuple[float, float],
    headline: np.ndarray,
    default: np.ndarray,
    diff: np.ndarray,
    done: np.ndarray,
    running: np.ndarray,
) -> np.ndarray:
    """Which running replications the stop keeps open: the rule's own ``unsettled`` on the
    rows the report makes of them (``full_strength``: their verdicts and shifts), or
    for the replaced rule, that or an undecided verdict."""
    at = np.flatnonzero(running)
    cells = [_judged(band, headline[r], default[r, : done[r]], diff[r, : done[r]]) for r in at]
    table = pd.DataFrame(cells).assign(choice=case.choice, reading=case.reading, can_move=True)
    still = np.zeros(len(running), dtype=bool)
    still[at[sensitivity.unsettled(table).index]] = True
    if stop == STOPS[1]:
        still[at[(table["verdict"] == "undecided").to_numpy()]] = True
    return still


def simulate_arm(
    rows: Rows, log: str, arm: str, figure: str, null: bool, reps: int, seed: int
) -> dict:
    """A panel arm's replications, each a log of its own through ``open_arms``."""
    panel = rows["realshape"]
    mine = panel[(panel["log"] == log) & (panel["figure"] == figure)]
    wide = mine.pivot_table(index="seed", columns="arm", values="value")
    ref = realshape_seeds.BY_NAME[arm].reference
    pairs = wide[[arm, ref]].dropna().to_numpy(dtype=float)
    diff = pairs[:, 0] - pairs[:, 1]
    move = diff.mean() if null else 0.0
    truth = float(diff.mean() - move)
    rule = SeedRule(realshape.SEEDS, realshape_seeds.HEADLINE_LOOKS)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(pairs), size=(reps, rule.cap))
    values = {arm: pairs[pick, 0] - move, ref: pairs[pick, 1]}
    logs = np.array([f"r{r}" for r in range(reps)])

    def batch(at: np.ndarray, arms: tuple[str, ...], seeds: list[int]) -> pd.DataFrame:
        r, s = np.repeat(at, len(seeds)), np.tile(seeds, len(at))
        return pd.concat(
            pd.DataFrame({"log": logs[r], "arm": a, "seed": s, "figure": figure}).assign(
                value=values[a][r, s - 1]
            )
            for a in arms
        )

    grown = batch(np.arange(reps), (arm, ref), list(range(1, rule.first + 1)))
    done = rule.first
    while (seeds := rule.next_batch(done)) and (
        opened := realshape_seeds.open_arms(grown, rule.first)
    ):
        at = np.array([int(name[1:]) for name in opened])
        grown = pd.concat([grown, batch(at, (arm, ref), seeds)], ignore_index=True)
        done = seeds[-1]
    paired = grown.pivot_table(index=["log", "seed"], columns="arm", values="value")
    moves = (paired[arm] - paired[ref]).groupby(level="log", sort=False)
    got = [mean_interval(d.to_numpy()) for _, d in moves]
    lo, hi = np.array([i.lo for i in got]), np.array([i.hi for i in got])
    measured = {"interval misses the truth": (lo > truth) | (hi < truth)}
    if null:
        measured["a zero move called non-zero"] = (lo > 0) | (hi < 0)
    seeds_run = np.mean([i.n for i in got])
    return {"measures": measured, "seeds": seeds_run}


def _rows(rule: str, case: str, stop: str, result: dict) -> list[dict]:
    return [
        {
            "seed_rule": rule,
            "scenario": case,
            "stopping": stop,
            "error_kind": kind,
            "stated_error": math.nan if kind == ON_THRESHOLD else NOMINAL,
            "measured_error": float(np.mean(errors)),
            "measured_error_se": math.sqrt(np.mean(errors) * (1 - np.mean(errors)) / len(errors)),
            "replications": len(errors),
            "seeds_at_stop": float(result["seeds"]),
        }
        for kind, errors in result["measures"].items()
    ]


def coverage_table(rows: Rows, reps: int, seed: int = 61) -> pd.DataFrame:
    """Every scenario under every stopping: stated and measured error with its Monte-Carlo
    SE, and the same error at a fixed count, which no stopping can have moved."""
    out: list[dict] = []
    for i, case in enumerate(READING_CASES):
        for stop in STOPS:
            result = simulate_reading(rows, case, stop, reps, seed + i)
            out += _rows("readings (sensitivity.unsettled)", case.describe(), stop, result)
    for i, (log, arm, figure, null) in enumerate(PANEL_CASES):
        result = simulate_arm(rows, log, arm, figure, null, reps, seed + 100 + i)
        name = f"{arm} on {log}, {figure}, {'zero move' if null else 'committed move'}"
        out += _rows("panel (realshape_seeds.open_arms)", name, STOPS[2], result)
    table = pd.DataFrame(out)
    keys = ["scenario", "error_kind"]
    fixed = table[table["stopping"] == STOPS[2]].set_index(keys)["measured_error"]
    at = pd.MultiIndex.from_frame(table[keys])
    return table.assign(error_at_fixed_count=fixed.reindex(at).to_numpy())


DEEP_REPS = 2000
"""The committed table's replications: a 5 % error to ±1.5 points at three SEs. About 80
CPU-s, so `make check` reruns it (tests/test_seedrule_coverage.py), not reproduce."""
