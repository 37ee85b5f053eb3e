"""Each atlas site measured from its own rows, no model: the stale share by citation age
(1 min to 90 days) and the human-caused CAS rejection by delay (5 s to a day), both
``sim.studymap.logs.measured_rows``'s share with its interval, for reads drawn by the site's
edit popularity and evenly. `make reproduce` writes it (results/atlas_sites.csv) and a copy
inside the package (``PACKAGED``), which `calibrate`, `import` and `advise` read, so placing
a user's log never measures thirty sites again."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from sim import atlas
from sim.atlas import cache
from sim.calibrate.logs import EditLog
from sim.studymap.logs import measured_rows

if TYPE_CHECKING:  # the CLI reads the packaged copy with csv, without pandas
    import pandas as pd

DAY_S = 86400.0
STALE_AGES_S = (60.0, 600.0, 3600.0, 4 * 3600.0, DAY_S, 7 * DAY_S, 30 * DAY_S, 90 * DAY_S)
CAS_DELAYS_S = (5.0, 60.0, 600.0, 3600.0, 4 * 3600.0, DAY_S)
QUANTITIES = {"stale": STALE_AGES_S, "cas_human": CAS_DELAYS_S}
"""A stale citation at age a and a CAS edit sent a after the read that a human's save
rejects are the same event: one measurement, reported at each quantity's points."""
COLUMNS = ("site", "kind", "generator", "quantity", "age_s", "draw", "measured", "lo", "hi")
PACKAGED = Path(__file__).with_name("atlas_sites.csv")


def site_rows(record: atlas.Site, log: EditLog) -> list[dict[str, object]]:
    """One site's rows: each quantity at each of its ages that the log spans, by draw."""
    ages = tuple(sorted({a for points in QUANTITIES.values() for a in points}))
    measured = cache.rows(f"measured_rows {ages}", log, lambda: measured_rows(log, ages))
    by = {(r["age_s"], r["draw"]): r for r in measured}
    return [
        {
            "site": record.site,
            "kind": record.kind,
            "generator": record.generator,
            "quantity": quantity,
            "age_s": age,
            "draw": draw,
            "measured": r["measured"],
            "lo": r["measured_ci_lo"],
            "hi": r["measured_ci_hi"],
        }
        for quantity, points in QUANTITIES.items()
        for (age, draw), r in by.items()
        if age in points
    ]


@lru_cache(maxsize=1)
def atlas_logs() -> dict[str, EditLog]:
    """Every site's log, read once for the tables that measure them."""
    return {r.site: atlas.log(r.site) for r in atlas.sites()}


def sites_table(
    logs: dict[str, EditLog] | None = None, records: tuple[atlas.Site, ...] | None = None
) -> pd.DataFrame:
    """Every site's rows (``logs``: by site, the atlas's own when not given; ``records``:
    the sites they belong to, the atlas's when not given)."""
    import pandas as pd

    records = atlas.sites() if records is None else records
    logs = atlas_logs() if logs is None else logs
    rows = [row for r in records if r.site in logs for row in site_rows(r, logs[r.site])]
    return pd.DataFrame(rows, columns=list(COLUMNS))
