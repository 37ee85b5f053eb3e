"""`python -m sim advise --edit-log LOG.csv` (or `--edit-shape shape.json`): advice from a
real help centre's edit process.

The closed forms of ``sim.advise`` assume independent Poisson saves over a uniform day; a
fitted edit shape has bursts, bulk publishes and a profile they do not describe. So this
advice is by simulation: N seeded days of the calibrated process (the exposure runs, every
method at every swept interval), and the cheapest method and interval whose simulated mean
unnoticed time meets the target. Beside it, like with like, the same choice simulated on
the write-up's Poisson process at the same volume and seeds, and the closed-form advice;
the two simulated choices are the ones compared.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from sim import advise
from sim.calibrate.fit import fit
from sim.calibrate.generate import expected_saves
from sim.calibrate.logs import read_log
from sim.calibrate.shape import EditShape, load_shape
from sim.model.calibrated import day_window
from sim.params import Params

DEFAULT_SEEDS = 3


def shape_from(edit_log: Path | None, edit_shape: Path | None) -> EditShape:
    """The shape fitted to a log (point estimates), or read from a fitted file; a bad file
    raises ValueError naming it."""
    if edit_shape is not None:
        return load_shape(edit_shape)
    assert edit_log is not None
    return fit(read_log(edit_log), boot=0).shape


def log_volume(params: Params, shape: EditShape) -> int:
    """Saves the log's own volume puts in the day's window, rounded (at least 1)."""
    start = day_window(replace(params, save_process="calibrated", edit_shape=shape))
    return max(1, round(expected_saves(shape, shape.log_saves_per_day, params.day_s, start)))


def _choice(table: pd.DataFrame, target: float, unnoticed: str, cost: str) -> pd.Series | None:
    meets = table[table[unnoticed] <= target]
    if meets.empty:
        return None
    return meets.loc[meets[cost].idxmin()]


def calibrated_advice(
    params: Params,
    shape: EditShape,
    costs: advise.Costs,
    max_unnoticed_min: float,
    seeds: int = DEFAULT_SEEDS,
    workers: int | None = None,
) -> dict[str, Any]:
    """The calibrated and the Poisson advice, both simulated on the same seeds and volume,
    and the closed-form Poisson advice."""
    tables = {}
    for name, p in (
        ("calibrated", replace(params, save_process="calibrated", edit_shape=shape)),
        ("poisson", params),
    ):
        sim = advise.simulated(p, seeds, workers)
        sim["sim_cost"] = (sim["sim_calls"] + sim["sim_notifications"]) * costs.per_call + sim[
            "sim_chars"
        ] / 1000 * costs.per_1k_chars
        tables[name] = sim.assign(process=name)
    return {
        "closed_form": advise.advise(params, costs, max_unnoticed_min)["choice"],
        "table": pd.concat(tables.values(), ignore_index=True),
        **{
            f"{name}_choice": _choice(t, max_unnoticed_min, "sim_mean_unnoticed_min", "sim_cost")
            for name, t in tables.items()
        },
        "seeds": seeds,
    }


def _what(method: str, interval_min: float) -> str:
    when = "on every change" if method == "push" else f"every {interval_min:g} min"
    return f"{advise.LABELS[method]}, {when}"


def _measured(table: pd.DataFrame, process: str) -> bool:
    """Whether any cited article changed in the simulated days (else nothing to time)."""
    return bool(table.loc[table["process"] == process, "sim_mean_unnoticed_min"].notna().any())


def _line(label: str, c: pd.Series | None, measured: bool = True, seeds: int = 0) -> str:
    if not measured:
        return (
            f"{label}: no cited article changed in the {seeds} simulated days, so there is "
            "no unnoticed time to measure; run more days (--simulate N)."
        )
    if c is None:
        return f"{label}: no periodic method meets the target in the sweep; push."
    return (
        f"{label}: {_what(c['method'], c['interval_min'])}: {c['sim_calls']:,.0f} calls and "
        f"{c['sim_chars']:,.0f} characters a day, a change unnoticed "
        f"{c['sim_mean_unnoticed_min']:.1f} min on average; cost {c['sim_cost']:,.0f} a day."
    )


def _same(a: pd.Series | None, b: pd.Series | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a["method"] == b["method"] and (
        a["method"] == "push" or a["interval_min"] == b["interval_min"]
    )


def render(
    params: Params,
    shape: EditShape,
    costs: advise.Costs,
    max_unnoticed_min: float,
    result: dict[str, Any],
) -> str:
    c, p, f = result["calibrated_choice"], result["poisson_choice"], result["closed_form"]
    measured = {k: _measured(result["table"], k) for k in ("calibrated", "poisson")}
    if not all(measured.values()):
        verdict = "The two simulated advices cannot be compared on these days."
    elif _same(c, p):
        verdict = "The two simulated advices agree."
    else:
        verdict = (
            "The two simulated advices DIFFER: follow the calibrated one for this help centre."
        )
    lines = [
        f"Advice from the edit shape fitted to {Path(shape.source).name}: "
        f"{params.n_saves:,} save{'s' if params.n_saves != 1 else ''} (on average) and "
        f"{params.n_questions:,} questions in the {params.day_s / 3600:g}"
        f"-hour weekday window the log is busiest in, {params.n_articles:,} articles; a call "
        f"costs {costs.per_call:g}, 1,000 characters {costs.per_1k_chars:g}. Target: a change "
        f"to a cited article goes unnoticed {max_unnoticed_min:g} min or less on average. By "
        f"simulation, {result['seeds']} seeded days each (the closed forms assume Poisson saves).",
        _line("Calibrated process", c, measured["calibrated"], result["seeds"]),
        _line(
            "Write-up's Poisson process, same volume and seeds",
            p,
            measured["poisson"],
            result["seeds"],
        ),
        "Closed form (Poisson): "
        + ("push." if f is None else f"{_what(f['method'], f['interval_min'])}."),
        verdict,
    ]
    if verdict.startswith("The two simulated advices DIFFER") and p is not None:
        t = result["table"]
        at = t[
            (t["process"] == "calibrated")
            & (t["method"] == p["method"])
            & (t["interval_min"] == p["interval_min"])
        ]
        if (
            not at.empty
            and at.iloc[0]["sim_mean_unnoticed_min"] == at.iloc[0]["sim_mean_unnoticed_min"]
        ):
            lines.append(
                "On the calibrated process the Poisson choice leaves a change unnoticed "
                f"{at.iloc[0]['sim_mean_unnoticed_min']:.1f} min on average."
            )
    return "\n".join(lines)


def as_json(result: dict[str, Any]) -> dict[str, Any]:
    def plain(row: pd.Series | None) -> dict[str, Any] | None:
        return None if row is None else {k: advise._plain(v) for k, v in row.items()}

    return {
        "calibrated_choice": plain(result["calibrated_choice"]),
        "poisson_choice": plain(result["poisson_choice"]),
        "closed_form_choice": plain(result["closed_form"]),
        "seeds": result["seeds"],
        "rows": [
            {k: advise._plain(v) for k, v in r.items()} for r in result["table"].to_dict("records")
        ],
    }
