"""Where a user's log stands in the atlas: its stale share at a day, a week and a month as a
percentile of the atlas's sites, read from the table `make reproduce` packages
(``table.PACKAGED``), so `calibrate`, `import` and `advise` measure no site but the user's."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.atlas.population import percentile
from sim.atlas.table import PACKAGED

DAY_S = 86400.0
AGES_S = {DAY_S: "1-day", 7 * DAY_S: "7-day", 30 * DAY_S: "30-day"}
DRAW = "popularity"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def atlas_shares(path: Path = PACKAGED) -> dict[float, list[float]]:
    """The atlas's sites' stale shares (reads by edit popularity) at each age placed."""
    out: dict[float, list[float]] = {age: [] for age in AGES_S}
    with path.open(newline="") as f:
        for r in csv.DictReader(f):
            age = float(r["age_s"])
            if r["quantity"] == "stale" and r["draw"] == DRAW and age in out:
                out[age].append(float(r["measured"]))
    return out


def placement(rows: Sequence[dict[str, Any]], path: Path = PACKAGED) -> list[dict[str, Any]]:
    """Per age the log spans: its share, the percentile among the atlas's sites, their count."""
    shares = atlas_shares(path)
    mine = {float(r["age_s"]): float(r["measured"]) for r in rows if r["draw"] == DRAW}
    return [
        {
            "age_s": age,
            "share": mine[age],
            "percentile": percentile(mine[age], shares[age]),
            "sites": len(shares[age]),
        }
        for age in AGES_S
        if age in mine and shares[age]
    ]


def line(rows: Sequence[dict[str, Any]], path: Path = PACKAGED) -> str:
    """One line: "your 7-day share is at the atlas's 80th percentile (31 sites)", at each age
    the log spans (``rows``: ``sim.studymap.logs.measured_rows`` of the user's log)."""
    try:
        placed = placement(rows, path)
    except (OSError, KeyError, ValueError) as e:
        return f"  Against the atlas: its table {path} cannot be read ({e})."
    if not placed:
        return "  Against the atlas: the log spans less than a day, the shortest age placed."
    ranks = [(AGES_S[p["age_s"]], _ordinal(round(p["percentile"]))) for p in placed]
    said = [f"your {ranks[0][0]} share is at the atlas's {ranks[0][1]} percentile"]
    said += [f"{age} at its {rank}" for age, rank in ranks[1:]]
    return (
        f"  Against the atlas: {', '.join(said)} ({placed[0]['sites']} documentation sites"
        " measured alike, reads by edit popularity)."
    )
