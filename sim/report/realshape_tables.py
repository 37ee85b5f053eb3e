"""The tables of REPORT.md's appendix "On a real help centre's edits" (the words are
realshape_section's): each headline figure by arm, the ablation and relation grids, the
panel's per-log effects, the bracket arms' moves and the logs' traits, with each figure's
value written in its unit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.params import SHAPE_FEATURES
from sim.report import picks
from sim.report.render import num, pct, points
from sim.study.realshape import ABLATION, ARMS, BRACKETS, FIGURES, SHARED_LOG, SHARES

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
LABELS = {a.name: a.label for a in ARMS}
RELATIONS = ("calibrated", "calibrated_independent", "calibrated_clustered")


def figure_value(figure: str, x: float, signed: bool = False) -> str:
    """A figure's value (or move, `signed`) in its unit: a share as a percentage (a move in
    points), the poll's ratio to three places, a count to one."""
    if pd.isna(x):
        return "–"
    if figure in SHARES:
        return f"{points(x)} pt" if signed else pct(x)
    if figure.startswith("poll_over"):
        return f"{x:+.3f}" if signed else num(x, 3)
    return f"{x:+,.1f}" if signed else num(x, 1)


def figure_ci(r: pd.Series, figure: str, prefix: str = "") -> str:
    signed = bool(prefix)
    mean, lo, hi = (
        figure_value(figure, r[f"{prefix}{k}"], signed) for k in ("mean", "ci_lo", "ci_hi")
    )
    return f"{mean} ({lo} – {hi})"


def arm_cell(table: pd.DataFrame, figure: str, arm: str) -> pd.Series | None:
    hit = table[(table["figure"] == figure) & (table["arm"] == arm)]
    return None if hit.empty else hit.iloc[0]


def arm_row(table: pd.DataFrame, figure: str, arm: str) -> pd.Series:
    """A figure's row of an arm the section needs: the table of a full run holds it."""
    row = arm_cell(table, figure, arm)
    if row is None:
        raise ValueError(f"realshape table: expected a row for {figure} of arm {arm}; none")
    return row


def per_log(table: pd.DataFrame, figure: str, logs: list[str]) -> list[pd.Series | None]:
    """The calibrated arm's row of ``figure`` on each log of the panel, in ``logs`` order."""
    return [arm_cell(table[table["log"] == log], figure, "calibrated") for log in logs]


def headline_rows(table: pd.DataFrame, moves: pd.DataFrame) -> pd.DataFrame:
    by = moves.set_index("figure") if not moves.empty else pd.DataFrame()
    rows = []
    for f in HEADLINE:
        w, c = arm_cell(table, f, "writeup"), arm_cell(table, f, "calibrated")
        if w is None or c is None:
            continue
        m = by.loc[f] if f in by.index else None
        most = "–"
        if m is not None and m["moved_most_by"] != "none":
            most = f"{m['moved_most_by']} ({figure_value(f, m['diff_mean'], True)}, Holm p "
            most += f"{picks.p_text(m['p_holm'])})"
        elif m is not None:
            most = f"none (Holm p ≥ {m['p_holm']:.2f})"
        rows.append(
            {
                "figure": FIGURES[f],
                "write-up's process": figure_ci(w, f),
                "calibrated shape": figure_ci(c, f),
                "calibrated − write-up": figure_ci(c, f, "diff_"),
                "real feature that moves it most": most,
            }
        )
    return pd.DataFrame(rows)


def grid(table: pd.DataFrame, arms: tuple[str, ...], labels: tuple[str, ...]) -> pd.DataFrame:
    rows = []
    for f in HEADLINE:
        row = {"figure": FIGURES[f]}
        for arm, label in zip(arms, labels, strict=True):
            r = arm_cell(table, f, arm)
            if r is None:
                row[label] = "–"
            elif arm in ABLATION or r["reference"] == "calibrated":
                row[label] = (
                    f"{figure_value(f, r['mean'])} ({figure_value(f, r['diff_mean'], True)})"
                )
            else:
                row[label] = figure_value(f, r["mean"])
        rows.append(row)
    return pd.DataFrame(rows)


def ablation_rows(grids: pd.DataFrame) -> pd.DataFrame:
    """Every feature off, each real feature alone, all of them: per headline figure."""
    return grid(
        grids,
        ("counterparts", *ABLATION, "calibrated"),
        ("every feature off", *(f"+ {f}" for f in SHAPE_FEATURES), "all (calibrated)"),
    )


def relation_rows(grids: pd.DataFrame) -> pd.DataFrame:
    """Each relation of questions to edits, under the write-up's process and the calibrated."""
    return grid(
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


def shared_log(frame: pd.DataFrame) -> pd.DataFrame:
    """The shared log's part of a panel table (a one-log table as it is)."""
    if "log" not in frame.columns:
        return frame
    return frame[frame["log"] == SHARED_LOG].drop(columns="log").reset_index(drop=True)


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


def panel_rows(table: pd.DataFrame, prefix: str = "diff_") -> pd.DataFrame:
    """Per headline figure: calibrated − write-up on each log with its CI, and the verdict
    across the panel."""
    logs = list(dict.fromkeys(table["log"]))
    rows = []
    for f in HEADLINE:
        cells = per_log(table, f, logs)
        if any(c is None or f"{prefix}mean" not in c for c in cells):
            continue
        row = {"figure": FIGURES[f]}
        row |= {log: figure_ci(c, f, prefix) for log, c in zip(logs, cells, strict=True)}
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
            cells = [arm_cell(table[table["log"] == log], f, arm) for log in logs]
            if any(c is None or pd.isna(c.get("diff_mean")) for c in cells):
                continue
            row = {"arm": LABELS[arm], "figure": FIGURES[f]}
            row |= {
                log: f"{figure_ci(c, f, 'diff_')}; at equal volume {figure_ci(c, f, 'eqvol_')}"
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


def traits_rows(table: pd.DataFrame, traits: pd.DataFrame) -> pd.DataFrame:
    """Per log of the panel: the traits its conclusions may depend on, and its calibrated day."""
    logs = list(dict.fromkeys(table["log"]))
    lines = []
    for log in logs:
        tr = traits.set_index("log").loc[log]
        saves, top = (arm_cell(table[table["log"] == log], f, "calibrated") for f in
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
                "calibrated day: saves": figure_ci(saves, "saves") if saves is not None else "–",
                "on the 10 most-asked": pct(top["mean"]) if top is not None else "–",
            }
        )
    return pd.DataFrame(lines)
