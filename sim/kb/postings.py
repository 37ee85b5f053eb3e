"""One term's postings for the in-memory bm25 index: its rows sorted by rowid with the
term's weighted count in each (title 4, body 1), writes queued and merged when a search
next needs the term; and a batch's postings built at once from its tokens."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.kb.fts5 import TITLE_WEIGHT

MAX_QUEUED = 64


def weighted_pairs(
    term_ids: np.ndarray, per_text: np.ndarray, rowids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch's (term, rowid, weighted count) for every term in every row, in term then
    row order: its tokens' keys (term, row, title or not) sorted, and equal keys counted."""
    n = len(rowids)
    row = np.repeat(np.arange(n), per_text.sum(axis=1))
    in_title = np.repeat(np.tile(np.array([0, 1], np.int64), n), per_text.ravel())
    key = np.sort((term_ids * n + row) * 2 + in_title)
    if not len(key):
        return key, key, key.astype(np.int32)
    runs = np.concatenate([[0], np.flatnonzero(np.diff(key)) + 1])
    counted = np.diff(np.append(runs, len(key))) * np.where(key[runs] & 1, TITLE_WEIGHT, 1)
    pair = key[runs] >> 1
    firsts = np.concatenate([[0], np.flatnonzero(np.diff(pair)) + 1])  # body run, title run
    pair = pair[firsts]
    return pair // n, rowids[pair % n], np.add.reduceat(counted, firsts).astype(np.int32)


@dataclass
class Postings:
    """One term's rows, sorted by rowid. Writes are queued and merged, in a few array
    operations, when a search next needs the term: a save touches every term of its row,
    a search only its own few."""

    rowids: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    weight: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))
    """The term's weighted count in each row (title 4, body 1)."""
    term: str = ""
    added: dict[int, int] = field(default_factory=dict)
    removed: set[int] = field(default_factory=set)

    def bound_queue(self) -> None:
        """A term no search asks for still merges once its queue outgrows a quarter of its
        rows, so memory stays bounded and each merge's cost is amortised. (When it merges
        changes nothing but cost: a merge gives the rows queued and kept, sorted.)"""
        if len(self.added) + len(self.removed) > max(MAX_QUEUED, len(self.rowids) // 4):
            self.merged()

    def merged(self) -> Postings:
        if self.added or self.removed:
            keep = self._kept()
            n = len(self.added)
            rowids = np.concatenate([self.rowids[keep], np.fromiter(self.added, np.int64, n)])
            weight = np.fromiter(self.added.values(), np.int32, n)
            order = np.argsort(rowids, kind="stable")
            self.rowids = rowids[order]
            self.weight = np.concatenate([self.weight[keep], weight])[order]
            self.added, self.removed = {}, set()
        return self

    def _kept(self) -> np.ndarray:
        """Which rows stay: those not removed (found by binary search in the sorted rowids,
        as a queue is a few rows against thousands; np.isin sorts both)."""
        keep = np.ones(len(self.rowids), bool)
        if self.removed and len(self.rowids):
            removed = np.fromiter(self.removed, np.int64, len(self.removed))
            at = np.minimum(np.searchsorted(self.rowids, removed), len(self.rowids) - 1)
            keep[at[self.rowids[at] == removed]] = False
        return keep

    def copy(self) -> Postings:
        m = self.merged()
        return Postings(m.rowids.copy(), m.weight.copy(), m.term)
