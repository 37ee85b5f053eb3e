"""The study on a real help centre's edit shape: the arms, their runs and per-seed rows.

Two separate, pure steps: ``realshape_runs`` runs every arm (the write-up's process,
the calibrated shape, the ablation that switches on one real feature at a time, and the
question relations) on the same seeds; ``per_seed_rows`` turns the runs' frames into tidy
rows, one per seed × arm × figure; the report's ``realshape_tables`` builds the tables from
those rows alone, so they can be recomputed from committed rows. Arms of a seed share its
opening and its questions; the figures compare like with like by pairing seeds. Every arm
watches with the advisor's choice for the base day (``sim.advise.choice.advised_choice``,
passed in: the advisor reads the study, not the other way round). Some 340 lines: the arms
are a table of a dozen rows, and a request, its rows and the setting the section states are
read against that table together.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import NotRequired, TypedDict

import numpy as np
import pandas as pd

from sim.calibrate.generate import expected_saves
from sim.calibrate.logs import PANEL
from sim.calibrate.shape import EditShape, match_bulk, stretch_sessions
from sim.model.calibrated import day_window
from sim.params import LADDER_S, SHAPE_FEATURES, Params, QuestionRelation
from sim.study.experiments import PointRuns, Request, StudyFrames, frames_of, run_all
from sim.study.metrics import PER_SEED_RECORDS, per_seed
from sim.study.realshape_panel import (
    multi_share,
    packaged_shape,
    panel_burst_stretch,
    panel_shape,
)

SEEDS = 11
"""The panel's batch of seeds per arm and log (``realshape_seeds``): every arm runs the
staleness and CAS days of seeds 1..SEEDS on each log of the panel, then further batches up
to its fixed count. The first batch is the most seeds that kept
the section within the days it once took on one log (600)."""
ADVICE_TARGET_MIN = 30.0
"""The advisor's target (mean minutes a change goes unnoticed), as in the report's example."""


BURST_ARM = "calibrated_bursts_matched"
"""The arm whose sessions are stretched until its B is the log's (``burstfit``)."""
BULK_ARM = "calibrated_bulk_matched"
"""The arm whose multi-article publishes are set to the log's share (``match_bulk``)."""


@dataclass(frozen=True)
class Arm:
    name: str
    label: str
    reference: str
    """The arm this one is compared with, seed by seed ('' for none)."""
    process: str
    features: tuple[str, ...] = SHAPE_FEATURES
    relation: QuestionRelation = "same"
    burst_matched: bool = False
    """Sessions stretched until the process's B is the log's (``burstfit``): the panel only."""
    bulk_matched: bool = False
    """Multi-article publishes at the log's own share (``match_bulk``): the panel only."""


ARMS = (
    Arm("writeup", "write-up's process", "", "writeup"),
    Arm("calibrated", "calibrated shape", "writeup", "calibrated"),
    Arm("counterparts", "calibrated, every feature off", "writeup", "calibrated", ()),
    *(Arm(f"+{f}", f"+ real {f}", "counterparts", "calibrated", (f,)) for f in SHAPE_FEATURES),
    Arm(
        "calibrated_independent",
        "calibrated, questions independent",
        "calibrated",
        "calibrated",
        relation="independent",
    ),
    Arm(
        "calibrated_clustered",
        "calibrated, questions clustered",
        "calibrated",
        "calibrated",
        relation="clustered",
    ),
    Arm(
        "writeup_clustered",
        "write-up's, questions clustered",
        "writeup",
        "writeup",
        (),
        "clustered",
    ),
    Arm(
        BURST_ARM,
        "calibrated, bursts at the log's B",
        "calibrated",
        "calibrated",
        burst_matched=True,
    ),
    Arm(
        BULK_ARM,
        "calibrated, bulk-matched",
        "calibrated",
        "calibrated",
        bulk_matched=True,
    ),
)
BRACKETS = (BURST_ARM, BULK_ARM)
"""Arms that close a miss of the fit on the log (its bursts, its multi-article publishes),
each against the calibrated shape: what the miss does to each answer, by a run."""
ONE_SHAPE_ARMS = tuple(a for a in ARMS if a.name not in BRACKETS)
"""The arms a single shape runs (``realshape_runs``: the notebook): the brackets close a
log's own misses (they read the log's multi-article share and B), so they run on the
panel's logs only."""
ABLATION = tuple(f"+{f}" for f in SHAPE_FEATURES)

