"""Generated blocks of README.md, so the README's numbers come from a run too; their words
are templates/readme_*.md.j2."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from sim.report.render import render


def replace_block(text: str, name: str, body: str, inline: bool = False) -> str:
    """The text with its block `name` holding `body`: on lines of their own, or, inline,
    within the markers' own line (a sentence in a paragraph, one README line)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        raise ValueError(f"README has no block {start} ... {end}")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    if inline:
        return f"{head}{start}{' '.join(body.split())}{end}{tail}"
    return f"{head}{start}\n{body.strip()}\n{end}{tail}"


def update(path: Path, name: str, body: str, inline: bool = False) -> None:
    path.write_text(replace_block(path.read_text(), name, body, inline))


def results_block(comparison: pd.DataFrame) -> str:
    """The share figures against the write-up (templates/readme_results.md.j2)."""
    shares = comparison[comparison["key"].str.contains("share")]
    return render("readme_results.md.j2", rows=[r.to_dict() for _, r in shares.iterrows()])


def advise_block(output: str) -> str:
    """The advisor's worked example: the command and what it printed in `make reproduce`."""
    return render("readme_advise.md.j2", output=output.rstrip())


def answers_block(report: str) -> str:
    """The three answers of REPORT.md's first page: each question, its finding (the bold
    sentence), the command that gives the reader's own, and what to do, as written there."""
    page = report.split("## The answers on one page", 1)[1].split("\n## ", 1)[0]
    answers = []
    for part in page.split("\n### ")[1:]:
        question, body = part.split("\n", 1)
        found = {
            "finding": re.search(r"\*\*(.+?)\*\*", body, re.S),
            "todo": re.search(r"\*What to do:\* (.+?)(?:\n\n|\n- |$)", body, re.S),
            "yours": re.search(r"\*Your KB:\* (.+?)(?:\n\n|\n- |$)", body, re.S),
        }
        if None in found.values():
            raise ValueError(
                f"REPORT.md's answer {question!r} has no finding, no advice or no command"
            )
        answers.append(
            {"question": question.strip()}
            | {k: " ".join(m.group(1).split()) for k, m in found.items() if m is not None}
        )
    return render("readme_answers.md.j2", answers=answers)
