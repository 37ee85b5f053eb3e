"""Markdown pieces the report's sections share."""

from __future__ import annotations

import pandas as pd


def md(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"
