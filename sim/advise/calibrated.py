"""The edit process `advise --edit-log / --edit-shape / --db` simulates: the shape fitted to
a real help centre's log (or read from a fitted file), at the log's own volume.

The closed forms of ``sim.advise`` assume independent Poisson saves over a uniform day; a
fitted edit shape has bursts, bulk publishes and a profile they do not describe, so that
advice is by simulation (``sim.advise.sampled``, rendered by ``sim.advise.db``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sim.calibrate.fit import fit_shape
from sim.calibrate.generate import expected_saves
from sim.calibrate.logs import read_log
from sim.calibrate.shape import EditShape, load_shape
from sim.model.calibrated import day_window
from sim.params import Params


def shape_from(edit_log: Path | None, edit_shape: Path | None) -> EditShape:
    """The shape fitted to a log (point estimates, as ``fit(log, boot=0).shape``), or read
    from a fitted file; a bad file raises ValueError naming it."""
    if edit_shape is not None:
        return load_shape(edit_shape)
    assert edit_log is not None
    return fit_shape(read_log(edit_log))


def log_volume(params: Params, shape: EditShape) -> float:
    """Saves the log's own volume puts in the day's window on average (a quiet help
    centre's: a fraction of one; rounding it up to a save overstated such a KB's edits)."""
    start = day_window(replace(params, save_process="calibrated", edit_shape=shape))
    return float(expected_saves(shape, shape.log_saves_per_day, params.day_s, start))
