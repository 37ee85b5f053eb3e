"""What a client receives from each tool, in characters: the text content and the
structured content's JSON, on the study's opening KB (seed 1, 400 articles).

`python -m sim.study.sizes OUT.json` writes the figures; run in a git worktree of an
older commit, it measures that commit's results the same way. ``sizes_before.json`` is
such a run, of the commit before results were shaped for agents; `make reproduce` sets
it beside a fresh measurement in ``results/response_sizes.csv`` and the README.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from sim.study.sizes import measure

BEFORE = Path(__file__).with_name("sizes_before.json")


def sizes_table() -> pd.DataFrame:
    before = json.loads(BEFORE.read_text())
    now = measure()
    rows = []
    for kind, after in now.items():
        was = before["sizes"][kind]
        rows.append(
            {
                "result": kind,
                "text_chars_before": was["text"],
                "text_chars_now": after["text"],
                "text_now_over_before": after["text"] / was["text"],
                "structured_chars_before": was["structured"],
                "structured_chars_now": after["structured"],
                "received_chars_before": was["text"] + was["structured"],
                "received_chars_now": after["text"] + after["structured"],
                "before_commit": before["commit"],
            }
        )
    return pd.DataFrame(rows)


def readme_block(table: pd.DataFrame) -> str:
    commit = table["before_commit"].iloc[0]
    lines = [
        "| result (median of the corpus's questions) | text before | text now | "
        "now / before | received before | received now |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.result} | {r.text_chars_before:,.0f} | {r.text_chars_now:,.0f} | "
        f"{r.text_now_over_before:.2f} | {r.received_chars_before:,.0f} | "
        f"{r.received_chars_now:,.0f} |"
        for r in table.itertuples()
    ]
    lines += [
        "",
        "Characters on the study's opening KB (seed 1); *before* is the server before its"
        f" results were shaped for agents (commit {commit}), *received* text plus structured"
        " content, what a client gets and what the call log counts.",
    ]
    return "\n".join(lines)
