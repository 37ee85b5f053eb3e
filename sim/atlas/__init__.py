"""The atlas: the edit logs of public documentation sites, each extracted from its git
history by `calibrate --git` (``sites.csv`` says from where, at which commit and how to
extract it again; ``README.md`` how the sites were chosen). Facts only: times, pseudonymous
ids and line counts. Here: the sites as records and each site's log, read once."""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

from sim.calibrate.logs import EditLog, LogError, read_log

HERE = Path(__file__).parent
SITES = HERE / "sites.csv"
"""One row a site; its ``log`` is relative to the package ``sim`` (the three help centres
the calibration bundles stay in sim/calibrate/logs/, the others are in sim/atlas/logs/)."""


@dataclass(frozen=True)
class Site:
    site: str
    kind: str
    """help (help centres, knowledge bases), product (product and user docs) or developer."""
    generator: str
    repo: str
    folder: str
    """The ``--path`` given to ``calibrate --git``: a folder, or a pathspec such as docs/*.md."""
    commit: str
    licence: str
    first: str
    last: str
    rows: int
    publishes: int
    articles: int
    log: str
    extract: str

    @property
    def path(self) -> Path:
        return HERE.parent / self.log


def read_sites(path: Path) -> tuple[Site, ...]:
    """The sites a file in ``sites.csv``'s columns lists, in its order (the atlas's, or the
    held-out sites' of ``heldout/sites.csv``)."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    counts = ("rows", "publishes", "articles")
    return tuple(Site(**(r | {k: int(r[k]) for k in counts})) for r in rows)  # type: ignore[arg-type]


@functools.cache
def sites() -> tuple[Site, ...]:
    """The atlas's sites in the order of sites.csv."""
    return read_sites(SITES)


@functools.cache
def log(site: str) -> EditLog:
    """The edit log of ``site`` (a name in sites.csv)."""
    by_name = {s.site: s for s in sites()}
    if site not in by_name:
        raise LogError(
            f"atlas site {site!r}: not in the atlas; expected one of {', '.join(by_name)}"
        )
    return read_log(by_name[site].path)
