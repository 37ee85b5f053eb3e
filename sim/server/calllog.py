"""One line per tool call: the study's costs are computed from this log.

A line holds the call's time, client, tool, its arguments as the log may show them,
the characters of its result (text plus structured content, counted when the result
is made, before it is sent), whether the result was empty, the outcome and the
dispatch time. Free text is never logged: queries, titles and bodies appear only as
their length, idempotency keys only by name. Ids, enumerations and numbers are kept,
so a citation can be traced to the read that produced it. The simulation and
``python -m sim serve --call-log`` write the same lines; ``python -m sim log-report``
turns them into the cost table.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from sim.kb.rows import Approval
from sim.kb.versions import format_version, parse_version
from sim.server.describe import describe_name, is_unicode_text, printable

if TYPE_CHECKING:
    import pandas as pd

SHOWN = frozenset(
    {
        "knowledge_base_id",
        "article_id",
        "resource_type",
        "resource_id",
        "expected_version",
        "limit",
        "after_sequence",
    }
)
"""Arguments whose values are logged: ids, enumerations, versions and numbers."""
LENGTH_ONLY = frozenset({"query", "title", "content"})
"""Free text: only its length is logged."""
_KNOWN = SHOWN | LENGTH_ONLY
HIDDEN = "?"
MAX_LOGGED_ARGUMENTS = 8
"""A hostile client may send thousands of argument names; the log keeps this many."""

LoggedValue = str | int | dict[str, int]


@dataclass(frozen=True, slots=True)
class ToolCall:
    t_us: int
    """Instant of the call, microseconds since the Unix epoch (simulated or wall)."""
    client_id: str
    tool: str
    args: dict[str, LoggedValue]
    """Argument name -> its value, {"length": n} for free text, or "?"."""
    result_chars: int
    """Characters of the result as made for the client (written when made, before it is
    sent): the text content plus the structured content's JSON."""
    empty: bool
    """No hits, no events, or a refusal."""
    outcome: str
    """'ok' or the error code."""
    wall_us: int
    """Dispatch time on this machine: machine-dependent, never part of results/."""

    @property
    def article_id(self) -> str:
        value = self.args.get("article_id", "")
        return value if isinstance(value, str) else ""


def logged_args(arguments: Any) -> dict[str, LoggedValue]:
    """What the log may show of each argument (bounded: a client may send anything)."""
    if not isinstance(arguments, dict):
        return {}
    out: dict[str, LoggedValue] = {}
    for name in sorted(arguments, key=str)[:MAX_LOGGED_ARGUMENTS]:
        value = arguments[name]
        key = name if name in _KNOWN else describe_name(name)  # a known name shows as itself
        if name in LENGTH_ONLY and isinstance(value, str):
            out[key] = {"length": len(value)}
        elif name in SHOWN and isinstance(value, str) and len(value) <= 100:
            out[key] = printable(value)
        elif (
            name in SHOWN
            and isinstance(value, int)
            and not isinstance(value, bool)
            and value.bit_length() < 64
        ):
            out[key] = value
        else:
            out[key] = HIDDEN
    return out


def line(call: ToolCall) -> str:
    """One call as one JSON line."""
    row = {
        "t": format_version(call.t_us),
        "client": call.client_id,
        "tool": call.tool,
        "args": call.args,
        "chars": call.result_chars,
        "empty": call.empty,
        "outcome": call.outcome,
        "dispatch_us": call.wall_us,
    }
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"


class BadLogLine(ValueError):
    """A line of a call log this project's server would never write; says which and why."""


_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "t": (str, "an RFC 3339 date-time string"),
    "client": (str, "a string"),
    "tool": (str, "a string"),
    "args": (dict, "an object"),
    "chars": (int, "an integer from 0 to 2**53"),
    "empty": (bool, "true or false"),
    "outcome": (str, "a string"),
    "dispatch_us": (int, "an integer from 0 to 2**53"),
}
MAX_INT = 2**53
"""The largest integer a JSON reader keeps exactly: a count past it is no call's."""


def parse_line(text: str) -> ToolCall:
    return _call(json.loads(text))


def _row(raw: bytes, number: int) -> dict[str, Any] | None:
    """The JSON object of one line of a log file, None for a blank line; BadLogLine if the
    line is no JSON object (any bytes may arrive: a log is a file anyone can edit)."""
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadLogLine(f"line {number}: byte {e.start + 1} is not UTF-8") from None
    try:
        row = json.loads(text)
    except RecursionError:
        raise BadLogLine(f"line {number}: JSON nested too deep to be a call") from None
    except ValueError as e:
        problem = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
        raise BadLogLine(f"line {number}: not JSON ({problem[:80]})") from None
    if not isinstance(row, dict):
        raise BadLogLine(f"line {number}: a JSON {_kind(row)}, not an object with a call's fields")
    return row


