"""Real docs sites the atlas does not hold, placed against its prediction interval: each
extracted as the atlas's sites are (``heldout/sites.csv`` says from where and how), measured
by the same estimator, and never part of the population the interval is built from, so
whether they fall inside tests the interval on sites it did not see."""

from __future__ import annotations

import functools

import pandas as pd

from sim import atlas
from sim.atlas import population, table
from sim.calibrate.logs import EditLog, read_log

SITES = atlas.HERE / "heldout" / "sites.csv"
"""In the columns of the atlas's sites.csv; each ``log`` is relative to the package ``sim``."""
COLUMNS = [*table.COLUMNS, "pi_lo", "pi_hi", "inside_pi", "percentile"]


@functools.cache
def sites() -> tuple[atlas.Site, ...]:
    """The held-out sites in the order of heldout/sites.csv."""
    return atlas.read_sites(SITES)


@functools.cache
def logs() -> dict[str, EditLog]:
    """Every held-out site's log, read once."""
    return {s.site: read_log(s.path) for s in sites()}


def placed(atlas_sites: pd.DataFrame, held: pd.DataFrame) -> pd.DataFrame:
    """Each held-out row (``table.COLUMNS``) with the interval that all the atlas's sites
    give at its quantity, draw and age, whether it falls inside (bounds included; False where
    there is no interval) and its percentile among those sites."""
    keys = population.KEYS
    pop = population.population(atlas_sites)
    pop = pop[pop["kind"] == "all"][[*keys, "pi_lo", "pi_hi"]]
    out = held.merge(pop, on=keys, how="left", validate="many_to_one")
    out["inside_pi"] = (out["pi_lo"] <= out["measured"]) & (out["measured"] <= out["pi_hi"])
    shares = {k: g["measured"].to_numpy() for k, g in atlas_sites.groupby(keys)}
    out["percentile"] = [
        population.percentile(m, shares[k]) if k in shares else float("nan")
        for k, m in zip(out[keys].itertuples(index=False, name=None), out["measured"], strict=True)
    ]
    return out[COLUMNS]


def heldout_table(atlas_sites: pd.DataFrame) -> pd.DataFrame:
    """results/atlas_heldout.csv: every held-out site placed against the atlas."""
    return placed(atlas_sites, table.sites_table(logs(), sites()))
