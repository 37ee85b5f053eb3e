"""Every committed table (results/<name>.csv), each a pure function of the per-seed rows
and the tables before it, in the order they are built."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from sim.advise import Costs, seedsets
from sim.params import Params
from sim.report import atlas as atlas_report
from sim.report import (
    breakeven,
    exposure,
    gate,
    realshape_effects,
    sensitivity,
    sizes,
    tables,
    variance,
)
from sim.report.comparison import comparison_table
from sim.results import seedrows
from sim.results.rowfiles import Rows
from sim.study import exposure as study_exposure
from sim.study.experiments import WRITEUP_SEEDS
from sim.study.metrics import joined
from sim.studymap import report as studymap

Tables = dict[str, pd.DataFrame]


@dataclass(frozen=True)
class Table:
    """A committed table (results/<name>.csv): a pure function of the per-seed rows and the
    tables before it."""

    name: str
    make: Callable[[Params, Rows, Tables], pd.DataFrame]


def _committed(part: str) -> Callable[[Params, Rows, Tables], pd.DataFrame]:
    """A part's per-seed rows as its table, unchanged."""
    return lambda base, rows, t: rows[part]


def _headline(rows: Rows) -> pd.DataFrame:
    return joined([rows["staleness_headline"], rows["cas_headline"]])


def _calls(rows: Rows) -> pd.DataFrame:
    return pd.concat([rows["staleness_calls"], rows["cas_calls"]], ignore_index=True)


def exposure_rows(rows: Rows) -> study_exposure.ExposureRows:
    return study_exposure.ExposureRows(rows["exposure"], rows["exposure_p95"])


def _checks5(rows: Rows) -> pd.DataFrame:
    c = rows["staleness_checks"]
    return c[c["seed"].isin(WRITEUP_SEEDS)]


def _paired(rows: pd.DataFrame, realshape: pd.DataFrame) -> pd.DataFrame:
    """realshape_paired.csv: the realshape table itself where every arm of a log ran the same
    seeds (a quick run, a panel whose arms all closed together), as paired_table would give
    it from the same rows again; else paired_table's cut."""
    cut = realshape_effects.paired_seeds(rows)
    return realshape.copy() if bool(cut.all()) else realshape_effects.realshape_table(rows[cut])


def _comparison(base: Params, rows: Rows, t: Tables) -> pd.DataFrame:
    comparison = comparison_table(t["per_seed"], base, WRITEUP_SEEDS)
    comparison["readings"] = (
        comparison["key"].map(sensitivity.robustness(t["sensitivity"], comparison)).fillna("")
    )
    return comparison


TABLES: tuple[Table, ...] = (
    Table("per_seed", lambda base, rows, t: _headline(rows)),
    Table(
        "sensitivity",
        lambda base, rows, t: sensitivity.sensitivity_table(
            sensitivity.sensitivity_runs(rows["sensitivity"], t["per_seed"]), t["per_seed"]
        ),
    ),
    Table("comparison", _comparison),
    Table(
        "variance_reduction",
        lambda base, rows, t: variance.variance_table(t["per_seed"], base),
    ),
    Table(
        "staleness",
        lambda base, rows, t: tables.staleness_table(
            rows["staleness_by_run"][rows["staleness_by_run"]["seed"].isin(WRITEUP_SEEDS)]
        ),
    ),
    Table("check_cost", lambda base, rows, t: tables.check_cost_table(_checks5(rows))),
    Table("cas_by_delay", lambda base, rows, t: tables.cas_table(base, rows["cas_edits"], "cas")),
    Table(
        "cas_curve", lambda base, rows, t: tables.cas_table(base, rows["cas_edits"], "cas_curve")
    ),
    Table(
        "stale_over_day",
        lambda base, rows, t: tables.stale_over_day_table(rows["staleness_checks"]),
    ),
    Table(
        "check_calls_by_check",
        lambda base, rows, t: tables.check_calls_by_check_table(base, rows["staleness_checks"]),
    ),
    Table("tool_calls", lambda base, rows, t: tables.tool_calls_table(_calls(rows))),
    Table("response_sizes", lambda base, rows, t: sizes.sizes_table()),
    Table("break_even", lambda base, rows, t: breakeven.break_even_table(rows["break_even"])),
    Table("break_even_crossings", lambda base, rows, t: breakeven.crossings(t["break_even"])),
    Table("gate", lambda base, rows, t: gate.gate_table(base, rows["gate"], rows["gate_medians"])),
    Table(
        "gate_conditions",
        lambda base, rows, t: gate.conditions_table(
            rows["gate"], rows["gate_medians"], rows["gate_pairs"]
        ),
    ),
    Table(
        "exposure",
        lambda base, rows, t: study_exposure.exposure_table(base, exposure_rows(rows)),
    ),
    Table("exposure_crossings", lambda base, rows, t: exposure.crossings(t["exposure"])),
    Table(
        "exposure_theory", lambda base, rows, t: study_exposure.theory_check(base, t["exposure"])
    ),
    Table("realshape", lambda base, rows, t: realshape_effects.realshape_table(rows["realshape"])),
    Table("realshape_moves", lambda base, rows, t: realshape_effects.moves_table(t["realshape"])),
    Table("realshape_paired", lambda base, rows, t: _paired(rows["realshape"], t["realshape"])),
    *(Table(name, make) for name, make in studymap.TABLES),
    *(Table(name, make) for name, make in atlas_report.TABLES),
    *(
        Table(part, _committed(part))
        for part in seedrows.CALIBRATION_PARTS
        if part != "calibration_shape"
    ),
    Table("advise_backtest", _committed("advise_backtest")),
    Table(
        "advise_pick_seedsets",
        lambda base, rows, t: seedsets.table(rows["advise_seedsets"], Costs(), seedsets.TARGET_MIN),
    ),
)
"""Every committed table, in the order they are built (a table may read those before it)."""


def build_tables(base: Params, rows: Rows, names: tuple[str, ...] | None = None) -> Tables:
    """Every table (or those named, with what they read) from the per-seed rows."""
    t: Tables = {}
    for table in TABLES:
        if names is None or table.name in names:
            t[table.name] = table.make(base, rows, t)
    return t
