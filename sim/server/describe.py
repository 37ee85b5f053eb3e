"""What a refusal says it received: any JSON value or name, bounded and printable.

A client may send anything (an integer of 5,000 digits, a lone surrogate, a megabyte of
text); each refusal of every transport and tool echoes it back through these, so the echo is
short and always encodes as UTF-8.
"""

from __future__ import annotations

import json
import math
from typing import Any

SHOWN_CHARS = 40
"""Longest piece of a received string echoed back; longer ones are cut and their length given."""


def printable(text: str) -> str:
    """The text with lone surrogates spelt as escapes, so any reply encodes as UTF-8."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def terminal(text: object) -> str:
    """A path or value as a command prints it: each character that is not printable (a
    control character, an escape byte, a format character such as a bidi override, a lone
    surrogate) as its escape (``\\x1b``), so a stored byte cannot recolour, retitle or move
    the user's terminal, or hide what follows it."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def is_unicode_text(text: str) -> bool:
    """False for strings holding a lone surrogate (a JSON "\\ud800" without its pair)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def describe_value(value: Any) -> str:
    """A bounded rendering of any JSON value: what a refusal's ``received`` holds."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, float) and math.isnan(value):
        return "NaN (not a number)"
    if isinstance(value, float) and math.isinf(value):
        sign = "-" if value < 0 else ""  # JSON has no such value: a number past a double's range
        return f"a number too large to hold ({sign}infinity as read)"
    if isinstance(value, float):
        return f"{value!r} (a number with a decimal point)"
    if isinstance(value, int):
        if value.bit_length() <= 128:
            return str(value)
        sign = "a negative" if value < 0 else "an"
        return f"{sign} integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, str):
        shown = json.dumps(printable(value[:SHOWN_CHARS]), ensure_ascii=False)
        if len(value) <= SHOWN_CHARS:
            return shown
        return f'{shown[:-1]}…" ({len(value):,} characters)'
    if isinstance(value, list):
        return f"a JSON array of {len(value)} items"
    if isinstance(value, dict):
        return f"a JSON object with {len(value)} keys"
    return f"a value of type {type(value).__name__}"


def describe_name(name: object) -> str:
    """An argument or tool name as sent, bounded and printable (a client may send anything)."""
    if not isinstance(name, str):
        return describe_value(name)
    text = printable(name[:SHOWN_CHARS])
    return text if len(name) <= SHOWN_CHARS else f"{text}… ({len(name):,} characters)"
