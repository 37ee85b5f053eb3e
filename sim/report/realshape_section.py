"""REPORT.md's appendix "On a real help centre's edits" and its figures, from realshape's
tables: the values its templates (templates/realshape_section.md.j2, realshape_panel.md.j2)
word; the tables are realshape_tables'.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.pages import md
from sim.report import picks
from sim.report.realshape_effects import seeds_text
from sim.report.realshape_tables import (
    BRACKET_FIGURES,
    HEADLINE,
    LABELS,
    ablation_rows,
    arm_cell,
    arm_row,
    bracket_rows,
    figure_ci,
    figure_value,
    headline_rows,
    panel_rows,
    per_log,
    process_rows,
    relation_rows,
    shared_log,
    traits_rows,
    verdict,
)
from sim.report.render import environment, render
from sim.study.realshape import BRACKETS, FIGURES, SHARES, Setting

SHORT = {
    "stale_share": "stale at\nday end",
    "answers_with_stale_share": "answers\nwith one",
    "title_caught_share": "title check\ncatches",
    "cas_reject_5s": "CAS rejected\nat 5 s",
    "cas_reject_600s": "CAS rejected\nat 10 min",
    "cas_reject_3600s": "CAS rejected\nat 1 h",
    "cas_reject_14400s": "CAS rejected\nat 4 h",
}


def _targets(table: pd.DataFrame, target_min: float) -> list[dict[str, object]]:
    """Whether the advisor's choice meets its target in each headline arm, by its CI."""
    targets = []
    for arm, name in (("writeup", "the write-up's process"), ("calibrated", "the calibrated")):
        r = arm_cell(table, "unnoticed_min", arm)
        if r is None:
            continue
        if r["ci_hi"] <= target_min:
            reach = "meets"
        elif r["ci_lo"] > target_min:
            reach = "misses"
        else:
            reach = "spans"
        targets.append(
            {"name": name, "mean": r["mean"], "reach": reach, "by": r["mean"] - target_min}
        )
    return targets


TRAITS = {
    "zipf_s": "popularity exponent",
    "burstiness_b": "burstiness",
    "bulk_share": "bulk share",
}


def _ordered_by(
    cells: list[pd.Series], logs: list[str], traits: pd.DataFrame
) -> list[tuple[str, bool]]:
    """The traits (label, inverse) whose order across the logs is the difference's order."""
    order = list(np.argsort([c["diff_mean"] for c in cells]))
    t = traits.set_index("log").loc[logs]
    hits = [
        (label, False)
        for key, label in TRAITS.items()
        if list(np.argsort(t[key].to_numpy())) == order
    ]
    hits += [
        (label, True)
        for key, label in TRAITS.items()
        if list(np.argsort(-t[key].to_numpy())) == order
    ]
    return hits


def _orders_covered(traits: pd.DataFrame, logs: list[str]) -> int:
    """How many of the logs' possible orders some trait, or its inverse, already takes."""
    t = traits.set_index("log").loc[logs]
    covered = set()
    for key in TRAITS:
        up = tuple(int(i) for i in np.argsort(t[key].to_numpy(), kind="stable"))
        covered |= {up, up[::-1]}
    return len(covered)


def _brackets(table: pd.DataFrame, traits: pd.DataFrame) -> dict[str, object] | None:
    """The bracket arms' tables and their equal-volume moves whose interval excludes 0;
    None without bracket arms."""
    rows = bracket_rows(table)
    if rows.empty or "multi_share" not in traits:
        return None
    g = table[table["arm"].isin(BRACKETS) & table["figure"].isin(BRACKET_FIGURES)]
    g = g[g["eqvol_mean"].notna()]
    hit = g[(g["eqvol_ci_lo"] > 0) | (g["eqvol_ci_hi"] < 0)]
    hits = [
        {
            "arm": LABELS[r["arm"]],
            "log": r["log"],
            "figure": FIGURES[r["figure"]],
            "ci": figure_ci(r, r["figure"], "eqvol_"),
        }
        for _, r in hit.iterrows()
    ]
    return {"process": md(process_rows(traits)), "moves": md(rows), "hits": hits, "total": len(g)}


