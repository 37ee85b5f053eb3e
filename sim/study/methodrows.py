"""Per-method results in long form: one row per run, seed, method and check interval.

Every check method of the registry (``sim.model.methods``) that a day ran, and push, gets
rows here from the per-seed frames: what it cost (checks, calls, notifications,
characters, from the call log) and what it let go unnoticed (changed citations, their
unnoticed seconds, how many it never noticed). A new method adds rows, not columns, so
``python -m sim sweep`` and the exposure table show it with no edit here.

The hourly checker's methods run at ``Params.check_interval_s``; the interval sweep's at
each of ``Params.sweep_intervals_s``. Where both ran a method at the same interval (the
exposure run's hour) the sweep's row is kept: its detections are the ones the day records.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.model import methods
from sim.params import Params
from sim.server.resources import UPDATED
from sim.study.experiments import StudyFrames

KEYS = ["experiment", "seed", "method", "interval_s"]
COST_COLUMNS = ["checks", "calls", "poll_calls", "notifications", "result_chars"]
SUM_COLUMNS = ["changed", "unnoticed_s", "never"]
COLUMNS = [*KEYS, *COST_COLUMNS, *SUM_COLUMNS, "held_s"]
"""The long form's columns: the keys, the costs, the sums over changed citations and the
seed's citation-seconds held (the base of a stale-and-unknown share)."""
RECORDS = ("citations", "checks", "calls", "detections", "cadence")
"""The record types method_rows reads."""


def _costs(base: Params, frames: StudyFrames) -> pd.DataFrame:
    """Per run, seed, method and interval: checks, calls, notifications, characters."""
    cols = [*KEYS, *COST_COLUMNS]
    parts = []
    swept = frames.cadence
    if not swept.empty:
        parts.append(swept.assign(notifications=0)[cols])
    checks = frames.checks
    if not checks.empty:
        hourly = checks[checks["method"].isin([m.name for m in methods.HOURLY])]
        hourly = (
            hourly.groupby(["experiment", "seed", "method"])
            .agg(
                checks=("check", "size"),
                calls=("calls", "sum"),
                poll_calls=("poll_calls", "sum"),
                result_chars=("result_chars", "sum"),
            )
            .reset_index()
            .assign(interval_s=base.check_interval_s, notifications=0)
        )
        if parts:  # the sweep's row of a method at the checker's interval is the day's
            seen = pd.MultiIndex.from_frame(parts[0][KEYS])
            hourly = hourly[~pd.MultiIndex.from_frame(hourly[KEYS]).isin(seen)]
        parts.append(hourly[cols])
    calls = frames.calls
    push_calls = calls[calls["client_id"] == "push"] if not calls.empty else calls
    if not push_calls.empty:
        is_note = push_calls["tool"] == UPDATED
        by = ["experiment", "seed"]
        push = pd.DataFrame(
            {
                "calls": push_calls[~is_note].groupby(by)["calls"].sum(),
                "notifications": push_calls[is_note].groupby(by)["calls"].sum(),
                "result_chars": push_calls.groupby(by)["result_chars"].sum(),
            }
        ).fillna(0)
        push = push.reset_index().assign(method="push", interval_s=0.0, checks=0, poll_calls=0)
        parts.append(push[cols])
    if not parts:
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)


def unnoticed(base: Params, detections: pd.DataFrame) -> pd.DataFrame:
    """The detections of changed citations, each with its unnoticed seconds (`unnoticed_s`),
    whether it was never noticed (`never`) and `changed` = 1: a change never noticed goes
    unnoticed until its citation is let go or the day ends."""
    changed = detections[detections["changed_s"].notna()]
    # change times come from the store's microsecond clock, detections from SimPy's float
    # clock: push, noticing at the same instant, would read a few hundred ns below zero
    end = np.minimum(changed["read_s"] + base.citation_hold_s, base.day_s)
    lapse = (changed["detected_s"].fillna(end) - changed["changed_s"]).clip(lower=0.0)
    return changed.assign(unnoticed_s=lapse, never=changed["detected_s"].isna(), changed=1)


def method_rows(base: Params, frames: StudyFrames) -> pd.DataFrame:
    """The long form (``COLUMNS``) of every method the runs in `frames` checked with, sorted
    by run, seed, method and interval; empty when none did (e.g. the CAS runs). A day with no
    citation (no detections) has its costs, and NaN for the sums and the seconds held."""
    costs = _costs(base, frames)
    if costs.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = costs.set_index(KEYS)
    if frames.detections.empty:
        rows = rows.assign(**dict.fromkeys(SUM_COLUMNS, np.nan))
    else:
        changed = unnoticed(base, frames.detections)
        rows = rows.join(changed.groupby(KEYS)[SUM_COLUMNS].sum())
    rows = rows.reset_index().sort_values(KEYS, kind="stable").reset_index(drop=True)
    rows["held_s"] = np.nan
    c = frames.citations
    if not c.empty:
        # a citation is held from its read until the agent lets it go or the day ends
        held = (
            (np.minimum(c["read_s"] + base.citation_hold_s, base.day_s) - c["read_s"])
            .groupby([c["experiment"], c["seed"]])
            .sum()
        )
        at = pd.MultiIndex.from_frame(rows[["experiment", "seed"]])
        rows["held_s"] = held.reindex(at).to_numpy()
    return rows[COLUMNS]
