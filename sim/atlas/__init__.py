"""The atlas of real documentation sites: their committed edit logs (``logs/<site>.csv.gz``)
and what each is (``sites.csv``). Until the atlas's own logs are committed, the three help
centres the package ships (``sim.calibrate.logs.PANEL``) stand in as its sites."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

from sim.calibrate.logs import PANEL, EditLog, parse_log, read_log

HERE = Path(__file__).parent
SITES = HERE / "sites.csv"
LOGS = HERE / "logs"


def sites() -> list[dict[str, str]]:
    """Each site's record: site, kind (help, product, developer), generator, and its source."""
    if SITES.exists():
        with SITES.open(newline="") as f:
            return list(csv.DictReader(f))
    return [{"site": name, "kind": "help", "generator": "help centre"} for name in PANEL]


def log(site: str) -> EditLog:
    """The site's edit log, as the shared format reads it."""
    path = LOGS / f"{site}.csv.gz"
    if path.exists():
        return parse_log(gzip.decompress(path.read_bytes()), site)
    if site in PANEL:
        return read_log(PANEL[site])
    known = ", ".join(s["site"] for s in sites())
    raise ValueError(f"atlas site {site!r}: no log at {path}; the atlas's sites: {known}")
