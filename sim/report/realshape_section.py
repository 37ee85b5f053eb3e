"""REPORT.md's section "On a real help centre's edits", and its figure, from realshape's tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.pages import md, pct
from sim.params import SHAPE_FEATURES
from sim.report import picks
from sim.report.realshape_tables import seeds_text
from sim.study.realshape import (
    ABLATION,
    ARMS,
    BRACKETS,
    FIGURES,
    SHARED_LOG,
    SHARES,
    Setting,
)

HEADLINE = (
    "stale_share",
    "answers_with_stale_share",
    "title_caught_share",
    "reread_calls",
    "poll_calls",
    "poll_over_reread_chars",
    "cas_reject_5s",
    "cas_reject_600s",
    "cas_reject_3600s",
    "cas_reject_14400s",
    "unnoticed_min",
)
SHORT = {
    "stale_share": "stale at\nday end",
    "answers_with_stale_share": "answers\nwith one",
    "title_caught_share": "title check\ncatches",
    "cas_reject_5s": "CAS rejected\nat 5 s",
    "cas_reject_600s": "CAS rejected\nat 10 min",
    "cas_reject_3600s": "CAS rejected\nat 1 h",
    "cas_reject_14400s": "CAS rejected\nat 4 h",
}
LABELS = {a.name: a.label for a in ARMS}
RELATIONS = ("calibrated", "calibrated_independent", "calibrated_clustered")


def _num(figure: str, x: float, signed: bool = False) -> str:
    if pd.isna(x):
        return "–"
    if figure in SHARES:
        return f"{100 * x:+.1f} pt" if signed else pct(x)
    if figure.startswith("poll_over"):
        return f"{x:+.3f}" if signed else f"{x:.3f}"
    return f"{x:+,.1f}" if signed else f"{x:,.1f}"


def _ci(r: pd.Series, figure: str, prefix: str = "") -> str:
    signed = bool(prefix)
    mean, lo, hi = (r[f"{prefix}{k}"] for k in ("mean", "ci_lo", "ci_hi"))
    return f"{_num(figure, mean, signed)} ({_num(figure, lo, signed)} – {_num(figure, hi, signed)})"


def _cell(table: pd.DataFrame, figure: str, arm: str) -> pd.Series | None:
    hit = table[(table["figure"] == figure) & (table["arm"] == arm)]
    return None if hit.empty else hit.iloc[0]


def _row(table: pd.DataFrame, figure: str, arm: str) -> pd.Series:
    """A figure's row of an arm the section needs: the table of a full run holds it."""
    row = _cell(table, figure, arm)
    if row is None:
        raise ValueError(f"realshape table: expected a row for {figure} of arm {arm}; none")
    return row


def _per_log(table: pd.DataFrame, figure: str, logs: list[str]) -> list[pd.Series | None]:
    """The calibrated arm's row of ``figure`` on each log of the panel, in ``logs`` order."""
    return [_cell(table[table["log"] == log], figure, "calibrated") for log in logs]


def headline_rows(table: pd.DataFrame, moves: pd.DataFrame) -> pd.DataFrame:
    by = moves.set_index("figure") if not moves.empty else pd.DataFrame()
    rows = []
    for f in HEADLINE:
        w, c = _cell(table, f, "writeup"), _cell(table, f, "calibrated")
        if w is None or c is None:
            continue
        m = by.loc[f] if f in by.index else None
        most = "–"
        if m is not None and m["moved_most_by"] != "none":
            most = f"{m['moved_most_by']} ({_num(f, m['diff_mean'], True)}, Holm p "
            most += f"{picks.p_text(m['p_holm'])})"
        elif m is not None:
            most = f"none (Holm p ≥ {m['p_holm']:.2f})"
        rows.append(
            {
                "figure": FIGURES[f],
                "write-up's process": _ci(w, f),
                "calibrated shape": _ci(c, f),
                "calibrated − write-up": _ci(c, f, "diff_"),
                "real feature that moves it most": most,
            }
        )
    return pd.DataFrame(rows)


