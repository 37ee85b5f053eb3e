"""The panel of real help centres' logs the real-shape arms run on: each log's fitted shape
(point estimates), what the bracket arms match of it (its multi-article share, its
burstiness), and the traits that set the logs apart, committed as rows with the runs.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from sim.calibrate import cache, popfit, sessions
from sim.calibrate.fit import Fit, fit, fit_shape
from sim.calibrate.logs import BUNDLED, PANEL, read_log
from sim.calibrate.shape import EditShape
from sim.study.realshape_misses import misses


@functools.lru_cache(maxsize=1)
def packaged_shape() -> EditShape:
    """The shape fitted to the packaged log (point estimates; no bootstrap needed here)."""
    return fit_shape(read_log(BUNDLED))


@functools.cache
def _panel_fit(name: str) -> Fit:
    """Point estimates, without the simulations only the family's p-value reads."""
    return fit(read_log(PANEL[name]), boot=0, shape_only=True)


def panel_shape(name: str) -> EditShape:
    """The shape fitted to one log of the panel (point estimates), by its name."""
    return packaged_shape() if PANEL[name] == BUNDLED else _panel_fit(name).shape


def multi_share(name: str) -> float:
    """The log's share of publishes with more than one article (the fit's point estimate)."""
    table = _panel_fit(name).table.set_index("quantity")
    return float(table.loc["publishes with >1 article", "estimate"])


@functools.cache
def panel_burst_stretch(name: str) -> float:
    """The session stretch that takes the fitted process's B to the log's own (kept between
    runs while the log and the fit's code stay: ``sim.calibrate.cache``)."""
    return cache.burst_stretch(_panel_fit(name).shape, read_log(PANEL[name]))


def panel_shapes(logs: tuple[str, ...] = tuple(PANEL)) -> dict[str, EditShape]:
    """The shape fitted to each log named (the whole panel, the shared log's first)."""
    return {name: panel_shape(name) for name in logs}


def panel_traits(logs: tuple[str, ...] = tuple(PANEL)) -> pd.DataFrame:
    """What differs between the panel's logs, for the conclusions that depend on the log:
    popularity exponent, burstiness, bulk share, sessions that re-save, the share of 'new';
    and what the bracket arms change in the process (``realshape_misses``). Computed with
    the runs (the fits are theirs) and committed as rows, so the report is
    written from rows without fitting a log again."""
    rows = []
    for name, shape in panel_shapes(logs).items():
        log = read_log(PANEL[name])
        b, _, _ = sessions.coefficients(log.article, log.epoch_s)
        counts = popfit.ranked(np.bincount(log.article[log.kind == 0]))
        rows.append(
            {
                "log": name,
                "source": shape.source,
                "zipf_s": popfit.fit_zipf(counts)[0],  # comparable across logs, whatever law
                "family": shape.popularity_family,
                "burstiness_b": b,
                "bulk_share": shape.bulk_share,
                "resave_share": 1.0 - shape.session_size_pmf[0],
                "new_share": shape.mix[3],
                **misses(_panel_fit(name), log, panel_burst_stretch(name)),
            }
        )
    return pd.DataFrame(rows)
