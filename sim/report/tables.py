"""The report's tables as DataFrames: seeds 1–5 as in the write-up, plus intervals over
all seeds."""

from __future__ import annotations

import pandas as pd

from sim.params import Params
from sim.stats import normal_interval
from sim.study.experiments import WRITEUP_SEEDS
from sim.study.metrics import EDIT_COUNTS
from sim.study.reported import human_save_forms
from sim.study.staleness import POPULARITY, check_call_forms, result_sizes


def _pooled(per_seed: pd.DataFrame, label: str) -> pd.DataFrame:
    total = per_seed.sum(numeric_only=True).to_frame().T
    total.insert(0, "seed", label)
    return total


def staleness_table(by_run: pd.DataFrame) -> pd.DataFrame:
    """Per seed and pooled: stale citations by kind, answers with one, what title-only caught."""
    parts = []
    for experiment, popularity in POPULARITY.items():
        per_seed = by_run[by_run["experiment"] == experiment].drop(
            columns=["experiment", "stale_share", "answers_with_stale_share"]
        )
        per_seed = per_seed.reset_index(drop=True).astype({"seed": str})
        table = pd.concat([per_seed, _pooled(per_seed.drop(columns="seed"), "pooled")])
        table.insert(0, "save_popularity", popularity)
        parts.append(table)
    t = pd.concat(parts, ignore_index=True)
    t["stale_share"] = t["stale"] / t["citations"]
    t["answers_with_stale_share"] = t["answers_with_stale"] / t["answers"]
    t["title_caught_share"] = t["title_caught"] / t["stale"]
    t["title_missed_body"] = t["stale_body"] - t["title_caught_body"]
    t["title_missed_title"] = t["stale_title"] - t["title_caught_title"]
    t["title_missed_gone"] = t["gone"] - t["title_caught_gone"]
    return t


def check_cost_table(checks: pd.DataFrame) -> pd.DataFrame:
    """Cost of each check method over all hourly checks, from the call log; what it caught
    and missed at the day's last check."""
    c = checks[checks["method"] != "truth"]
    last = c[c["check"] == c["check"].max()]
    g = c.groupby(["experiment", "method"], sort=False)
    out = pd.DataFrame(
        {
            "checks": g.size(),
            "calls": g["calls"].sum(),
            "calls_per_check_max": g["calls"].max(),
            "poll_calls": g["poll_calls"].sum(),
            "articles_reread": g["articles_reread"].sum(),
            "result_chars": g["result_chars"].sum(),
            "caught_at_day_end": last.groupby(["experiment", "method"])["caught"].sum(),
            "missed_at_day_end": last.groupby(["experiment", "method"])["missed"].sum(),
            "false_alarms_at_day_end": last.groupby(["experiment", "method"])["false_alarms"].sum(),
        }
    ).reset_index()
    out["calls_per_check"] = out["calls"] / out["checks"]
    out["result_chars_per_check"] = out["result_chars"] / out["checks"]
    out.insert(0, "save_popularity", out.pop("experiment").map(POPULARITY))
    return out


def _cas_counts(e: pd.DataFrame) -> pd.DataFrame:
    out = e.groupby("delay_s")[EDIT_COUNTS].sum()
    out.insert(6, "retries", out.pop("attempts") - out["edits"])
    out["rejected_share"] = out["rejected"] / out["edits"]
    return out


def cas_table(base: Params, edits: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """Per delay: counts pooled over seeds 1–5, rejected share over all seeds with its
    interval, and the closed form for 'a human saved between read and edit'."""
    e_all = edits[edits["experiment"] == experiment].sort_values(["delay_s", "seed"])
    counts = _cas_counts(e_all[e_all["seed"].isin(WRITEUP_SEEDS)])
    per_seed = e_all["rejected"] / e_all["edits"]
    rows = {d: normal_interval(v.to_numpy()) for d, v in per_seed.groupby(e_all["delay_s"])}
    prefix = "rejected_share_all_seeds"
    spread = pd.DataFrame(
        {
            f"{prefix}_mean": {d: i.mean for d, i in rows.items()},
            f"{prefix}_ci_lo": {d: i.lo for d, i in rows.items()},
            f"{prefix}_ci_hi": {d: i.hi for d, i in rows.items()},
            "seeds": {d: i.n for d, i in rows.items()},
        }
    )
    totals = e_all.groupby("delay_s")[["human_save_in_window", "edits"]].sum()
    human = (totals["human_save_in_window"] / totals["edits"]).rename(
        "human_save_in_window_share_all_seeds"
    )
    out = counts.add_suffix("_seeds_1_5").join(spread).join(human)
    out["human_save_in_window_theory"] = human_save_forms(base, list(out.index))
    return out.reset_index()


def stale_over_day_table(checks: pd.DataFrame) -> pd.DataFrame:
    """Stale-or-gone share of citations held at each hourly check."""
    t = checks[checks["method"] == "truth"]
    t = t.assign(share=t["flagged"] / t["citations"].where(t["citations"] > 0))
    rows = []
    for (experiment, check), g in t.groupby(["experiment", "check"]):
        i = normal_interval(g["share"].dropna().to_numpy())
        first5 = g[g["seed"].isin(WRITEUP_SEEDS)]
        rows.append(
            {
                "save_popularity": POPULARITY[experiment],
                "check": check,
                "hour": g["t_s"].iloc[0] / 3600,
                "stale_share_seeds_1_5": first5["flagged"].sum()
                / max(1, first5["citations"].sum()),
                "stale_share_mean": i.mean,
                "stale_share_ci_lo": i.lo,
                "stale_share_ci_hi": i.hi,
                "seeds": i.n,
            }
        )
    return pd.DataFrame(rows)


def tool_calls_table(calls: pd.DataFrame) -> pd.DataFrame:
    """Every tool call of seeds 1–5, counted by run, client, tool and outcome."""
    first5 = calls[calls["seed"].isin(WRITEUP_SEEDS)]
    return first5.groupby(["experiment", "client_id", "tool", "outcome"], as_index=False)[
        ["calls", "result_chars"]
    ].sum()


def check_calls_by_check_table(base: Params, checks: pd.DataFrame) -> pd.DataFrame:
    """Mean calls and characters per method at each check of the Zipf day, over all seeds,
    beside the closed-form expected calls and characters of re-read and poll."""
    c = checks[(checks["experiment"] == "staleness") & (checks["method"] != "truth")]
    theory = check_call_forms(base)
    size = result_sizes(base)

    def chars(method: str, r: dict[str, float]) -> float:
        if method == "reread":
            return r["reread_calls"] * size["read"]
        if method == "poll":
            reads = r["poll_calls"] - r["poll_pages"]
            return (
                r["poll_pages"] * size["page"]
                + r["poll_events"] * size["event"]
                + (reads * size["read"])
            )
        return float("nan")

    rows = []
    for (method, check), g in c.groupby(["method", "check"]):
        i = normal_interval(g["calls"].to_numpy())
        rows.append(
            {
                "method": method,
                "check": check,
                "hour": g["t_s"].iloc[0] / 3600,
                "calls_mean": i.mean,
                "calls_ci_lo": i.lo,
                "calls_ci_hi": i.hi,
                "result_chars_mean": g["result_chars"].mean(),
                "seeds": i.n,
                "calls_closed_form": theory[check].get(f"{method}_calls", float("nan")),
                "result_chars_closed_form": chars(method, theory[check]),
            }
        )
    return pd.DataFrame(rows)