def _grid(table: pd.DataFrame, arms: tuple[str, ...], labels: tuple[str, ...]) -> pd.DataFrame:
    rows = []
    for f in HEADLINE:
        row = {"figure": FIGURES[f]}
        for arm, label in zip(arms, labels, strict=True):
            r = _cell(table, f, arm)
            if r is None:
                row[label] = "–"
            elif arm in ABLATION or r["reference"] == "calibrated":
                row[label] = f"{_num(f, r['mean'])} ({_num(f, r['diff_mean'], True)})"
            else:
                row[label] = _num(f, r["mean"])
        rows.append(row)
    return pd.DataFrame(rows)


def _target_text(table: pd.DataFrame, target_min: float) -> str:
    """Whether the advisor's choice meets its target in each headline arm, by its CI."""
    parts = []
    for arm, name in (("writeup", "the write-up's process"), ("calibrated", "the calibrated")):
        r = _cell(table, "unnoticed_min", arm)
        if r is None:
            continue
        if r["ci_hi"] <= target_min:
            verdict = "meets it"
        elif r["ci_lo"] > target_min:
            verdict = f"misses it by {r['mean'] - target_min:.1f} min"
        else:
            verdict = "its 95 % interval spans the target"
        parts.append(f"under {name} {r['mean']:.1f} min, {verdict}")
    return "; ".join(parts)


def _shared(frame: pd.DataFrame) -> pd.DataFrame:
    """The shared log's part of a panel table (a one-log table as it is)."""
    if "log" not in frame.columns:
        return frame
    return frame[frame["log"] == SHARED_LOG].drop(columns="log").reset_index(drop=True)


TRAITS = {
    "zipf_s": "popularity exponent",
    "burstiness_b": "burstiness",
    "bulk_share": "bulk share",
}


def verdict(cells: list[pd.Series], prefix: str = "diff_") -> str:
    """Whether a difference keeps its direction on every log of the panel, by its CIs."""
    mean = np.array([c[f"{prefix}mean"] for c in cells], dtype=float)
    lo = np.array([c[f"{prefix}ci_lo"] for c in cells], dtype=float)
    hi = np.array([c[f"{prefix}ci_hi"] for c in cells], dtype=float)
    if not len(mean) or np.isnan(mean).any():
        return "–"
    up, down = lo > 0, hi < 0
    if not mean.any() and not lo.any() and not hi.any():
        return "none on any log (0 on each)"
    if up.all() or down.all():
        return f"holds: {'higher' if up.all() else 'lower'} on every log"
    if up.any() and down.any():
        return "reverses with the log"
    if not (up | down).any():
        return "undecided on every log (each interval holds 0)"
    if (mean > 0).all() or (mean < 0).all():
        beyond = int((up | down).sum())
        return f"same direction; beyond noise on {beyond} of {len(mean)}"
    return "depends on the log"


def _ordered_by(cells: list[pd.Series], logs: list[str], traits: pd.DataFrame) -> str:
    """The traits whose order across the logs is the difference's order."""
    order = list(np.argsort([c["diff_mean"] for c in cells]))
    t = traits.set_index("log").loc[logs]
    hits = [label for key, label in TRAITS.items() if list(np.argsort(t[key].to_numpy())) == order]
    hits += [
        f"the inverse of the {label}"
        for key, label in TRAITS.items()
        if list(np.argsort(-t[key].to_numpy())) == order
    ]
    return " or ".join(hits) if hits else "none of " + ", ".join(TRAITS.values())


def _orders_covered(traits: pd.DataFrame, logs: list[str]) -> int:
    """How many of the logs' possible orders some trait, or its inverse, already takes."""
    t = traits.set_index("log").loc[logs]
    covered = set()
    for key in TRAITS:
        up = tuple(int(i) for i in np.argsort(t[key].to_numpy(), kind="stable"))
        covered |= {up, up[::-1]}
    return len(covered)


