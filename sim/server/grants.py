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
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 512
KB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
FIELD_NAME = re.compile(rf"[A-Za-z_]{{1,{MIN_TOKEN_CHARS - 1}}}")
"""A field name short enough to be no token, so a refusal may say it (a misspelt 'lable')."""
MAX_FILE_BYTES = 1 << 20
"""A tokens file larger than this is refused unread: a grant list is a few KB."""


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
    field at fault, and what to write instead. No value read from the file is ever quoted
    (any string in it may be a token put in the wrong place): a wrong value is described by
    its JSON type alone."""
    if not path.exists():  # the value may be a token or the grants' JSON given inline
        raise GrantsError(
            f"--tokens: no file at the path given ({len(str(path))} characters, not shown: it"
            " may hold a token); name the JSON file that holds the tokens"
        )
    where = f"--tokens {path}"
    doc = _document(where, path)
    entries = doc.get("tokens") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or not entries:
        got = kind(doc) if not isinstance(doc, dict) else f"tokens as {kind(entries)}"
        raise GrantsError(
            f'{where}: expected {{"tokens": [{{"label": …, "token": …, "read": [KB ids], '
            f'"edit": [KB ids]}}, …]}} with at least one token; received {got}'
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


def _document(where: str, path: Path) -> Any:
    """The file's JSON; a file that is missing, not a regular file (a folder, a FIFO that
    would block the start), too large, not UTF-8 or not JSON (or nested past what the
    parser's recursion takes) is a GrantsError that quotes none of its bytes."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise GrantsError(f"{where}: not a regular file; name the JSON file of the tokens")
        if info.st_size > MAX_FILE_BYTES:
            raise GrantsError(
                f"{where}: {info.st_size:,} bytes, over {MAX_FILE_BYTES:,}; a tokens file "
                "holds a short list of grants"
            )
        data = path.read_bytes()
    except OSError as e:
        raise GrantsError(f"{where}: cannot read it ({e.strerror})") from None
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise GrantsError(f"{where}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None
    except json.JSONDecodeError as e:
        raise GrantsError(
            f"{where}: not JSON ({e.msg} at line {e.lineno} column {e.colno}); write one "
            "object with a tokens list"
        ) from None
    except RecursionError:
        raise GrantsError(
            f"{where}: JSON nested too deeply to read; write one object with a tokens list"
        ) from None


def kind(value: Any) -> str:
    """A JSON value described without its content: what a refusal may say of it."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    return "an object"


def _grant(where: str, entry: Any) -> Grant:
    if not isinstance(entry, dict):
        raise GrantsError(
            f'{where}: expected an object {{"label": …, "token": …, "read": […], "edit": […]}}; '
            f"received {kind(entry)} (its value is never shown)"
        )
    extra = set(entry) - {"label", "token", "read", "edit"}
    if extra:
        name = sorted(extra)[0]
        shown = repr(name) if FIELD_NAME.fullmatch(name) else "(a name too long to be one)"
        raise GrantsError(f"{where}: unknown field {shown}; allowed: label, token, read, edit")
    label = entry.get("label")
    if not isinstance(label, str) or not LABEL.fullmatch(label):
        raise GrantsError(
            f"{where}.label: expected 1 to 64 letters, digits, '.', '_' or '-'; received "
            f"{kind(label)} that is not one (its value is never shown)"
        )
    token = entry.get("token")
    if not isinstance(token, str) or not (MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS):
        shown = kind(token) + (f" of {len(token)} characters" if isinstance(token, str) else "")
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
            f"{where}: expected a list of knowledge base ids (letters, digits, '.', '_', '-'); "
            f"received {kind(value)} that is not one (its value is never shown)"
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
