"""The per-seed rows files (results/seeds/<part>.csv): written at full precision and read
back bit for bit, text columns kept as text."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd

Rows = dict[str, pd.DataFrame]
"""An experiment's parts (or every experiment's), each a frame of rows by part name."""

_TEXT_COLUMNS = {
    c: str
    for c in (
        "choice",
        "reading",
        "label",
        "strategy",
        "method",
        "approval_reviewer",
        "scope",
        "arm",
        "figure",
        # the calibration's tables
        "quantity",
        "resampled",
        "family",
        "params",
        "source",
        "coefficient",
        "statistic",
        "process",
        "shape_json",
        "log",
        "target",
        "time",
        "relation",
    )
}


def to_csv(frame: pd.DataFrame) -> str:
    """Full precision: the rows read back are the rows written, bit for bit."""
    return frame.to_csv(index=False)


def write(folder: Path, rows: Rows) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, frame in rows.items():
        (folder / f"{name}.csv").write_text(to_csv(frame))


_EXACT_FLOATS: dict[str, Any] = (
    {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
)
"""pandas 3 reads every committed float exactly by default (checked on every file of
results/) and deprecates the option; pandas 2 needs it."""


def read_csv(source: Path | str) -> pd.DataFrame:
    """A rows file (or its text) as written: text columns kept as text, floats exact."""
    text = source.read_text() if isinstance(source, Path) else source
    head = pd.read_csv(io.StringIO(text), nrows=0).columns
    return pd.read_csv(
        io.StringIO(text),
        **_EXACT_FLOATS,
        dtype={c: t for c, t in _TEXT_COLUMNS.items() if c in head},
        keep_default_na=False,
        na_values=[""],
    )