def _kind(value: Any) -> str:
    return {
        list: "array",
        dict: "object",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
    }.get(type(value), "null")


def _checked(row: dict[str, Any], number: int) -> ToolCall:
    for name, (kind, allowed) in _FIELDS.items():
        value = row.get(name)
        ok = isinstance(value, kind) and (kind is not int or not isinstance(value, bool))
        if ok and kind is int and isinstance(value, int):
            ok = 0 <= value <= MAX_INT
        if ok and isinstance(value, str):
            ok = is_unicode_text(value)
        if not ok:
            shown = "missing" if name not in row else f"a JSON {_kind(value)}"
            if kind is int and isinstance(value, int) and not isinstance(value, bool):
                shown = "a number out of that range"
            raise BadLogLine(f'line {number}: "{name}" must be {allowed}; it is {shown}')
    try:
        return _call(row)
    except ValueError:
        raise BadLogLine(f'line {number}: "t" is not an RFC 3339 date-time') from None


def _call(row: dict[str, Any]) -> ToolCall:
    return ToolCall(
        t_us=parse_version(row["t"]),
        client_id=row["client"],
        tool=row["tool"],
        args=row["args"],
        result_chars=row["chars"],
        empty=row["empty"],
        outcome=row["outcome"],
        wall_us=row["dispatch_us"],
    )


def read_jsonl(path: Path) -> list[ToolCall]:
    """The tool calls of a log file (approval lines are left out); BadLogLine names the first
    line that is not one this project writes."""
    calls = []
    with path.open("rb") as f:
        for number, raw in enumerate(f, 1):
            row = _row(raw, number)
            if row is not None and row.get("kind", "call") == "call":
                calls.append(_checked(row, number))
    return calls


def approval_line(a: Approval, authorised_call: int = 0) -> str:
    """One approval as one JSON line of the same log; a used one names the call it authorised
    (the call's number in the log) and the event of its write."""
    row: dict[str, Any] = {
        "kind": "approval",
        "approval": a.approval_id,
        "client": a.client_id,
        "tool": a.tool,
        "args": {"knowledge_base_id": a.kb_id, "article_id": a.article_id},
        "digest": a.args_digest,
        "requested": format_version(a.requested_us),
        "decided": format_version(a.decided_us),
        "decision": a.decision,
        "approver": a.approver,
    }
    if authorised_call:
        row["authorised_call"] = authorised_call
        row["event"] = a.used_by_sequence
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"


class CallLog:
    """The calls in memory (for the study's tables), and/or one line each to a sink.

    A served session writes every line as it happens, so the log survives the server,
    and a long session need not keep it in memory. Approvals of the write gate are lines
    of the same log."""

    def __init__(self, sink: TextIO | None = None, keep: bool = True) -> None:
        self.records: list[ToolCall] = []
        self.approvals: list[tuple[Approval, int]] = []
        self.calls = 0
        self._sink = sink
        self._keep = keep
        self.lost = False
        """The sink failed and was let go (``_lost``)."""

    def append(self, call: ToolCall) -> int:
        """Log a call; returns its number in the log (1 for the first)."""
        self.calls += 1
        if self._keep:
            self.records.append(call)
        if self._sink is not None:
            self._write(line(call))
        return self.calls

    def append_approval(self, approval: Approval, authorised_call: int = 0) -> None:
        if self._keep:
            self.approvals.append((approval, authorised_call))
        if self._sink is not None:
            self._write(approval_line(approval, authorised_call))

    def _write(self, text: str) -> None:
        assert self._sink is not None
        try:
            self._sink.write(text)
            self._sink.flush()
        except (OSError, ValueError) as e:  # full disk, a pipe's reader gone, a closed file
            self._lost(e)

    def _lost(self, e: Exception) -> None:
        """The log cannot be written: the server goes on without it, said once on stderr.
        A call is answered as it happened to the data; only its log line is lost."""
        name = getattr(self._sink, "name", "the sink")
        why = getattr(e, "strerror", None) or str(e)
        print(
            f"call log {name}: cannot write to it ({why}); serving goes on without the log, "
            f"which ends before call {self.calls}.",
            file=sys.stderr,
            flush=True,
        )
        self._sink = None
        self.lost = True

    def __len__(self) -> int:
        return len(self.records)

    def frame(self) -> pd.DataFrame:
        import pandas as pd  # not at import: the stdio server starts without it

        return pd.DataFrame(
            [asdict(r) for r in self.records], columns=list(ToolCall.__annotations__)
        )

    def write_jsonl(self, path: Path) -> None:
        with path.open("w", encoding="utf-8") as f:
            f.writelines(line(r) for r in self.records)
