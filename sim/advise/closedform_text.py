"""What `python -m sim advise` prints from the closed forms (``sim.advise.closedform``): the
table, the choice and why, as text or JSON."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.advise.closedform import LABELS, MODEL_MARGIN, Costs
from sim.params import Params


def _ends(row: Any, lo_key: str, hi_key: str, fmt: str) -> str:
    """A simulated figure's 95 % interval over seeds, 'lo–hi'; where the seeds give none, so
    said (never the bare figure as if it had one)."""
    lo, hi = row.get(lo_key), row.get(hi_key)
    if lo is None or hi is None or not (np.isfinite(lo) and np.isfinite(hi)):
        return "no interval: too few seeds"
    return f"{lo:{fmt}}–{hi:{fmt}}"


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 10 else f"{x:.1f}"


def render(params: Params, costs: Costs, max_unnoticed_min: float, result: dict[str, Any]) -> str:
    best, choice = result["best"], result["choice"]
    head = (
        f"A KB of {params.n_articles:,} articles, {params.n_saves:,g} saves and "
        f"{params.n_questions:,} questions in a {params.day_s / 3600:g}-hour day, "
        f"Zipf {params.zipf_s:g}, "
        f"{params.citations_per_answer} citations an answer; a call or notification costs "
        f"{costs.per_call:g}, 1,000 characters {costs.per_1k_chars:g}. Target: a change to a "
        f"cited article goes unnoticed {max_unnoticed_min:g} min or less on average."
    )
    unranked = _unranked(result)
    if choice is None:
        return "\n".join(x for x in (head, _no_choice(result), unranked) if x)
    when = _when(choice)
    sim = "sim_cost" in best
    seeds = result.get("seeds", 0)
    if sim:
        checked = (
            f"In simulation ({seeds} seeds) it leaves a change unnoticed "
            f"{choice['sim_mean_unnoticed_min']:.1f} min on average"
            f" (95 % CI {_ends(choice, 'sim_unnoticed_lo_min', 'sim_unnoticed_hi_min', '.1f')})"
            f" and costs {_fmt(choice['sim_cost'])} a day"
            f" (95 % CI {_ends(choice, 'sim_cost_lo', 'sim_cost_hi', ',.0f')})."
        )
        line = max_unnoticed_min * (1 - MODEL_MARGIN)
        stepped = [
            f"{LABELS[r['method']]}: the closed form's {r['closed_form_every']:g} min misses the "
            f"target with margin in simulation (its 95 % interval's upper end passes {line:g} "
            f"min, {100 * MODEL_MARGIN:g} % under the target, by {r['sim_miss_min']:.1f} min), so "
            f"{r['interval_min']:g} min"
            for _, r in best.iterrows()
            if r["sim_miss_min"] > 0
        ]
        if stepped:
            checked += " Stepped to a shorter interval: " + "; ".join(stepped) + "."
    else:
        checked = (
            "Not checked in simulation: --simulate N runs N days and steps to a shorter "
            "interval where the simulated time unnoticed does not meet the target with margin."
        )
        if choice["method"] != "push":
            under = max_unnoticed_min - choice["mean_unnoticed_min"]
            checked = (
                f"Its margin: {under:.1f} min ({under / max_unnoticed_min:.0%}) under the target "
                "by the closed form, which has no interval: it is exact for Poisson saves over a "
                "uniform day, and burstier saves leave a change unnoticed longer. " + checked
            )
    lines = [
        head,
        f"Use {LABELS[choice['method']]}, {when}: {_fmt(choice['calls'])} calls, "
        f"{_fmt(choice['notifications'])} notifications and {_fmt(choice['chars'])} characters a "
        f"day, a change unnoticed {choice['mean_unnoticed_min']:.1f} min on average; cost "
        f"{_fmt(choice['cost'])} a day (closed form). {checked}",
        "",
    ]
    cols = ["method", "every", "calls/day", "notif./day", "chars/day", "unnoticed min", "cost"]
    # the simulated figures each with its interval (calls and characters: in --json)
    cols += ["sim unnoticed (95 % CI)", "sim cost (95 % CI)"] if sim else []
    rows = []
    for _, r in best.iterrows():
        row = [
            LABELS[r["method"]],
            "change" if r["method"] == "push" else f"{r['interval_min']:g} min",
            _fmt(r["calls"]),
            _fmt(r["notifications"]),
            _fmt(r["chars"]),
            f"{r['mean_unnoticed_min']:.1f}",
            _fmt(r["cost"]),
        ]
        if sim:
            row += [
                f"{r['sim_mean_unnoticed_min']:.1f} "
                f"({_ends(r, 'sim_unnoticed_lo_min', 'sim_unnoticed_hi_min', '.1f')})",
                f"{_fmt(r['sim_cost'])} ({_ends(r, 'sim_cost_lo', 'sim_cost_hi', ',.0f')})",
            ]
        rows.append(row)
    widths = [max(len(str(x)) for x in col) for col in zip(cols, *rows, strict=True)]
    for row in (cols, *rows):
        lines.append("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)).rstrip())
    lines.append(
        "Each row: the method's cheapest check interval that meets the target"
        + (
            f" with margin in simulation (its 95 % interval over seeds ends {100 * MODEL_MARGIN:g}"
            " % under it or more)."
            if sim
            else " (closed form)."
        )
        + (
            " Re-read and poll stop checking an article once its citations are all known"
            " stale, as push unsubscribes."
            if params.stop_checking_known_stale
            else " Re-read and poll check every held citation at every check."
        )
    )
    if unranked:
        lines.append(unranked)
    return "\n".join(lines)


def as_json(
    params: Params, costs: Costs, max_unnoticed_min: float, result: dict[str, Any]
) -> dict[str, Any]:
    choice = result["choice"]
    return {
        "inputs": {
            "articles": params.n_articles,
            "saves_per_day": params.n_saves,
            "questions_per_day": params.n_questions,
            "day_hours": params.day_s / 3600,
            "zipf_s": params.zipf_s,
            "citations_per_answer": params.citations_per_answer,
            "cost_per_call": costs.per_call,
            "cost_per_1k_chars": costs.per_1k_chars,
            "max_unnoticed_min": max_unnoticed_min,
        },
        "sizes_chars": vars(result["sizes"]),
        "choice": None if choice is None else {k: _plain(v) for k, v in choice.items()},
        "verdict": _verdict(result),
        "not_computed": result.get("not_computed", []),
        "rows": [{k: _plain(v) for k, v in r.items()} for r in result["table"].to_dict("records")],
    }


def _plain(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    return None if isinstance(v, float) and v != v else v


def _unranked(result: dict[str, Any]) -> str:
    """The sentence naming methods whose closed form overflowed at these rates, or ''."""
    missing = result.get("not_computed", [])
    if not missing:
        return ""
    names = ", ".join(LABELS[m] for m in missing)
    return (
        f"Not ranked, their closed forms overflowing at these rates (neither recommended nor "
        f"ruled out): {names}."
        if len(missing) > 1
        else f"Not ranked: {names}: its closed form could not be computed at these rates "
        "(numeric overflow), so it is neither recommended nor ruled out."
    )


def _no_choice(result: dict[str, Any]) -> str:
    missing = result.get("not_computed", [])
    if set(LABELS) <= set(missing):
        return "No method can be ranked at these rates: every closed form overflowed."
    push = "" if "push" in missing else "; push notices at once"
    return f"No method meets the target within 1 min – 4 h checks{push}."


def _when(choice: Any) -> str:
    return (
        "on every change" if choice["method"] == "push" else f"every {choice['interval_min']:g} min"
    )


def _verdict(result: dict[str, Any]) -> str:
    choice = result["choice"]
    if choice is None:
        return _no_choice(result)
    return f"Use {LABELS[choice['method']]}, {_when(choice)}."
