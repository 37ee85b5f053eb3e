"""`make reproduce`: run the study and write every table, figure and the report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from sim import advise
from sim.experiments import WRITEUP_SEEDS, StudyFrames, run_study
from sim.metrics import per_seed
from sim.params import Params
from sim.popularity import top_share
from sim.report import (
    breakeven,
    exposure,
    figures,
    gate,
    openchoices,
    readme,
    realshape,
    realshape_section,
    sensitivity,
    sizes,
    tables,
    writeup,
)
from sim.report.comparison import comparison_table

STALENESS_SEEDS = 150
"""Seeds of the staleness runs (Zipf and control): each takes about 0.5 s."""
CAS_SEEDS = 300
BREAK_EVEN_SEEDS = 3
"""Seeds of the CAS runs: cheaper, and the 1 h rejection share varies more from seed to seed."""
FLOAT_FORMAT = "%.10g"


def _json_ready(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return value.item()  # numpy scalar
    return value


def build_tables(
    base: Params,
    frames: StudyFrames,
    break_even_runs: pd.DataFrame | None = None,
    gate_edits: pd.DataFrame | None = None,
    sensitivity_runs: pd.DataFrame | None = None,
    exposure_frames: StudyFrames | None = None,
    realshape_rows: pd.DataFrame | None = None,
) -> dict[str, pd.DataFrame]:
    first5 = frames.seeds(WRITEUP_SEEDS)
    seeds = per_seed(frames)
    extra = {}
    if break_even_runs is not None:
        table = breakeven.break_even_table(break_even_runs)
        extra = {"break_even": table, "break_even_crossings": breakeven.crossings(table)}
    if gate_edits is not None:
        extra["gate"] = gate.gate_table(base, gate_edits)
        extra["gate_conditions"] = gate.conditions_table(gate_edits)
    if exposure_frames is not None:
        table = exposure.exposure_table(base, exposure_frames)
        extra["exposure"] = table
        extra["exposure_crossings"] = exposure.crossings(table)
        extra["exposure_theory"] = exposure.theory_check(base, table)
    if realshape_rows is not None:
        table = realshape.realshape_table(realshape_rows)
        extra |= {
            "realshape_rows": realshape_rows,
            "realshape": table,
            "realshape_moves": realshape.moves_table(table),
        }
    comparison = comparison_table(seeds, base, WRITEUP_SEEDS)
    if sensitivity_runs is not None:
        extra["sensitivity"] = sensitivity.sensitivity_table(sensitivity_runs, seeds)
        comparison["readings"] = (
            comparison["key"]
            .map(sensitivity.robustness(extra["sensitivity"], comparison))
            .fillna("")
        )
    return {
        "per_seed": seeds,
        "comparison": comparison,
        "staleness": tables.staleness_table(first5),
        "check_cost": tables.check_cost_table(first5),
        "cas_by_delay": tables.cas_table(base, frames, first5, "cas"),
        "cas_curve": tables.cas_table(base, frames, first5, "cas_curve"),
        "stale_over_day": tables.stale_over_day_table(frames),
        "check_calls_by_check": tables.check_calls_by_check_table(base, frames),
        "tool_calls": tables.tool_calls_table(first5),
        "response_sizes": sizes.sizes_table(),
        **extra,
    }


def summary(base: Params, t: dict[str, pd.DataFrame], seeds: dict[str, int]) -> dict[str, object]:
    comparison = t["comparison"].set_index("key")
    return {
        "seeds": seeds,
        "analytic": {"top10_share": top_share(base.n_articles, base.zipf_s)},
        "seeds_1_5": {k: _json_ready(v) for k, v in comparison["seeds_1_5"].items()},
        "all_seeds": {
            k: {
                "mean": _json_ready(r["mean"]),
                "ci_lo": _json_ready(r["ci_lo"]),
                "ci_hi": _json_ready(r["ci_hi"]),
            }
            for k, r in comparison.iterrows()
        },
        "verdicts": dict(comparison["verdict"].items()),
    }


def write_results(
    out: Path,
    base: Params,
    frames: StudyFrames,
    seeds: dict[str, int],
    break_even_runs: pd.DataFrame,
    gate_edits: pd.DataFrame,
    sensitivity_runs: pd.DataFrame,
    exposure_frames: StudyFrames,
    realshape_rows: pd.DataFrame | None = None,
) -> dict[str, pd.DataFrame]:
    out.mkdir(parents=True, exist_ok=True)
    t = build_tables(
        base,
        frames,
        break_even_runs,
        gate_edits,
        sensitivity_runs,
        exposure_frames,
        realshape_rows,
    )
    for name, df in t.items():
        df.to_csv(out / f"{name}.csv", index=False, float_format=FLOAT_FORMAT)
    (out / "summary.json").write_text(
        json.dumps(summary(base, t, seeds), indent=2, ensure_ascii=False) + "\n"
    )
    figures.save(figures.stale_over_day(t["stale_over_day"]), out / "stale_over_day.png")
    figures.save(figures.check_cost(t["check_calls_by_check"]), out / "check_cost.png")
    figures.save(figures.cas_by_delay(t["cas_curve"], t["cas_by_delay"]), out / "cas_by_delay.png")
    figures.save(breakeven.figure(t["break_even"]), out / "break_even.png")
    figures.save(gate.figure(t["gate"]), out / "gate.png")
    figures.save(
        sensitivity.tornado(t["sensitivity"], list(openchoices.HEADLINE)), out / "sensitivity.png"
    )
    figures.save(exposure.figure(t["exposure"]), out / "exposure.png")
    advice = advice_example(base, exposure_frames)
    (out / "advise.txt").write_text(advice + "\n")
    setting = None
    if "realshape" in t:
        figures.save(realshape_section.figure(t["realshape"]), out / "realshape.png")
        shape = realshape.packaged_shape()
        setting = realshape.setting(base, shape, realshape.advised_choice(base))
    (out / "REPORT.md").write_text(writeup.render(base, seeds, t, advice, setting))
    return t


ADVICE_TARGET_MIN = 30.0
ADVICE_SEEDS = 3


def advice_example(base: Params, exposure_frames: StudyFrames) -> str:
    """`python -m sim advise --simulate 3` on the write-up's day, as the README shows it;
    its simulated columns are the exposure runs' first seeds (the same days)."""
    costs = advise.Costs()
    result = advise.advise(base, costs, ADVICE_TARGET_MIN, ADVICE_SEEDS, frames=exposure_frames)
    return advise.render(base, costs, ADVICE_TARGET_MIN, result)


