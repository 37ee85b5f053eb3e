"""What every written page shares (the report's sections, the map's, a user's log on the
map): a Markdown table, a percentage, a figure saved to the same bytes on a rerun. Below
``sim.report`` and ``sim.studymap``, which both write pages."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def md(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def save(fig: Figure, path: Path) -> None:
    # pyplot only where a figure is saved: the tables' users (the advisor's) never draw.
    import matplotlib.pyplot as plt

    # No timestamp or version in the file, so a rerun writes the same bytes where it can.
    fig.savefig(path, dpi=120, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
