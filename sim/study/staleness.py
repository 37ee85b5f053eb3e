"""The staleness and control days' per-seed rows: per seed and run, the stale citations by
kind and what the title-only check caught; every check record the tables read. And the
result sizes the checks' closed-form characters are priced at, measured through the tools
on a fresh copy of a seed's corpus. ``sim.report.tables`` builds the tables from these.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim import theory
from sim.corpus import build_corpus, load
from sim.kb.store import KBStore
from sim.params import Params
from sim.rng import streams
from sim.server.tools import KBServer
from sim.study.experiments import StudyFrames
from sim.study.metrics import checks_by_seed, staleness_by_seed

POPULARITY = {"staleness": "zipf", "control": "even"}
_TITLE_COLUMNS = [
    "title_caught",
    "title_caught_body",
    "title_caught_title",
    "title_caught_gone",
    "title_false_alarms",
]


CHECK_COLUMNS = [
    "experiment",
    "seed",
    "check",
    "t_s",
    "method",
    "citations",
    "flagged",
    "caught",
    "missed",
    "false_alarms",
    "calls",
    "poll_calls",
    "articles_reread",
    "result_chars",
]
"""The check records' columns the tables read: each is one seed's check of one method."""


def by_run_rows(f: StudyFrames) -> pd.DataFrame:
    """Per seed and run (Zipf, control): stale citations by kind and what title-only caught."""
    parts = []
    for experiment in POPULARITY:
        s = staleness_by_seed(f.citations[f.citations["experiment"] == experiment])
        c = checks_by_seed(f.checks[f.checks["experiment"] == experiment])[_TITLE_COLUMNS]
        part = s.join(c).reset_index()
        part.insert(1, "experiment", experiment)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def check_rows(f: StudyFrames) -> pd.DataFrame:
    return f.checks[CHECK_COLUMNS].reset_index(drop=True)


def result_sizes(base: Params, seed: int = 1) -> dict[str, float]:
    """Characters a client receives for a read result (mean over the corpus), one event in a
    poll page, and a page's envelope: measured through the tools on a fresh copy of a seed's
    corpus."""
    now = [0]
    store = KBStore(lambda: now[0])
    articles = build_corpus(base.n_articles, streams(seed)["corpus"])
    load(store, "kb", articles)
    session = KBServer(store, lambda: now[0]).connect("sizes", ["kb"])
    reads = [
        session.call(
            "read_knowledge_article", {"knowledge_base_id": "kb", "article_id": a.article_id}
        ).chars
        for a, _ in articles
    ]
    head = store.head_sequence("kb")

    def page(after: int) -> int:
        return session.call(
            "poll_resource_events",
            {
                "resource_type": "knowledge_base",
                "resource_id": "kb",
                "after_sequence": after,
                "limit": 100,
            },
        ).chars

    empty, full = page(head), page(max(0, head - 100))
    return {
        "read": float(np.mean(reads)),
        "page": float(empty),
        "event": (full - empty) / min(100, head),
    }


def check_call_forms(base: Params) -> dict[float, dict[str, float]]:
    """By check, the closed form's expected calls of re-read and poll on the Zipf day
    (``sim.theory.expected_check_calls``): what the report sets beside the checks' rows."""
    return {r["check"]: r for r in theory.expected_check_calls(base)}