def _order_chance(traits: pd.DataFrame, logs: list[str]) -> str:
    """The share of the logs' orders a difference's would match some trait in by chance."""
    orders = math.factorial(len(logs))
    covered = _orders_covered(traits, logs)
    return (
        f"of the {orders} orders {len(logs)} logs can take, {covered} match one of the "
        f"{len(TRAITS)} traits ({', '.join(TRAITS.values())}) or its inverse, so a difference "
        f"would match one by chance alone {100 * covered / orders:.0f} % of the time"
        + (", and no order is named above." if covered == orders else ".")
    )


def panel_rows(table: pd.DataFrame, prefix: str = "diff_") -> pd.DataFrame:
    """Per headline figure: calibrated − write-up on each log with its CI, and the verdict
    across the panel."""
    logs = list(dict.fromkeys(table["log"]))
    rows = []
    for f in HEADLINE:
        cells = _per_log(table, f, logs)
        if any(c is None or f"{prefix}mean" not in c for c in cells):
            continue
        row = {"figure": FIGURES[f]}
        row |= {log: _ci(c, f, prefix) for log, c in zip(logs, cells, strict=True)}
        row["across the panel"] = verdict(cells, prefix)
        rows.append(row)
    return pd.DataFrame(rows)


BRACKET_FIGURES = ("stale_share", "title_caught_share", "poll_calls", "cas_reject_3600s")
"""The answers' figures the brackets are read on."""


def bracket_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Per bracket arm and figure: its seed-paired move from the calibrated shape on each log
    with its 95 % interval, as run and at equal day volume (a bracket's day holds its own
    count of saves)."""
    logs = list(dict.fromkeys(table["log"]))
    rows = []
    for arm in BRACKETS:
        for f in BRACKET_FIGURES:
            cells = [_cell(table[table["log"] == log], f, arm) for log in logs]
            if any(c is None or pd.isna(c.get("diff_mean")) for c in cells):
                continue
            row = {"arm": LABELS[arm], "figure": FIGURES[f]}
            row |= {
                log: f"{_ci(c, f, 'diff_')}; at equal volume {_ci(c, f, 'eqvol_')}"
                for log, c in zip(logs, cells, strict=True)
            }
            rows.append(row)
    return pd.DataFrame(rows)


def process_rows(traits: pd.DataFrame) -> pd.DataFrame:
    """Per log: what the bracket arms change in the generated process, beside the log."""
    return pd.DataFrame(
        {
            "log": r.log,
            "multi-article publishes: log": pct(r.multi_share),
            "fitted process": pct(r.multi_share_fit),
            "bulk-matched arm": pct(r.multi_share_matched),
            "burstiness B: log": f"{r.burstiness_b:.3f}",
            "fitted process ": f"{r.burstiness_b_fit:.3f}",
            "burst arm": f"{r.burstiness_b_stretched:.3f}",
            "its stretch": f"×{r.burst_stretch:g}",
            "saves a session: log": f"{r.session_saves:.2f}",
            "burst arm ": f"{r.session_saves_stretched:.2f}",
        }
        for r in traits.itertuples()
    )


def _brackets_text(table: pd.DataFrame, traits: pd.DataFrame) -> str:
    rows = bracket_rows(table)
    if rows.empty or "multi_share" not in traits:
        return ""
    return f"""**What the fit's misses do.** Generated over a log's own span at its own volume
