"""What the store hands back: articles, search hits, event pages, the changes its listeners
hear of, the outcomes of a compare-and-swap edit (one type per outcome so that callers match on
them), and the error it raises."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class Article:
    kb_id: str
    article_id: str
    title: str
    content: str
    published: bool
    updated_us: int


@dataclass(frozen=True, slots=True)
class SearchHit:
    article_id: str
    title: str
    updated_us: int


class Event(NamedTuple):
    """One entry of the event log: a tuple, since a poll's page builds a hundred of them and
    a frozen dataclass's __init__ costs a microsecond more each."""

    sequence: int
    type: str
    article_id: str
    updated_us: int
    actor: str


@dataclass(frozen=True, slots=True)
class EventPage:
    events: list[Event]
    head_sequence: int
    oldest_sequence: int
    """Oldest sequence still kept (head + 1 when the log is empty)."""


@dataclass(frozen=True, slots=True)
class Saved:
    version_us: int
    sequence: int
    result_json: str
    approval_id: int = 0
    """The approval that authorised the write (the write gate), 0 without one."""


@dataclass(frozen=True, slots=True)
class Replayed:
    result_json: str


@dataclass(frozen=True, slots=True)
class KeyReused:
    pass


@dataclass(frozen=True, slots=True)
class Gone:
    pass


@dataclass(frozen=True, slots=True)
class Conflict:
    current_us: int
    expected_was_a_version: bool
    """Whether the event log holds the expected version as one of the article's versions."""


@dataclass(frozen=True, slots=True)
class Approval:
    approval_id: int
    kb_id: str
    client_id: str
    tool: str
    article_id: str
    args_digest: str
    requested_us: int
    ttl_us: int
    decision: str
    """'pending', 'granted' or 'declined'."""
    decided_us: int
    approver: str
    used_by_sequence: int
    """The event of the write it authorised; 0 while unused."""

    @property
    def expires_us(self) -> int:
        return self.decided_us + self.ttl_us

    def usable(self, now_us: int) -> bool:
        return self.decision == "granted" and not self.used_by_sequence and now_us < self.expires_us


@dataclass(frozen=True, slots=True)
class ApprovalMissing:
    latest: Approval | None
    """The latest approval asked for this exact call, in whatever state; None if none was."""


EditOutcome = Saved | Replayed | KeyReused | Gone | Conflict | ApprovalMissing
ResultRenderer = Callable[[int, int], str]
"""Builds the stored result JSON of a successful edit from (version_us, sequence)."""


@dataclass(frozen=True, slots=True)
class Change:
    """A committed event, as the store's listeners hear of it."""

    kb_id: str
    sequence: int
    type: str
    article_id: str


class StoreError(Exception):
    """A human-side operation named something that does not exist."""
