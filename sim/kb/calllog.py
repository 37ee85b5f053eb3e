"""One line per tool call: the study's costs are computed from this log.

Free text is never logged: a query appears only as its length. Article ids are
identifiers, not free text, and are kept so a citation can be traced to the
read that produced it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

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
    def __init__(self) -> None:
        self.records: list[ToolCall] = []

    def append(self, call: ToolCall) -> None:
        self.records.append(call)

    def __len__(self) -> int:
        return len(self.records)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [asdict(r) for r in self.records], columns=list(ToolCall.__annotations__)
        )

    def write_jsonl(self, path: Path) -> None:
        with path.open("w", encoding="utf-8") as f:
            for r in self.records:
                f.write(json.dumps(asdict(r), separators=(",", ":")) + "\n")
