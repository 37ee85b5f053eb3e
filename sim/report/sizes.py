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

from sim.report.render import render
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
    """README's table of response sizes and its note (templates/sizes_readme.md.j2)."""
    return render(
        "sizes_readme.md.j2",
        rows=table.to_dict("records"),
        commit=table["before_commit"].iloc[0],
    )
