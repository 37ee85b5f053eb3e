"""Generated blocks of README.md, so the README's numbers come from a run too."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd


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
    lines = [
        "| figure | write-up | ours, seeds 1–5 | ours, mean (95 % CI) | seeds | verdict |",
        "|---|---|---|---|---|---|",
    ]
    shares = comparison[comparison["key"].str.contains("share")]
    for _, r in shares.iterrows():
        ci = f"{100 * r['mean']:.1f} % ({100 * r['ci_lo']:.1f}–{100 * r['ci_hi']:.1f})"
        lines.append(
            f"| {r['figure']} | {r['reported']} | {100 * r['seeds_1_5']:.1f} % | {ci} "
            f"| {int(r['seeds']) or 'analytic'} | {r['verdict']} |"
        )
    lines.append("")
    lines.append(
        "Means are over seeds 1–N, N in the seeds column. The write-up ran five seeds, so a"
        " figure is reproduced when it lies in the range a five-seed run of this model reaches"
        " (95 %), which is wider than the interval of our mean. Every figure, with the"
        " reasons for those not reproduced, is in `results/REPORT.md`."
    )
    return "\n".join(lines)


def advise_block(output: str) -> str:
    """The advisor's worked example: the command and what it printed in `make reproduce`."""
    return (
        f"```\n$ python -m sim advise --max-unnoticed-min 30 --simulate 10\n{output.rstrip()}\n```"
    )


def answers_block(report: str) -> str:
    """The three answers of REPORT.md's first page: each question, its finding (the bold
    sentence), the command that gives the reader's own, and what to do, as written there."""
    page = report.split("## The answers on one page", 1)[1].split("\n## ", 1)[0]
    lines = []
    for part in page.split("\n### ")[1:]:
        question, body = part.split("\n", 1)
        finding = re.search(r"\*\*(.+?)\*\*", body, re.S)
        todo = re.search(r"\*What to do:\* (.+?)(?:\n\n|\n- |$)", body, re.S)
        yours = re.search(r"\*Your KB:\* (.+?)(?:\n\n|\n- |$)", body, re.S)
        if finding is None or todo is None or yours is None:
            raise ValueError(
                f"REPORT.md's answer {question!r} has no finding, no advice or no command"
            )
        lines.append(
            f"- **{question.strip()}** {' '.join(finding.group(1).split())}. "
            f"*Your KB:* {' '.join(yours.group(1).split())} "
            f"*Do:* {' '.join(todo.group(1).split())}"
        )
    return "\n".join(lines)
