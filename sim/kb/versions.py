"""Article versions: integer microseconds inside the store, RFC 3339 strings outside.

A version is the article's ``updated_at``. Microsecond resolution matters: a
version that two writes in the same second could share is the lost-update bug of
HTTP's weak validators, so the store bumps ties by one microsecond.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], int]
"""Returns the current instant as integer microseconds since the Unix epoch."""

_UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_US = timedelta(microseconds=1)


@functools.lru_cache(maxsize=65_536)
def format_version(us: int) -> str:
    """Fixed-width UTC form, so versions also sort correctly as strings (cached: a search or
    a re-read shows the same versions again and again)."""
    return (_UNIX_EPOCH + timedelta(microseconds=us)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_version(text: str) -> int:
    """Instant of an RFC 3339 date-time, in microseconds; ValueError if not one."""
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        raise ValueError(f"date-time {text!r} has no UTC offset")
    return (dt - _UNIX_EPOCH) // _ONE_US


def us_from_datetime(dt: datetime) -> int:
    return (dt - _UNIX_EPOCH) // _ONE_US
