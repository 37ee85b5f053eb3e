"""The report's tables as DataFrames: seeds 1–5 as in the write-up, plus intervals over
all seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.corpus import build_corpus, load
from sim.experiments import WRITEUP_SEEDS, StudyFrames
from sim.kb.store import KBStore
from sim.metrics import checks_by_seed, staleness_by_seed
from sim.params import Params
from sim.report.stats import interval
from sim.rng import streams
from sim.server.tools import KBServer
from sim.theory import expected_check_calls, p_human_save_before_edit

POPULARITY = {"staleness": "zipf", "control": "even"}
_TITLE_COLUMNS = [
    "title_caught",
    "title_caught_body",
    "title_caught_title",
    "title_caught_gone",
    "title_false_alarms",
]


def _pooled(per_seed: pd.DataFrame, label: str) -> pd.DataFrame:
    total = per_seed.sum(numeric_only=True).to_frame().T
    total.insert(0, "seed", label)
    return total


def staleness_table(f: StudyFrames) -> pd.DataFrame:
    """Per seed and pooled: stale citations by kind, answers with one, what title-only caught."""
    parts = []
    for experiment, popularity in POPULARITY.items():
        s = staleness_by_seed(f.citations[f.citations["experiment"] == experiment])
        c = checks_by_seed(f.checks[f.checks["experiment"] == experiment])[_TITLE_COLUMNS]
        per_seed = s.join(c).drop(columns=["stale_share", "answers_with_stale_share"])
        per_seed = per_seed.reset_index().astype({"seed": str})
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


def check_cost_table(f: StudyFrames) -> pd.DataFrame:
    """Cost of each check method over all hourly checks, from the call log; what it caught
    and missed at the day's last check."""
    c = f.checks[f.checks["method"] != "truth"]
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
    g = e.groupby("delay_s")
    out = pd.DataFrame(
        {
            "edits": g.size(),
            "first_try_ok": g["first_outcome"].apply(lambda s: (s == "ok").sum()),
            "rejected": g["first_outcome"].apply(lambda s: (s == "conflict").sum()),
            "rejected_by_human_save": g["conflict_cause"].apply(lambda s: (s == "human").sum()),
            "rejected_by_agent_edit": g["conflict_cause"].apply(lambda s: (s == "agent").sum()),
            "gone": g["first_outcome"].apply(lambda s: (s == "gone").sum()),
            "retries": (g["attempts"].sum() - g.size()),
            "succeeded": g["final_outcome"].apply(lambda s: (s == "ok").sum()),
            "gave_up": g["final_outcome"].apply(lambda s: (s == "gave_up").sum()),
            "replays_matched": g["replay_matched"].sum(),
            "replay_new_events": g["replay_new_events"].sum(),
            "human_save_in_window": g["human_save_in_window"].sum(),
        }
    )
    out["rejected_share"] = out["rejected"] / out["edits"]
    return out


def _share_interval(e: pd.DataFrame, column: str, prefix: str) -> pd.DataFrame:
    per_seed = e.groupby(["delay_s", "seed"])[column].mean()
    rows = {d: interval(v.to_numpy()) for d, v in per_seed.groupby("delay_s")}
    return pd.DataFrame(
        {
            f"{prefix}_mean": {d: i.mean for d, i in rows.items()},
            f"{prefix}_ci_lo": {d: i.lo for d, i in rows.items()},
            f"{prefix}_ci_hi": {d: i.hi for d, i in rows.items()},
            "seeds": {d: i.n for d, i in rows.items()},
        }
    )


def cas_table(
    base: Params, all_seeds: StudyFrames, first5: StudyFrames, experiment: str
) -> pd.DataFrame:
    """Per delay: counts pooled over seeds 1–5, rejected share over all seeds with its
    interval, and the closed form for 'a human saved between read and edit'."""
    e_all = all_seeds.edits[all_seeds.edits["experiment"] == experiment]
    e_all = e_all.assign(rejected=e_all["first_outcome"] == "conflict")
    counts = _cas_counts(first5.edits[first5.edits["experiment"] == experiment])
    spread = _share_interval(e_all, "rejected", "rejected_share_all_seeds")
    human = (
        e_all.groupby("delay_s")["human_save_in_window"]
        .mean()
        .rename("human_save_in_window_share_all_seeds")
    )
    out = counts.add_suffix("_seeds_1_5").join(spread).join(human)
    out["human_save_in_window_theory"] = [p_human_save_before_edit(base, d) for d in out.index]
    return out.reset_index()


def stale_over_day_table(all_seeds: StudyFrames) -> pd.DataFrame:
    """Stale-or-gone share of citations held at each hourly check."""
    t = all_seeds.checks[all_seeds.checks["method"] == "truth"]
    t = t.assign(share=t["flagged"] / t["citations"].where(t["citations"] > 0))
    rows = []
    for (experiment, check), g in t.groupby(["experiment", "check"]):
        i = interval(g["share"].dropna().to_numpy())
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


def tool_calls_table(first5: StudyFrames) -> pd.DataFrame:
    """Every tool call of seeds 1–5, counted by run, client, tool and outcome."""
    return first5.calls.groupby(["experiment", "client_id", "tool", "outcome"], as_index=False)[
        ["calls", "result_chars"]
    ].sum()


def result_sizes(base: Params, seed: int = 1) -> dict[str, float]:
    """Characters a client receives for a read result (mean over the corpus), one event in a
    poll page, and a page's envelope: measured through the tools on a fresh copy of a seed's
    corpus."""
    now = [0]
    store = KBStore(lambda: now[0])
    articles = build_corpus(base.n_articles, streams(seed)["corpus"])
    load(store, "kb", articles)
    session = KBServer(store, lambda: now[0]).connect("sizes", ["kb"])
    reads = [
        session.call(
            "read_knowledge_article", {"knowledge_base_id": "kb", "article_id": a.article_id}
        ).chars
        for a, _ in articles
    ]
    head = store.head_sequence("kb")

    def page(after: int) -> int:
        return session.call(
            "poll_resource_events",
            {
                "resource_type": "knowledge_base",
                "resource_id": "kb",
                "after_sequence": after,
                "limit": 100,
            },
        ).chars

    empty, full = page(head), page(max(0, head - 100))
    return {
        "read": float(np.mean(reads)),
        "page": float(empty),
        "event": (full - empty) / min(100, head),
    }


def check_calls_by_check_table(base: Params, all_seeds: StudyFrames) -> pd.DataFrame:
    """Mean calls and characters per method at each check of the Zipf day, over all seeds,
    beside the closed-form expected calls and characters of re-read and poll."""
    c = all_seeds.checks[
        (all_seeds.checks["experiment"] == "staleness") & (all_seeds.checks["method"] != "truth")
    ]
    theory = {r["check"]: r for r in expected_check_calls(base)}
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
        i = interval(g["calls"].to_numpy())
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
