"""The open choices on one screen (results/sensitivity.png): per reading and headline figure
the shift from the default reading, and the words its rows and columns are headed with
(the first page's designer names readings in the same words)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from sim.study.readings import LADDER

FIGURE_WORDS = {
    "zipf_stale_share": "stale at\nday end",
    "zipf_answers_with_stale_share": "answers with\na stale one",
    "control_stale_share": "stale, even\ncontrol",
    "cas_reject_share_3600s": "CAS rejected\nat 1 h",
    "cas_human_reject_share_3600s": "… by a\nhuman's save",
    "cas_reject_share": "CAS first-try,\nall delays",
    "cas_replay_share": "replays",
}
"""Column heads of the sensitivity figure, in words."""
READING_WORDS = {
    "agent_edit_targets = distinct_articles": "the agent's edits never meet each other",
    "replays = every_success": "every success replayed, not first tries only",
    "day_profile = two_peaks": "questions and saves share a two-peak clock",
    "day_profile = questions_peak": "questions peak twice a day",
    "day_profile = saves_peak": "saves peak twice a day",
    "edited_citation = second": "the second citation is edited",
    "humans_after_day_end = True": "humans go on saving after the day",
    "unpublished_save = redraw": "a save drawn for an unpublished article goes elsewhere",
    "unpublished_save = republish": "a save drawn for an unpublished article republishes it",
    "save_spread = distinct_articles": "saves spread over distinct articles",
    "save_spread = even_times": "saves spread at even times",
    "gone_counts_as_rejection = True": "'gone' counted as a rejection",
}
"""Row heads of the sensitivity figure, in words (a delay ladder prints its rungs)."""


def _reading_words(label: str) -> str:
    if label.startswith(f"{LADDER.field} = "):
        return "delay ladder " + label.split(" = ", 1)[1]
    return READING_WORDS.get(label, label)


ANSWER_FIGURES = ("zipf_stale_share", "cas_reject_share_3600s")
"""The figures of the report's first and third answers, which the figure's title names."""


def tornado(table: pd.DataFrame, figures: list[str]) -> Figure:
    """One screen: per reading (a row) and headline figure (a column), the shift from the
    default reading in percentage points, coloured by size and sign, marked where the
    verdict at that reading is not reproduced (✗) or undecided (?); blank where the
    reading cannot move the figure."""
    import numpy as np

    moving = table[(table["choice"] != "default") & table["can_move"].astype(bool)]
    labels = list(dict.fromkeys(moving["choice"] + " = " + moving["label"]))
    shift = np.full((len(labels), len(figures)), np.nan)
    marks = [["" for _ in figures] for _ in labels]
    for r in moving.itertuples():
        if r.figure not in figures:
            continue
        i, j = labels.index(f"{r.choice} = {r.label}"), figures.index(r.figure)
        shift[i, j] = 100 * r.shift_from_default
        marks[i][j] = {"not reproduced": " ✗", "undecided": " ?"}.get(r.verdict, "")
    fig = Figure(figsize=(11, 0.32 * len(labels) + 2.2))
    ax = fig.subplots()
    bound = float(np.nanmax(np.abs(shift))) if np.isfinite(shift).any() else 1.0
    ax.imshow(np.nan_to_num(shift), cmap="RdBu_r", vmin=-bound, vmax=bound, aspect="auto")
    for i in range(len(labels)):
        for j in range(len(figures)):
            text = "—" if np.isnan(shift[i, j]) else f"{shift[i, j]:+.1f}{marks[i][j]}"
            dark = not np.isnan(shift[i, j]) and abs(shift[i, j]) > 0.6 * bound
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="w" if dark else "k")
    ax.set_xticks(range(len(figures)), [FIGURE_WORDS.get(f, f) for f in figures], fontsize=8)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(labels)), [_reading_words(x) for x in labels], fontsize=7)
    movers = []  # the answers' own figures first: what moves staleness, and CAS at 1 h
    for f in [f for f in ANSWER_FIGURES if f in figures] or figures[:1]:
        j = figures.index(f)
        if np.isfinite(shift[:, j]).any():
            i = int(np.nanargmax(np.abs(shift[:, j])))
            words = FIGURE_WORDS.get(f, f).replace(chr(10), " ")
            movers.append(f"{_reading_words(labels[i])}, {shift[i, j]:+.1f} pt on {words}")
    fig.suptitle(
        "What moves the answers most: " + "; ".join(movers) + "\n(shift from the default "
        "reading in percentage points; ✗ not reproduced, ? undecided at that reading; — it "
        "cannot move the figure)",
        fontsize=9,
    )
    fig.tight_layout()
    return fig
