"""One line per tool call: the study's costs are computed from this log.

Free text is never logged: a query appears only as its length. Article ids are
identifiers, not free text, and are kept so a citation can be traced to the
read that produced it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, slots=True)
class ToolCall:
    t_us: int
    """Simulated instant of the call, microseconds since the Unix epoch."""
    client_id: str
    tool: str
    arg_names: str
    """Names of the arguments sent, comma-separated, sorted."""
    query_chars: int
    """Length of the search query in characters; 0 when the call had none."""
    article_id: str
    """The article named by the call; empty when none."""
    result_chars: int
    """Characters of the serialised result, as sent to the client."""
    empty: bool
    """No hits, no events, or an error."""
    outcome: str
    """'ok' or the error code."""
    wall_us: int
    """Wall-clock time the call took: machine-dependent, never part of results/."""


class CallLog:
    """The calls in memory (for the study's tables), and/or one JSON line each to a sink.

    A served session writes every line as it happens (``python -m sim serve --call-log``),
    so the log survives the server and a long session need not keep it in memory."""

    def __init__(self, sink: TextIO | None = None, keep: bool = True) -> None:
        self.records: list[ToolCall] = []
        self._sink = sink
        self._keep = keep

    def append(self, call: ToolCall) -> None:
        if self._keep:
            self.records.append(call)
        if self._sink is not None:
            self._sink.write(line(call))
            self._sink.flush()

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


def line(call: ToolCall) -> str:
    """One call as one JSON line (ASCII: an id with any character still fits one line)."""
    return json.dumps(asdict(call), separators=(",", ":")) + "\n"


def read_jsonl(path: Path) -> list[ToolCall]:
    with path.open(encoding="utf-8") as f:
        return [ToolCall(**json.loads(text)) for text in f if text.strip()]
