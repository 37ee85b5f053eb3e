"""The map's simulation grid: a few points of edit intensity × how questions relate to
edits, each a day of the write-up's model run as ``sweep`` runs it (same seeds, same
determinism), turned into per-seed rows that the closed forms are held to.

The staleness day runs without its checkers (they only read, so each citation's fate is
the same draw) and the CAS day on the write-up's delay ladder."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from sim import exactmath
from sim.params import Params
from sim.popularity import zipf_weights
from sim.study.experiments import PointRuns, Request, frames_of
from sim.studymap.forms import Relation

SAVES: dict[Relation, tuple[int, ...]] = {"same": (3, 30, 300, 3000), "independent": (30, 300)}
"""Saves in the 8-hour day at each point: 0.0225 to 22.5 edits per article per 24 h on
400 articles (the write-up's day is 300); the independent ranking where it moves most."""
SEEDS = 20
"""Seeds per point in `make reproduce` (a quick run: two)."""
RECORDS = ("days", "citations", "edits")


Saves = dict[Relation, tuple[int, ...]]


def points(base: Params, saves: Saves = SAVES) -> list[tuple[Relation, Params]]:
    """Every grid point: (relation, the day's params)."""
    return [
        (
            relation,
            replace(
                base,
                n_saves=n,
                run_checker=False,
                edit_follows_questions=1.0 if relation == "same" else 0.0,
            ),
        )
        for relation, counts in saves.items()
        for n in counts
    ]


def request(base: Params, seeds: list[int], saves: Saves = SAVES) -> Request:
    points_ = tuple(p for _, p in points(base, saves))
    return Request(points_, tuple(seeds), ("staleness", "cas"), RECORDS)


def stale_rows(base: Params, runs: PointRuns, saves: Saves = SAVES) -> pd.DataFrame:
    """Per point and seed: citations held at the day's end and those stale or gone, in all
    and of answers' first citations (the search's top hit; the others are its later hits);
    where ``save_chance`` applies, also the sum of each citation's chance of a save by the
    day's end given the article cited and when, and the sum of that chance's variance."""
    parts = []
    for (relation, p), point_runs in zip(points(base, saves), runs, strict=True):
        c = frames_of(point_runs).citations
        c = c[c["experiment"] == "staleness"]
        stale = c["final_status"] != "fresh"
        first = c["slot"] == 0
        ranks = c["article_rank"].to_numpy() if relation == "same" else None
        chance = save_chance(p, ranks, c["read_s"].to_numpy(), np.full(len(c), p.day_s))
        g = c.assign(stale=stale, first=first, first_stale=stale & first)
        g = g.assign(**_chance_columns(chance, first.to_numpy()))
        parts.append(
            g.groupby("seed", as_index=False)
            .agg(
                citations=("stale", "size"),
                stale=("stale", "sum"),
                first_citations=("first", "sum"),
                first_stale=("first_stale", "sum"),
                **{k: (k, _sum_or_nan) for k in CHANCE_SUMS},
            )
            .assign(relation=relation, n_saves=p.n_saves)
        )
    out = pd.concat(parts, ignore_index=True)
    return out[["relation", "n_saves", "seed", *STALE_COUNTS]]


CHANCE_SUMS = (
    "expected_stale",
    "expected_stale_var",
    "first_expected_stale",
    "first_expected_stale_var",
)
STALE_COUNTS = ("citations", "stale", "first_citations", "first_stale", *CHANCE_SUMS)
"""The per-seed sums of ``stale_rows``."""


def _chance_columns(chance: np.ndarray, first: np.ndarray) -> dict[str, np.ndarray]:
    var = chance * (1.0 - chance)
    none = 0.0 * chance  # 0, or NaN where the chance does not apply
    return {
        "expected_stale": chance,
        "expected_stale_var": var,
        "first_expected_stale": np.where(first, chance, none),
        "first_expected_stale_var": np.where(first, var, none),
    }


def _sum_or_nan(x: pd.Series) -> float:
    return float(x.sum(min_count=1))


def save_chance(
    p: Params, ranks: np.ndarray | None, start_s: np.ndarray, end_s: np.ndarray
) -> np.ndarray:
    """Each article's chance of a human save (an edit, a retitle or an unpublish) between
    start_s and end_s (cut at the day's end, where the humans stop), given the article (its
    question rank, which on the same ranking is its edit rank) and the window, over the
    day's own save draws: n saves, each at a uniform time and on an article by its share
    (1 − (1 − share · window/day)ⁿ; with Poisson arrivals 1 − e^{−n · share · window/day}).
    It leaves out what the choice of the article says of the saves before start_s (with a
    fixed n, fewer before leaves more after). NaN where those draws are not the day's: an
    independent ranking (``ranks`` None), another save process or popularity, saves after
    the day, or a save redrawn when its article is unpublished."""
    applies = (
        p.save_process == "writeup"
        and p.save_popularity == "zipf"
        and p.edit_follows_questions == 1.0
        and not p.humans_after_day_end
        and p.unpublished_save != "redraw"
    )
    if ranks is None or not applies:
        return np.full(len(start_s), np.nan)
    share = zipf_weights(p.n_articles, p.zipf_s)[ranks - 1]
    window = np.maximum(np.minimum(end_s, p.day_s) - start_s, 0.0) / p.day_s
    if p.arrivals == "poisson":
        return -exactmath.expm1(-float(p.n_saves) * share * window)
    return 1.0 - exactmath.power(1.0 - share * window, float(p.n_saves))


def cas_rows(base: Params, runs: PointRuns, saves: Saves = SAVES) -> pd.DataFrame:
    """Per point, seed and delay: CAS edits, those whose article a human saved or
    unpublished in the delay, and first tries rejected by the agent's own edits alone; where
    ``save_chance`` applies, also the sum of each edit's chance of a human save between its
    read and its first try, given the article edited, and of that chance's variance."""
    parts = []
    for (relation, p), point_runs in zip(points(base, saves), runs, strict=True):
        f = frames_of(point_runs)
        e = f.edits
        ranks = _edited_ranks(e, f.citations) if relation == "same" else None
        chance = save_chance(p, ranks, e["read_s"].to_numpy(), e["edit_s"].to_numpy())
        g = e.assign(
            edits=1,
            human_save_in_window=e["human_save_in_window"].astype(int),
            rejected_by_agent_edit=(
                (e["first_outcome"] == "conflict") & (e["conflict_cause"] == "agent")
            ).astype(int),
            expected_human=chance,
            expected_human_var=chance * (1.0 - chance),
        ).groupby(["seed", "delay_s"], as_index=False)
        sums = g[["edits", "human_save_in_window", "rejected_by_agent_edit"]].sum()
        for k in ("expected_human", "expected_human_var"):
            sums[k] = g[k].sum(min_count=1)[k]
        parts.append(sums.assign(relation=relation, n_saves=p.n_saves))
    out = pd.concat(parts, ignore_index=True)
    cols = ["relation", "n_saves", "seed", "delay_s", "edits"]
    return out[
        [
            *cols,
            "human_save_in_window",
            "rejected_by_agent_edit",
            "expected_human",
            "expected_human_var",
        ]
    ]


def _edited_ranks(edits: pd.DataFrame, citations: pd.DataFrame) -> np.ndarray:
    """Each edit's article's question rank, as the day's citations of it record it."""
    ranks = citations.drop_duplicates(["seed", "article_id"]).set_index(["seed", "article_id"])
    keys = list(zip(edits["seed"], edits["article_id"], strict=True))
    return ranks["article_rank"].loc[keys].to_numpy()