def volume(table: pd.DataFrame, own_per_day: pd.Series | None) -> dict[str, object] | None:
    """The saves a day the shaped arms ran at (the write-up's volume in each log's shape),
    their range over arms and logs, and each log's own saves a calendar day with how many
    times that the arms ran; None without the logs' rates."""
    from sim.study.realshape import SHARED_ARMS

    saves = table[(table["figure"] == "saves") & ~table["arm"].isin(SHARED_ARMS)]
    if own_per_day is None or saves.empty:
        return None
    by_log = saves.groupby("log", sort=False)["mean"]
    own = [
        {"log": log, "rate": float(own_per_day[log]), "lo": g.min(), "hi": g.max()}
        for log, g in by_log
    ]
    return {
        "lo": float(saves["mean"].min()),
        "hi": float(saves["mean"].max()),
        "own": own,
        "times_lo": min(o["lo"] / o["rate"] for o in own),
        "times_hi": max(o["hi"] / o["rate"] for o in own),
    }


def panel_text(
    table: pd.DataFrame, traits: pd.DataFrame, own_per_day: pd.Series | None = None
) -> str:
    """The panel's subsection: each log's traits, the volume its arms ran at (the
    write-up's, against each log's own), each effect per log, what holds across."""
    logs = list(dict.fromkeys(table["log"]))
    holds, depends, undecided = [], [], []
    every_order = _orders_covered(traits, logs) == math.factorial(len(logs))
    for f in HEADLINE:
        cells = per_log(table, f, logs)
        if any(c is None or "diff_mean" not in c for c in cells):
            continue
        v = verdict(cells)
        if v.startswith("holds"):
            holds.append({"figure": FIGURES[f], "note": v.split(": ")[1], "ordered": None})
        elif v.startswith("none"):
            continue  # no difference anywhere: nothing to hold or depend
        elif v.startswith("undecided"):
            undecided.append({"figure": FIGURES[f], "note": ""})  # no order to read into
        else:
            ordered = None if every_order else _ordered_by(cells, logs, traits)
            depends.append({"figure": FIGURES[f], "note": v, "ordered": ordered})
    return render(
        "realshape_panel.md.j2",
        n_logs=len(logs),
        volume=volume(table, own_per_day),
        seeds=seeds_text(table),
        traits_table=md(traits_rows(table, traits)),
        effects=md(panel_rows(table)),
        equal=md(panel_rows(table, "eqvol_")),
        brackets=_brackets(table, traits),
        holds=holds,
        depends=depends,
        undecided=undecided,
        traits=list(TRAITS.values()),
        orders=math.factorial(len(logs)),
        covered=_orders_covered(traits, logs),
    )


def section_text(
    table: pd.DataFrame,
    moves: pd.DataFrame,
    seeds: int,
    setting: Setting,
    paired: pd.DataFrame | None = None,
    own_per_day: pd.Series | None = None,
) -> str:
    """The section; `setting` says what was run: shape source, window, volumes, advice. A
    panel table (with a log column) adds the panel's subsection, with ``own_per_day`` (each
    log's saves a calendar day) the volume its arms ran at beside the logs' own; the
    ablation and the question relations are read on the shared log."""
    panel = table if "log" in table.columns else None
    table, moves = shared_log(table), shared_log(moves)
    grids = table if paired is None else shared_log(paired)
    common = int(grids["seeds"].min())
    n = int(table["seeds"].max())
    panel_words = ""
    if panel is not None and "traits" in setting:
        panel_words = panel_text(panel, setting["traits"], own_per_day)
    return render(
        "realshape_section.md.j2",
        setting=setting,
        saves=arm_row(table, "saves", "calibrated")["mean"],
        targets=_targets(table, float(setting["target"])),
        seeds=seeds,
        n=n,
        common=common,
        headline=md(headline_rows(table, moves)),
        top=arm_row(table, "top10_save_share", "calibrated")["mean"],
        top_writeup=arm_row(table, "top10_save_share", "writeup")["mean"],
        ablation=md(ablation_rows(grids)),
        relations=md(relation_rows(grids)),
        panel=panel_words,
    )


_UNITS = {"reread_calls": "calls a day", "poll_calls": "calls a day", "unnoticed_min": "min"}


