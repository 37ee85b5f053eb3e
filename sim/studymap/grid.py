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
    on the same ranking, also the sum of each citation's exact chance of a save by the day's
    end given the article cited and when (``given_cited``), and the other citations that
    went to the tenth of the articles edited most."""
    parts = []
    for (relation, p), point_runs in zip(points(base, saves), runs, strict=True):
        c = frames_of(point_runs).citations
        c = c[c["experiment"] == "staleness"]
        stale = c["final_status"] != "fresh"
        first = c["slot"] == 0
        same = relation == "same"  # where the question rank is the edit rank
        expected = given_cited(p, c) if same else np.full(len(c), np.nan)
        top = ~first & (c["article_rank"] <= p.n_articles // 10)
        g = c.assign(
            stale=stale,
            first=first,
            first_stale=stale & first,
            expected=expected,
            first_expected=np.where(first, expected, 0.0 * expected),
            other_top=top.astype(float) if same else np.nan,
        )
        parts.append(
            g.groupby("seed", as_index=False)
            .agg(
                citations=("stale", "size"),
                stale=("stale", "sum"),
                first_citations=("first", "sum"),
                first_stale=("first_stale", "sum"),
                expected_stale=("expected", lambda x: x.sum(min_count=1)),
                first_expected_stale=("first_expected", lambda x: x.sum(min_count=1)),
                other_top_tenth=("other_top", lambda x: x.sum(min_count=1)),
            )
            .assign(relation=relation, n_saves=p.n_saves)
        )
    out = pd.concat(parts, ignore_index=True)
    return out[["relation", "n_saves", "seed", *STALE_COUNTS]]


STALE_COUNTS = (
    "citations",
    "stale",
    "first_citations",
    "first_stale",
    "expected_stale",
    "first_expected_stale",
    "other_top_tenth",
)
"""The per-seed sums of ``stale_rows``."""


def given_cited(p: Params, citations: pd.DataFrame) -> np.ndarray:
    """Each citation's exact chance that the article cited is saved (edited, retitled or
    unpublished) between its read and the day's end, given which article it is and when it
    was read: the day's n saves each land after the read with probability (day − t)/day and
    on this article with its share of saves, which on the same ranking is its share of
    questions (Zipf by the rank the citation records)."""
    share = zipf_weights(p.n_articles, p.zipf_s)[citations["article_rank"].to_numpy() - 1]
    after = (p.day_s - citations["read_s"].to_numpy()) / p.day_s
    return 1.0 - exactmath.power(1.0 - share * after, float(p.n_saves))


def cas_rows(base: Params, runs: PointRuns, saves: Saves = SAVES) -> pd.DataFrame:
    """Per point, seed and delay: CAS edits, those whose article a human saved or
    unpublished in the delay, and first tries rejected by the agent's own edits alone; on
    the same ranking, also the sum of each edit's exact chance of a human save in its window
    given the article edited and when it was read (``given_edited``)."""
    parts = []
    for (relation, p), point_runs in zip(points(base, saves), runs, strict=True):
        f = frames_of(point_runs)
        e = f.edits
        expected = given_edited(p, e, f.citations) if relation == "same" else np.nan
        g = e.assign(
            edits=1,
            human_save_in_window=e["human_save_in_window"].astype(int),
            rejected_by_agent_edit=(
                (e["first_outcome"] == "conflict") & (e["conflict_cause"] == "agent")
            ).astype(int),
            expected_human=expected,
        ).groupby(["seed", "delay_s"], as_index=False)
        sums = g[["edits", "human_save_in_window", "rejected_by_agent_edit"]].sum()
        sums["expected_human"] = g["expected_human"].sum(min_count=1)["expected_human"]
        parts.append(sums.assign(relation=relation, n_saves=p.n_saves))
    out = pd.concat(parts, ignore_index=True)
    cols = ["relation", "n_saves", "seed", "delay_s", "edits"]
    return out[[*cols, "human_save_in_window", "rejected_by_agent_edit", "expected_human"]]


def given_edited(p: Params, edits: pd.DataFrame, citations: pd.DataFrame) -> np.ndarray:
    """Each CAS edit's exact chance that a human saves (or unpublishes) its article between
    the read and the first try, given which article it is and when it was read: as
    ``given_cited``, over the part of the window inside the day (the humans stop at its
    end). The article's rank is the one the day's citations of it record."""
    ranks = citations.drop_duplicates(["seed", "article_id"]).set_index(["seed", "article_id"])
    rank = ranks["article_rank"].loc[list(zip(edits["seed"], edits["article_id"], strict=True))]
    share = zipf_weights(p.n_articles, p.zipf_s)[rank.to_numpy() - 1]
    end = np.minimum(edits["edit_s"].to_numpy(), p.day_s)
    inside = np.maximum(end - edits["read_s"].to_numpy(), 0.0) / p.day_s
    return 1.0 - exactmath.power(1.0 - share * inside, float(p.n_saves))
