"""What the store hands back: articles, search hits, event pages, and the outcomes of a
compare-and-swap edit, one type per outcome so that callers match on them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


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


@dataclass(frozen=True, slots=True)
class Event:
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


EditOutcome = Saved | Replayed | KeyReused | Gone | Conflict
ResultRenderer = Callable[[int, int], str]
"""Builds the stored result JSON of a successful edit from (version_us, sequence)."""