def figure(table: pd.DataFrame) -> Figure:
    """Each headline figure's moves, as seed-paired differences with 95 % CIs: the whole
    calibrated shape against the write-up's process, each real feature alone against every
    feature off, and each question relation against its own ranking."""
    import matplotlib.pyplot as plt

    table = shared_log(table)  # the ablation and relations are the shared log's; panel_figure
    moved = table[table["diff_mean"].notna() & table["figure"].isin(HEADLINE)]
    arms = list(dict.fromkeys(moved["arm"]))
    figs = [f for f in HEADLINE if f in set(moved["figure"]) and f != "cas_reject_5s"]
    cols = 4
    rows = -(-len(figs) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(13, 0.28 * len(arms) * rows + 1.8), sharey=True)
    flat = np.atleast_1d(axes).ravel()
    y = np.arange(len(arms))[::-1]
    colours = ["tab:red" if a == "calibrated" else "tab:blue" for a in arms]
    for ax, f in zip(flat, figs, strict=False):
        scale, unit = (100.0, "points") if f in SHARES else (1.0, _UNITS.get(f, ""))
        for k, arm in enumerate(arms):
            r = arm_cell(moved, f, arm)
            if r is None:
                continue
            m, lo, hi = (scale * r[c] for c in ("diff_mean", "diff_ci_lo", "diff_ci_hi"))
            ax.errorbar(m, y[k], xerr=[[m - lo], [hi - m]], fmt="o", ms=4, color=colours[k])
        ax.axvline(0, color="k", lw=0.7)
        name = SHORT.get(f, FIGURES.get(f, f)).replace("\n", " ")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(f"difference ({unit})" if unit else "difference", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    for ax in flat[len(figs) :]:
        ax.set_visible(False)
    refs = {a: moved.loc[moved["arm"] == a, "reference"].iloc[0] for a in arms}
    short = {"calibrated, every feature off": "every feature off", "write-up's process": "write-up"}

    def against(a: str) -> str:
        ref = LABELS.get(refs[a], refs[a])
        return f"{LABELS.get(a, a)} − {short.get(ref, ref)}"

    flat[0].set_yticks(y, [against(a) for a in arms])
    for ax in flat[::cols]:
        ax.tick_params(axis="y", labelsize=7)
    whole = moved[(moved["arm"] == "calibrated") & moved["figure"].isin(SHARES)]
    named = picks.ranked(picks.with_holm(whole, "diff_p"), "diff_mean")
    most = None
    if len(named):
        top = named.iloc[0]
        name = SHORT.get(top["figure"], FIGURES.get(top["figure"], "")).replace("\n", " ")
        move = figure_value(top["figure"], top["diff_mean"], True)
        most = {"name": name, "move": move, "family": len(whole)}
    lo, hi = int(moved["seeds"].min()), int(moved["seeds"].max())
    fig.suptitle(_titles().title(most, lo, hi), fontsize=10)
    fig.tight_layout()
    return fig


def panel_figure(table: pd.DataFrame) -> Figure:
    """Calibrated − write-up on each log of the panel, per headline share, with 95 % CIs;
    its title says which keep their direction on every log."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 4))
    shares = [f for f in HEADLINE if f in SHARES]
    logs = list(dict.fromkeys(table["log"]))
    width = 0.8 / len(logs)
    for i, log in enumerate(logs):
        cells = [arm_row(table[table["log"] == log], f, "calibrated") for f in shares]
        mean = np.array([c["diff_mean"] for c in cells]) * 100
        lo = np.array([c["diff_ci_lo"] for c in cells]) * 100
        hi = np.array([c["diff_ci_hi"] for c in cells]) * 100
        x = np.arange(len(shares)) + (i - (len(logs) - 1) / 2) * width
        ax.bar(x, mean, width, label=log)
        ax.errorbar(x, mean, yerr=[mean - lo, hi - mean], fmt="none", ecolor="k", lw=0.7)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(np.arange(len(shares)))
    ax.set_xticklabels([SHORT[f] for f in shares], fontsize=8)
    verdicts = {f: verdict(per_log(table, f, logs)) for f in shares}
    held = [
        (SHORT[f].replace("\n", " "), v.split(": ")[1].split()[0])
        for f, v in verdicts.items()
        if v.startswith("holds")
    ]
    title = _titles().panel_title(held, len(shares), len(logs))
    ax.set(ylabel="points (calibrated − write-up, 95 % CI)", title=title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _titles() -> Any:
    """The figures' titles: templates/realshape_figures.txt.j2's macros."""
    return environment().get_template("realshape_figures.txt.j2").module
