"""The atlas of real documentation sites: what each is and its edit log. Until the atlas's
own logs are committed (``sites.csv``, ``logs/``), the three help centres the package ships
(``sim.calibrate.logs.PANEL``) stand in as its sites, with the same interface."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from sim.calibrate.logs import PANEL, EditLog, LogError, read_log


@dataclass(frozen=True)
class Site:
    site: str
    kind: str
    """help (help centres, knowledge bases), product (product and user docs) or developer."""
    generator: str


@functools.cache
def sites() -> tuple[Site, ...]:
    """The atlas's sites."""
    return tuple(Site(name, "help", "help centre") for name in PANEL)


@functools.cache
def log(site: str) -> EditLog:
    """The edit log of ``site``."""
    if site not in PANEL:
        raise LogError(f"atlas site {site!r}: not in the atlas; expected one of {', '.join(PANEL)}")
    return read_log(PANEL[site])