FIGURES = {
    "stale_share": "citations stale or gone at day end",
    "answers_with_stale_share": "answers holding a stale citation",
    "title_caught_share": "stale citations the title-only check catches",
    "reread_calls": "re-read: calls a day (hourly)",
    "poll_calls": "poll: calls a day (hourly)",
    "poll_over_reread_calls": "poll ÷ re-read, calls",
    "poll_over_reread_chars": "poll ÷ re-read, characters",
    **{f"cas_reject_{int(d)}s": f"CAS rejected, edit {d:g} s after the read" for d in LADDER_S},
    "unnoticed_min": "mean minutes unnoticed, advisor's choice",
    "saves": "human saves in the day",
    "top10_save_share": "saves on the 10 most-asked articles",
}
SHARES = {k for k in FIGURES if k.endswith("share") or k.startswith("cas_reject")}


def arm_params(base: Params, arm: Arm, shape: EditShape, advised: tuple[str, float]) -> Params:
    """An arm's day: the base day with its process, features and question relation, and
    the advisor's method watching at its interval (reads only: the day is unchanged)."""
    method, interval_s = advised
    push, sweep = base.push, base.sweep_intervals_s
    if method == "push":
        push = True
    elif not (base.run_checker and interval_s == base.check_interval_s):
        # (at the hourly checker's interval, its re-read and poll flag at the same instants)
        sweep = (interval_s,)
    if arm.process == "writeup":
        return replace(base, question_relation=arm.relation, push=push, sweep_intervals_s=sweep)
    return replace(
        base,
        save_process="calibrated",
        edit_shape=shape,
        shape_features=arm.features,
        question_relation=arm.relation,
        push=push,
        sweep_intervals_s=sweep,
    )


WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class Setting(TypedDict):
    """What the real-shape section says was run (``setting``)."""

    source: str
    zipf_s: float
    window: str
    n_saves: int | float
    log_volume: float
    target: float
    advice: str
    mix: tuple[float, ...]
    writeup_mix: tuple[float, float, float]
    cluster_share: float
    cluster_delay_min: float
    traits: NotRequired[pd.DataFrame]
    """The panel's traits; without them the section has no panel subsection."""


def setting(
    base: Params, shape: EditShape, advised: tuple[str, float], traits: pd.DataFrame
) -> Setting:
    """What the section says was run: the shape's source, the day's window, the volumes, and
    the panel's traits (``panel_traits``, as committed)."""
    start = day_window(replace(base, save_process="calibrated", edit_shape=shape))
    day, hour = divmod(round(start / 3600), 24)
    method, interval_s = advised
    return {
        "source": Path(shape.source).name,
        "zipf_s": base.zipf_s,
        "window": f"{WEEKDAY_NAMES[day]} {hour:02d}:00–{hour + base.day_s / 3600:02.0f}:00",
        "n_saves": base.n_saves,
        "log_volume": expected_saves(shape, shape.log_saves_per_day, base.day_s, start),
        "target": ADVICE_TARGET_MIN,
        "advice": "push" if method == "push" else f"{method} every {interval_s / 60:g} min",
        "mix": tuple(float(x) for x in shape.mix),
        "writeup_mix": base.save_mix,
        "cluster_share": base.cluster_share,
        "cluster_delay_min": base.cluster_delay_s / 60,
        "traits": traits,
    }


def arm_shape(arm: Arm, name: str) -> EditShape:
    """The shape an arm runs on one log of the panel."""
    shape = panel_shape(name)
    if arm.bulk_matched:
        return match_bulk(shape, multi_share(name))
    if arm.burst_matched:
        return stretch_sessions(shape, panel_burst_stretch(name))
    return shape


SHARED_LOG = next(iter(PANEL))
"""The log the section's ablation and question relations are read on (the shared one)."""


SHARED_ARMS = tuple(a.name for a in ARMS if a.process == "writeup")
"""Arms that do not read the shape: run once and compared with every log's arms."""


def panel_request(
    base: Params,
    advised: tuple[str, float],
    seeds: list[int],
    arms: tuple[Arm, ...] = ARMS,
    logs: tuple[str, ...] = tuple(PANEL),
) -> Request:
    """The write-up's arms once, every shaped arm on each log named (the whole panel)."""
    points = [arm_params(base, a, packaged_shape(), advised) for a in arms if a.name in SHARED_ARMS]
    for name in logs:
        points += [
            arm_params(base, a, arm_shape(a, name), advised)
            for a in arms
            if a.name not in SHARED_ARMS
        ]
    return Request(
        tuple(points), tuple(seeds), ("staleness", "cas"), (*PER_SEED_RECORDS, "detections")
    )