(the calibration's held-out test, below), the fitted process makes fewer multi-article
publishes than the log and milder bursts (a lower burstiness B: the spread of the gaps
between an article's saves against their mean, 0 for saves at random, towards 1 for bursts).
Two arms close those misses, each against the calibrated shape, seed by seed, on every log:
the *burst* arm stretches every editing session's re-saves by a factor fitted on each log
so that the generated B is the log's own (`sim/calibrate/burstfit.py`), and the
*bulk-matched* arm sets the share of publishes that start sessions on several articles so
that multi-article publishes are the log's own share (a closed form,
`sim/calibrate/shape.py`). What each changes in the generated process (means of 8 runs a
log; the stretch is fitted on 4):

{md(process_rows(traits))}

Both arms reach the log's figure; the burst arm pays for its B with sessions longer than
the log's. Their moves from the calibrated shape, as run and at equal day volume:

{md(rows)}

At equal day volume, {_beyond_zero(table)}."""


def _seed_range(table: pd.DataFrame) -> str:
    lo, hi = int(table["seeds"].min()), int(table["seeds"].max())
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def _beyond_zero(table: pd.DataFrame) -> str:
    """How many of the brackets' equal-volume moves have an interval that excludes 0."""
    g = table[table["arm"].isin(BRACKETS) & table["figure"].isin(BRACKET_FIGURES)]
    g = g[g["eqvol_mean"].notna()]
    hit = g[(g["eqvol_ci_lo"] > 0) | (g["eqvol_ci_hi"] < 0)]
    named = "; ".join(
        f"{LABELS[r['arm']]} on {r['log']}, {FIGURES[r['figure']]}: "
        + _ci(r, r["figure"], "eqvol_")
        for _, r in hit.iterrows()
    )
    return f"{len(hit)} of {len(g)} moves have an interval that excludes 0" + (
        f" ({named})" if named else ""
    )


def panel_text(table: pd.DataFrame, traits: pd.DataFrame) -> str:
    """The panel's subsection: each log's traits, each effect per log, what holds across."""
    logs = list(dict.fromkeys(table["log"]))
    lines = []
    for log in logs:
        tr = traits.set_index("log").loc[log]
        saves, top = (_cell(table[table["log"] == log], f, "calibrated") for f in
                      ("saves", "top10_save_share"))  # fmt: skip
        lines.append(
            {
                "log": log,
                "file": f"`{tr['source']}`",
                "popularity exponent (Zipf s)": f"{tr['zipf_s']:.2f}"
                + (" (shape: Zipf–Mandelbrot)" if tr["family"] != "zipf" else ""),
                "burstiness B": f"{tr['burstiness_b']:.3f}",
                "bulk share": pct(tr["bulk_share"]),
                "sessions that re-save": pct(tr["resave_share"]),
                "'new' in the mix": pct(tr["new_share"]),
                "calibrated day: saves": _ci(saves, "saves") if saves is not None else "–",
                "on the 10 most-asked": pct(top["mean"]) if top is not None else "–",
            }
        )
    effects = panel_rows(table)
    equal = panel_rows(table, "eqvol_")
    holds, depends, undecided = [], [], []
    every_order = _orders_covered(traits, logs) == math.factorial(len(logs))
    for f in HEADLINE:
        cells = _per_log(table, f, logs)
        if any(c is None or "diff_mean" not in c for c in cells):
            continue
        v = verdict(cells)
        if v.startswith("holds"):
            holds.append(f"{FIGURES[f]} ({v.split(': ')[1]})")
        elif v.startswith("none"):
            continue  # no difference anywhere: nothing to hold or depend
        elif v.startswith("undecided"):
            undecided.append(FIGURES[f])  # no order across the logs to read into
        else:
            hint = "" if every_order else f"; ordered as {_ordered_by(cells, logs, traits)}"
            depends.append(f"{FIGURES[f]} ({v}{hint})")
    held = "; ".join(holds) if holds else "none"
    return f"""**Across a panel of real help centres.** The same arms run on the shape fitted to
each of {len(logs)} real help centres' logs (bundled in `sim/calibrate/logs/`); the write-up's
arms do not read a shape and are shared. Intervals are 95 % by Student's t over seeds,
paired by seed. {seeds_text(table)}

What the logs differ in (burstiness B: the spread of the gaps between an article's saves
against their mean, 0 for saves at random, towards 1 for bursts):

{md(pd.DataFrame(lines))}

Calibrated − write-up on each log, and whether the difference keeps its direction on every
log (beyond noise: its interval excludes 0 on each):

{md(effects)}

A calibrated day holds its own count of saves (n_saves on average), the write-up's exactly
n_saves, and a busier day has more stale citations. The same differences at equal day volume
(the intercept of each seed's difference regressed on its difference in saves):

{md(equal)}

{_brackets_text(table, traits)}

Holds across the panel: {held}. Depends on the log: {"; ".join(depends) if depends else "none"}.
Undecided on every log (each interval holds 0): {"; ".join(undecided) if undecided else "none"}.
With {len(logs)} logs an order that matches a trait is a hint, not a test:
{_order_chance(traits, logs)} A conclusion about "a real help centre" is only one that holds
on every log.

![calibrated minus write-up on each log](realshape_panel.png)"""


def section_text(
    table: pd.DataFrame,
    moves: pd.DataFrame,
    seeds: int,
    setting: Setting,
    paired: pd.DataFrame | None = None,
) -> str:
    """The section; `setting` says what was run: shape source, window, volumes, advice. A
    panel table (with a log column) adds the panel's subsection; the ablation and the
    question relations are read on the shared log."""
    panel = table if "log" in table.columns else None
    table, moves = _shared(table), _shared(moves)
    grids = table if paired is None else _shared(paired)
    common = int(grids["seeds"].min())
    n = int(table["seeds"].max())
    ablation = _grid(
        grids,
        ("counterparts", *ABLATION, "calibrated"),
        ("every feature off", *(f"+ {f}" for f in SHAPE_FEATURES), "all (calibrated)"),
    )
    relations = _grid(
        grids,
        ("writeup", "writeup_clustered", *RELATIONS),
        (
            "write-up, same ranking",
            "write-up, clustered",
            "calibrated, same ranking",
            "calibrated, independent",
            "calibrated, clustered",
        ),
    )
    saves = _row(table, "saves", "calibrated")
    top = _row(table, "top10_save_share", "calibrated")
    top_w = _row(table, "top10_save_share", "writeup")
    mix = " / ".join(pct(x) for x in setting["mix"])
    writeup_mix = " / ".join(pct(x) for x in setting["writeup_mix"])
    return f"""The write-up's saves are independent Poisson events on Zipf({setting["zipf_s"]:g})
articles over a uniform day. Here the day's saves come instead from the edit shape fitted to
a real help centre's publish history (`{setting["source"]}`, `python -m sim calibrate`):
its edit popularity, editing sessions (bursts of re-saves), bulk publishes, kinds of change
and hour-of-week profile (`save_process='calibrated'`). The 8-hour day is placed on the
weekday window the log's profile is busiest in ({setting["window"]} UTC) and holds
{setting["n_saves"]} saves on average, the write-up's volume (this run: {
        _num("saves", saves["mean"])
    } a day); at the log's own volume the same window would hold
{setting["log_volume"]:.2f} saves. A new-article save creates an article no question asks
about and no citation cites, so it is recorded and not written (`sim/model/calibrated.py`).
Questions keep the write-up's popularity. Each arm ran up to {seeds} seeds, the fixed counts of the
panel below ({n} at most with a value for every figure), paired by
seed: every arm of a seed opens on the same corpus and, where the question relation is the
same, the same questions; intervals are 95 % over seeds. The
advisor's choice is the closed-form advice for the write-up's day at a {setting["target"]:g}
min target: {setting["advice"]} ({_target_text(table, float(setting["target"]))}); this is
the closed form's pick before `advise` checks it against the target in simulation (the check
that gives the first page's advice, § 6).
Per-seed rows: `seeds/realshape.csv`; table: `realshape.csv`.

{md(headline_rows(table, moves))}

On the calibrated day {pct(top["mean"])} of the saves fall on the ten most-asked articles
(under the write-up's process {pct(top_w["mean"])}).

**Ablation: one real feature at a time.** Every feature off runs the generator with each
replaced by the write-up's counterpart (Zipf popularity, single independent saves, one
article per publish, a flat rate); each column then switches on one real feature alone
(in brackets: its seed-paired difference from every feature off); the last has them all.
Every column is on the same seeds, 1–{common}, so two columns subtract to the difference in
brackets (the last column runs more seeds above; here it keeps these).
The log's mix of changes is not one of the switches: every calibrated arm draws body
edits, title changes, unpublishes and new articles as {mix}, against the write-up's
{writeup_mix} (body, title, unpublish), so the gap between the write-up's process and
every feature off is the mix's (and the count's: exactly n_saves against n_saves on
average).

{md(ablation)}

**How questions relate to edits.** The log says nothing about questions. *Same ranking*
(the write-up): the most-edited articles are the most-asked. *Independent*: edit popularity
is an independent ranking of the articles. *Clustered*: the same ranking, and
{pct(setting["cluster_share"])} of the questions arrive an exponential
{setting["cluster_delay_min"]:g} min (mean) after one of the day's publishes, on an article it
touched, as customers would after a release. Calibrated columns carry their difference from
the same ranking in brackets.

{md(relations)}

{panel_text(panel, setting["traits"]) if panel is not None and "traits" in setting else ""}

![the study on a real edit shape](realshape.png)"""


_UNITS = {"reread_calls": "calls a day", "poll_calls": "calls a day", "unnoticed_min": "min"}


def figure(table: pd.DataFrame) -> Figure:
    """Each headline figure's moves, as seed-paired differences with 95 % CIs: the whole
    calibrated shape against the write-up's process, each real feature alone against every
    feature off, and each question relation against its own ranking."""
    import matplotlib.pyplot as plt

    table = _shared(table)  # the ablation and relations are the shared log's; panel_figure
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
            r = _cell(moved, f, arm)
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
    top = named.iloc[0] if len(named) else None
    finding = (
        ""
        if top is None
        else f": {SHORT.get(top['figure'], FIGURES.get(top['figure'], '')).replace(chr(10), ' ')} "
        f"moves most, {_num(top['figure'], top['diff_mean'], True)} (Holm over {len(whole)})"
    )
    fig.suptitle(
        f"On a real help centre's edits, against the write-up's process{finding}\n"
        f"(dot: mean seed-paired difference, line: 95 % CI over {_seed_range(moved)} seeds an"
        " arm, a count fixed in advance; red: the whole calibrated shape)",
        fontsize=10,
    )
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
        cells = [_row(table[table["log"] == log], f, "calibrated") for f in shares]
        mean = np.array([c["diff_mean"] for c in cells]) * 100
        lo = np.array([c["diff_ci_lo"] for c in cells]) * 100
        hi = np.array([c["diff_ci_hi"] for c in cells]) * 100
        x = np.arange(len(shares)) + (i - (len(logs) - 1) / 2) * width
        ax.bar(x, mean, width, label=log)
        ax.errorbar(x, mean, yerr=[mean - lo, hi - mean], fmt="none", ecolor="k", lw=0.7)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(np.arange(len(shares)))
    ax.set_xticklabels([SHORT[f] for f in shares], fontsize=8)
    verdicts = {f: verdict(_per_log(table, f, logs)) for f in shares}
    held = [
        f"{SHORT[f].replace(chr(10), ' ')}: {v.split(': ')[1].split()[0]}"
        for f, v in verdicts.items()
        if v.startswith("holds")
    ]
    finding = (
        f"{len(held)} of {len(shares)} keep{'s' if len(held) == 1 else ''} their direction on"
        f" all {len(logs)} logs" + (f" ({'; '.join(held)})" if held else "")
        + "; the rest depend on the log or are undecided"
    )  # fmt: skip
    ax.set(ylabel="points (calibrated − write-up, 95 % CI)", title=finding)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
