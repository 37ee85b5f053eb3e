"""Generated blocks of README.md, so the README's numbers come from a run too."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def replace_block(text: str, name: str, body: str) -> str:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        raise ValueError(f"README has no block {start} ... {end}")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body.strip()}\n{end}{tail}"


def update(path: Path, name: str, body: str) -> None:
    path.write_text(replace_block(path.read_text(), name, body))


def results_block(comparison: pd.DataFrame) -> str:
    lines = [
        "| figure | write-up | ours, seeds 1–5 | ours, all seeds (95 % CI) | verdict |",
        "|---|---|---|---|---|",
    ]
    shares = comparison[comparison["key"].str.contains("share")]
    for _, r in shares.iterrows():
        ci = f"{100 * r['mean']:.1f} % ({100 * r['ci_lo']:.1f}–{100 * r['ci_hi']:.1f})"
        lines.append(
            f"| {r['figure']} | {r['reported']} | {100 * r['seeds_1_5']:.1f} % | {ci} "
            f"| {r['verdict']} |"
        )
    n = int(comparison["seeds"].max())
    lines.append("")
    lines.append(f"All seeds = seeds 1–{n}. Every figure, with reasons, in `results/REPORT.md`.")
    return "\n".join(lines)
