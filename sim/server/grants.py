"""Bearer tokens and what each may do, for `serve --http --tokens FILE`.

The file is one JSON object, ``{"tokens": [{"label": "support-bot", "token": "…",
"read": ["kb-support"], "edit": ["kb-support"]}]}``: a token reads the KBs in ``read`` and
edits those in ``edit`` (an edit grant implies a read grant). A token is compared in constant
time (``hmac.compare_digest``) with every token of the file, so how long a refusal takes says
nothing of how much of a guess was right; only its label is ever written anywhere (the call
log's client id, stderr), never the token itself.
"""

from __future__ import annotations

import hmac
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.server.validation import describe_value

LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 512
KB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class GrantsError(ValueError):
    """A tokens file this server will not serve with; the message names the fault."""


@dataclass(frozen=True, slots=True)
class Grant:
    label: str
    token: bytes
    read: frozenset[str]
    edit: frozenset[str]


LOOPBACK_GRANT_LABEL = "mcp-client"
"""The one client of a server started without --tokens (loopback only), as on stdio."""


def loopback_grant(kb_ids: list[str]) -> Grant:
    return Grant(LOOPBACK_GRANT_LABEL, b"", frozenset(kb_ids), frozenset(kb_ids))


def load_grants(path: Path) -> list[Grant]:
    """The grants of a tokens file. Raises GrantsError naming the file, the entry and the
    field at fault, and what to write instead; never says a token's value."""
    where = f"--tokens {path}"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise GrantsError(f"{where}: cannot read it ({e.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise GrantsError(f"{where}: not JSON ({e}); write one object with a tokens list") from None
    entries = doc.get("tokens") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or not entries:
        raise GrantsError(
            f'{where}: expected {{"tokens": [{{"label": …, "token": …, "read": [KB ids], '
            f'"edit": [KB ids]}}, …]}} with at least one token; received {describe_value(doc)}'
        )
    grants = [_grant(f"{where}: tokens[{i}]", e) for i, e in enumerate(entries)]
    for field in ("label", "token"):
        seen: set[Any] = set()
        for i, g in enumerate(grants):
            value = getattr(g, field)
            if value in seen:
                raise GrantsError(
                    f"{where}: tokens[{i}] repeats an earlier {field}; make each unique"
                )
            seen.add(value)
    return grants


def _grant(where: str, entry: Any) -> Grant:
    if not isinstance(entry, dict):
        raise GrantsError(f"{where}: expected an object; received {describe_value(entry)}")
    extra = set(entry) - {"label", "token", "read", "edit"}
    if extra:
        raise GrantsError(
            f"{where}: unknown field {sorted(extra)[0]!r}; allowed: label, token, read, edit"
        )
    label = entry.get("label")
    if not isinstance(label, str) or not LABEL.fullmatch(label):
        raise GrantsError(
            f"{where}.label: expected 1 to 64 letters, digits, '.', '_' or '-'; received "
            f"{describe_value(label)}"
        )
    token = entry.get("token")
    if not isinstance(token, str) or not (MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS):
        shown = "a string" if isinstance(token, str) else describe_value(token)
        raise GrantsError(
            f"{where}.token ({label}): expected a string of {MIN_TOKEN_CHARS} to "
            f"{MAX_TOKEN_CHARS} characters; received {shown} (its value is never shown)"
        )
    if not token.isascii() or not token.isprintable() or " " in token:
        raise GrantsError(f"{where}.token ({label}): expected printable ASCII without spaces")
    read, edit = (_kb_list(f"{where}.{f} ({label})", entry.get(f, [])) for f in ("read", "edit"))
    return Grant(label, token.encode("ascii"), read | edit, edit)


def _kb_list(where: str, value: Any) -> frozenset[str]:
    if not isinstance(value, list) or not all(
        isinstance(v, str) and KB_ID.fullmatch(v) for v in value
    ):
        raise GrantsError(
            f"{where}: expected a list of knowledge base ids; received {describe_value(value)}"
        )
    return frozenset(value)


class Verifier:
    """Finds the grant of a presented bearer token, in time that depends on the number of
    tokens in the file only."""

    def __init__(self, grants: list[Grant]) -> None:
        self._grants = grants

    def grant_of(self, presented: str) -> Grant | None:
        try:
            candidate = presented.encode("ascii")
        except UnicodeEncodeError:
            candidate = b"\x00"
        found = None
        for g in self._grants:  # every token is compared, a match or not
            if hmac.compare_digest(candidate, g.token):
                found = g
        return found
