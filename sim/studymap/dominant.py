"""The file that makes a log's answer: one article holding more than ``SHARE`` of the log's
saves (release notes, a changelog) sets the edit-weighted stale share nearly alone, so
`import` and `calibrate` name it, with its share and the answer measured without its rows.
"""

from __future__ import annotations

import functools
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sim.calibrate.logs import COLUMNS, from_rows
from sim.studymap.forms import DAY_S
from sim.studymap.logs import measured_rows

SHARE = 0.2
"""A file with more than this share of the log's rows (saves of any kind) is named."""
AGES_S = (DAY_S, 7 * DAY_S)
"""The ages the answer without it is given at."""
_ARTICLE = COLUMNS.index("article")


@dataclass(frozen=True)
class Dominant:
    """The article, its rows and the log's, and ``measured_rows`` of the log without it."""

    article: str
    path: str
    rows: int
    total: int
    without: list[dict[str, Any]]

    @property
    def share(self) -> float:
        return self.rows / self.total

    def as_json(self) -> dict[str, Any]:
        return {
            "article": self.article,
            "path": self.path,
            "rows": self.rows,
            "of_rows": self.total,
            "share": self.share,
            "stale_by_age_without_it": self.without,
        }


def find(
    rows: Sequence[Sequence[object]], name: str, paths: Mapping[str, str] | None = None
) -> Dominant | None:
    """The article of ``rows`` (in the log's COLUMNS order) with more than SHARE of them, or
    None; ``paths``: article id → its file, where the caller knows it (`calibrate --git`)."""
    counts = Counter(str(r[_ARTICLE]) for r in rows)
    if not counts:
        return None
    article, n = counts.most_common(1)[0]
    if n <= SHARE * len(rows):
        return None
    rest = [r for r in rows if str(r[_ARTICLE]) != article]
    without = measured_rows(from_rows(rest, f"{name} without {article}"), AGES_S) if rest else []
    path = (paths or {}).get(article, "")
    return Dominant(article, path, n, len(rows), without)


def render(d: Dominant, with_it: list[dict[str, Any]]) -> str:
    """Two or three lines: the file, its share, and the stale shares without it beside the
    log's own (``with_it``: ``measured_rows`` of the whole log)."""
    label = f"{d.path} (article {d.article})" if d.path else d.article
    head = (
        f"One file holds {100 * d.share:.0f} % of the log's saves: {label}, {d.rows:,} of"
        f" {d.total:,} rows; a read drawn by edit popularity is mostly of it."
    )
    whole = {(r["age_s"], r["draw"]): r["measured"] for r in with_it}
    parts = []
    for r in d.without:
        if (r["age_s"], r["draw"]) in whole:
            parts.append(
                f"{r['age_s'] / DAY_S:g} d {r['draw']} {100 * r['measured']:.3g} %"
                f" (with it {100 * whole[r['age_s'], r['draw']]:.3g} %)"
            )
    rest = (
        "Without it, stale within " + "; ".join(parts) + "."
        if parts
        else "Without it, the rest of the log spans too little to measure."
    )
    wrap = functools.partial(textwrap.wrap, width=96, initial_indent="  ", subsequent_indent="  ")
    return "\n".join([*wrap(head), *wrap(rest)])
