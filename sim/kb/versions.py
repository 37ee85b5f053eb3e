"""Article versions: integer microseconds inside the store, RFC 3339 strings outside.

A version is the article's ``updated_at``. Microsecond resolution matters: a
version that two writes in the same second could share is the lost-update bug of
HTTP's weak validators, so the store bumps ties by one microsecond.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

Clock = Callable[[], int]
"""Returns the current instant as integer microseconds since the Unix epoch."""

_UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_US = timedelta(microseconds=1)
FIRST_US = (datetime(1, 1, 1, tzinfo=UTC) - _UNIX_EPOCH) // _ONE_US
LAST_US = (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC) - _UNIX_EPOCH) // _ONE_US
"""The instants a version can name: RFC 3339's years 0001-9999, in UTC."""


@functools.lru_cache(maxsize=65_536)
def format_version(us: int) -> str:
    """Fixed-width UTC form, so versions also sort correctly as strings (cached: a search or
    a re-read shows the same versions again and again)."""
    at = _UNIX_EPOCH + timedelta(microseconds=us)
    return at.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"  # years 0001-9999


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?"
    r"(?:[Zz]|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)


def parse_version(text: str) -> int:
    """Instant of an RFC 3339 date-time, in microseconds; ValueError if not one.

    Any RFC 3339 spelling names its instant (any offset, ``Z`` or ``z``, any number of
    fractional digits), but digits finer than a microsecond must be zero: a finer instant
    is no version this store can hold, so it is refused, never truncated."""
    m = _RFC3339.fullmatch(text)
    if m is None:
        raise ValueError(
            f"date-time {text[:40]!r} is not RFC 3339 (YYYY-MM-DDTHH:MM:SS[.fraction] then Z "
            "or a +HH:MM offset)"
        )
    year, month, day, hour, minute, second, fraction, sign, off_h, off_m = m.groups()
    fraction = fraction or ""
    if fraction[6:].strip("0"):
        raise ValueError("it has digits finer than a microsecond; versions are microseconds")
    offset = timedelta(0)
    if sign is not None:
        offset = timedelta(hours=int(off_h), minutes=int(off_m)) * (-1 if sign == "-" else 1)
        if abs(offset) >= timedelta(hours=24) or int(off_m) > 59:
            raise ValueError(f"date-time {text[:40]!r} has an offset out of range")
    dt = datetime(
        int(year),
        int(month),
        int(day),
        int(hour),
        int(minute),
        int(second),
        int(fraction[:6].ljust(6, "0")),
        tzinfo=timezone(offset),
    )
    us = (dt - _UNIX_EPOCH) // _ONE_US
    if not FIRST_US <= us <= LAST_US:
        raise ValueError(
            f"date-time {text[:40]!r} is in UTC outside the years 0001 to 9999 that a version "
            "can name"
        )
    return us


def us_from_datetime(dt: datetime) -> int:
    return (dt - _UNIX_EPOCH) // _ONE_US