def panel_rows(
    base: Params,
    advised: tuple[str, float],
    runs: PointRuns,
    arms: tuple[Arm, ...] = ARMS,
    logs: tuple[str, ...] = tuple(PANEL),
) -> pd.DataFrame:
    """Tidy rows (log, arm, seed, figure, value) of panel_request's runs: the write-up's arms
    repeated under each log, so each log's rows pair on their own."""
    frames = [frames_of(r) for r in runs]
    shared = [a.name for a in arms if a.name in SHARED_ARMS]
    shaped = [a.name for a in arms if a.name not in SHARED_ARMS]
    out = []
    for i, name in enumerate(logs):
        own = frames[len(shared) + i * len(shaped) : len(shared) + (i + 1) * len(shaped)]
        by_arm = dict(zip(shared, frames[: len(shared)], strict=True))
        by_arm |= dict(zip(shaped, own, strict=True))
        by_arm = {a.name: by_arm[a.name] for a in arms}
        rows = per_seed_rows(by_arm, advised, base)
        out.append(rows.assign(log=name)[["log", "arm", "seed", "figure", "value"]])
    return pd.concat(out, ignore_index=True)


def realshape_runs(
    base: Params,
    advised: tuple[str, float],
    shape: EditShape,
    seeds: list[int],
    workers: int | None = None,
    progress: bool = True,
    arms: tuple[Arm, ...] = ONE_SHAPE_ARMS,
) -> pd.DataFrame:
    """Run every arm's staleness and CAS days; return the tidy per-seed rows."""
    [runs] = run_all([realshape_request(base, advised, shape, seeds, arms)], workers, progress)
    return realshape_rows(base, advised, runs, arms)


def realshape_request(
    base: Params,
    advised: tuple[str, float],
    shape: EditShape,
    seeds: list[int],
    arms: tuple[Arm, ...] = ONE_SHAPE_ARMS,
) -> Request:
    """Every arm's staleness and CAS days on `seeds` (the write-up's arm, watched as the
    hourly checker watches, is the staleness and CAS experiments' own day)."""
    if bad := [a.name for a in arms if a.bulk_matched or a.burst_matched]:
        raise ValueError(f"realshape_request: {bad} read a log of the panel: use panel_request")
    points = tuple(arm_params(base, a, shape, advised) for a in arms)
    return Request(points, tuple(seeds), ("staleness", "cas"), (*PER_SEED_RECORDS, "detections"))


def realshape_rows(
    base: Params,
    advised: tuple[str, float],
    runs: PointRuns,
    arms: tuple[Arm, ...] = ONE_SHAPE_ARMS,
) -> pd.DataFrame:
    """The tidy per-seed rows of realshape_request's runs."""
    frames = [frames_of(r) for r in runs]
    return per_seed_rows(dict(zip((a.name for a in arms), frames, strict=True)), advised, base)


def _unnoticed(frames: StudyFrames, advised: tuple[str, float], day_s: float) -> pd.Series:
    """Per seed: mean minutes from a cited article's first change to the advised method's
    flag (or the day's end), over the staleness day's changed citations."""
    method, interval_s = advised
    d = frames.detections
    d = d[(d["experiment"] == "staleness") & (d["method"] == method)]
    d = d[np.isclose(d["interval_s"], interval_s)]
    changed = d[d["changed_s"].notna()]
    gap = (changed["detected_s"].fillna(day_s) - changed["changed_s"]).clip(lower=0.0)
    return (gap / 60).groupby(changed["seed"]).mean()


def per_seed_rows(
    runs: dict[str, StudyFrames], advised: tuple[str, float], base: Params
) -> pd.DataFrame:
    """One row per seed × arm × figure (columns arm, seed, figure, value)."""
    parts = []
    for arm, frames in runs.items():
        s = per_seed(frames).set_index("seed")
        values = pd.DataFrame(
            {
                "stale_share": s["zipf_stale_share"],
                "answers_with_stale_share": s["zipf_answers_with_stale_share"],
                "title_caught_share": s["title_caught_share"],
                "reread_calls": s["reread_calls"],
                "poll_calls": s["poll_method_calls"],
                "poll_over_reread_calls": s["poll_method_calls"] / s["reread_calls"],
                "poll_over_reread_chars": s["poll_method_chars"] / s["reread_chars"],
                **{f"cas_reject_{int(d)}s": s[f"cas_reject_share_{int(d)}s"] for d in LADDER_S},
                "unnoticed_min": _unnoticed(frames, advised, base.day_s),
                "saves": s["saves"],
                "top10_save_share": s["top10_save_share"],
            }
        )
        long = values.reset_index().melt(id_vars="seed", var_name="figure", value_name="value")
        parts.append(long.assign(arm=arm))
    rows = pd.concat(parts, ignore_index=True)[["arm", "seed", "figure", "value"]]
    return rows.assign(value=rows["value"].astype(float))
