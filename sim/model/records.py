"""Tidy result records: one row per citation, check, edit, save, day.

Flat dataclasses of scalars, so a list of them is a DataFrame directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class CitationRecord:
    seed: int
    save_popularity: str
    answer: int
    slot: int
    """0 for the top hit, 1 for the second, ..."""
    question_article: str
    """The article the customer's question was about."""
    article_id: str
    article_rank: int
    """Popularity rank of the cited article among questions, 1 = most asked."""
    read_s: float
    version: str
    title: str
    event_sequence: int
    final_status: str
    """'fresh', 'stale' or 'gone' at the end of the day (ground truth)."""
    final_kind: str
    """For stale: 'body' or 'title' (title differs from the cited one); 'gone'; '' if fresh."""


@dataclass(frozen=True, slots=True)
class CheckRecord:
    seed: int
    save_popularity: str
    check: int
    t_s: float
    method: str
    """A method the hourly checker runs (``sim.model.methods.HOURLY``'s names), or 'truth'
    (the ground-truth oracle)."""
    citations: int
    flagged: int
    """Citations the method reports as changed or gone."""
    flagged_gone: int
    caught: int
    """Flagged and truly stale or gone."""
    missed: int
    false_alarms: int
    caught_body: int
    caught_title: int
    caught_gone: int
    truth_body: int
    truth_title: int
    truth_gone: int
    calls: int
    """Tool calls the method made in this check, from the call log."""
    poll_calls: int
    articles_reread: int
    result_chars: int
    """Characters of all results the method received in this check, from the call log."""


@dataclass(frozen=True, slots=True)
class DetectionRecord:
    """When one method learnt that one citation had gone out of date."""

    seed: int
    save_popularity: str
    method: str
    """A check method's name (``sim.model.methods.METHODS``), or 'push'."""
    interval_s: float
    """Seconds between the method's checks; 0 for push."""
    answer: int
    slot: int
    read_s: float
    changed_s: float
    """Ground truth: the first save or unpublish of the article after the read; NaN if none
    by the end of the day."""
    detected_s: float
    """The first check (or notification) at which the method flagged the citation; NaN if
    never by the end of the day."""


@dataclass(frozen=True, slots=True)
class CadenceRecord:
    """What one method cost over the day at one check interval, from the call log."""

    seed: int
    save_popularity: str
    method: str
    """A method the interval sweep runs (``sim.model.methods.SWEPT``'s names)."""
    interval_s: float
    checks: int
    calls: int
    poll_calls: int
    articles_reread: int
    result_chars: int


@dataclass(frozen=True, slots=True)
class EditRecord:
    seed: int
    answer: int
    article_id: str
    delay_s: float
    read_s: float
    edit_s: float
    first_outcome: str
    """'ok', 'conflict' or 'gone' for the first try with the citation's version; with the
    write gate also 'declined', or 'never_written' when the article kept changing through
    every approval."""
    conflict_cause: str
    """For a conflict: 'human' if a human saved since the read, else 'agent'; '' otherwise."""
    human_save_in_window: bool
    """Ground truth: a human saved or unpublished the article between read and first try."""
    attempts: int
    final_outcome: str
    """'ok', 'gone', or 'gave_up' after max_edit_attempts conflicts."""
    replay_matched: bool
    """The same call sent again returned the first result, marked as a replay."""
    replay_new_events: int
    replayed: bool = False
    """The success was sent again with the same key (which successes: Params.replays)."""
    strategy: str = ""
    """With the write gate: 'approve_then_write' or 'reread_after_approval'; '' without."""
    approval_median_s: float = 0.0
    """The run's median approval latency (0 without the gate)."""
    approvals: int = 0
    """Approvals this edit asked for."""
    declined: bool = False
    """The reviewer declined one of them, so the edit was dropped."""
    approval_wait_s: float = 0.0
    """Seconds the edit waited for decisions, all approvals together."""
    would_overwrite: bool = False
    """Ground truth at the first write: a human saved since the version it was based on, so
    without CAS it would have overwritten a human's newer text."""
    end_to_end_s: float = float("nan")
    """Seconds from the edit's start (read + delay) to its successful write; NaN if none."""
    first_grant_cause: str = ""
    """With the gate, ground truth at the first approval's decision, when a first write with
    the citation's version goes out: 'human' (a human saved since the read, the article
    still published), 'agent' (only the agent's other edits wrote), 'gone' (unpublished),
    'none' (unchanged), or 'not_sent' (that approval was declined); '' without the gate."""
    agent_calls: int = 0
    """With the gate: the agent's tool calls for this edit (writes and re-reads)."""
    agent_chars: int = 0
    """With the gate: characters of those calls' results."""


@dataclass(frozen=True, slots=True)
class SaveRecord:
    seed: int
    save_popularity: str
    t_s: float
    article_id: str
    drawn: str
    """'body', 'title', 'unpublish' (or 'new', calibrated process): what was drawn."""
    effect: str
    """What it did: 'body', 'title', 'unpublish', 'draft' (an edit of an unpublished article),
    or 'new' (an article created: not written, sim.model.calibrated)."""
    republished: bool = False
    """It published an unpublished article again first (unpublished_save='republish')."""


@dataclass(frozen=True, slots=True)
class DayRecord:
    seed: int
    save_popularity: str
    agent_edits: bool
    questions: int
    questions_top10: int
    saves: int
    saves_top10: int
    """Saves on the 10 articles most popular among questions."""
    unpublished_at_end: int
    events: int


def as_row(record: Any) -> dict[str, Any]:
    """A flat slotted record as a dict. ``dataclasses.asdict`` deep-copies every field, which
    is wasted on scalars: measured 11 µs against 0.8 µs a record."""
    return {name: getattr(record, name) for name in record.__slots__}