def reproduce(
    out: Path,
    staleness_seeds: int = STALENESS_SEEDS,
    cas_seeds: int = CAS_SEEDS,
    workers: int | None = None,
    progress: bool = True,
    base: Params | None = None,
    readme_path: Path | None = None,
) -> dict[str, pd.DataFrame]:
    """Run the staleness runs on seeds 1..staleness_seeds and the CAS runs on 1..cas_seeds,
    write out/, and refresh the README's results block if given."""
    base = base or Params()
    frames = StudyFrames.concat(
        [
            run_study(
                base,
                list(range(1, staleness_seeds + 1)),
                ("staleness", "control"),
                workers=workers,
                progress=progress,
            ),
            run_study(
                base,
                list(range(1, cas_seeds + 1)),
                ("cas", "cas_curve"),
                workers=workers,
                progress=progress,
            ),
        ]
    )
    seeds = {
        "staleness": staleness_seeds,
        "cas": cas_seeds,
        "break_even": BREAK_EVEN_SEEDS,
        "gate": gate.SEEDS,
        "sensitivity": min(sensitivity.SEEDS, staleness_seeds, cas_seeds),
        "exposure": exposure.SEEDS,
        "realshape": realshape.SEEDS,
    }
    be_runs = breakeven.break_even_runs(
        base, breakeven.AXES, list(range(1, BREAK_EVEN_SEEDS + 1)), workers, progress
    )
    gate_edits = gate.gate_runs(base, list(range(1, gate.SEEDS + 1)), workers, progress)
    sens_runs = sensitivity.sensitivity_runs(base, frames, workers, progress, seeds["sensitivity"])
    exposure_frames = exposure.exposure_runs(
        base, list(range(1, exposure.SEEDS + 1)), workers, progress
    )
    rs_rows = realshape.realshape_runs(
        base,
        realshape.packaged_shape(),
        list(range(1, realshape.SEEDS + 1)),
        workers,
        progress,
    )
    t = write_results(
        out, base, frames, seeds, be_runs, gate_edits, sens_runs, exposure_frames, rs_rows
    )
    if readme_path is not None:
        readme.update(readme_path, "advise", readme.advise_block((out / "advise.txt").read_text()))
        readme.update(readme_path, "results", readme.results_block(t["comparison"]))
        readme.update(readme_path, "sizes", sizes.readme_block(t["response_sizes"]))
    return t
