"""The per-seed rows files (results/seeds/<part>.csv): written at full precision and read
back bit for bit, text columns kept as text."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd

from sim.model import methods

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


METHOD_COLUMNS = ("method", "client_id")
"""The rows' columns that name a check method: the method, or the session a checker (or the
interval sweep) opened for it (``checker-NAME``, ``cadence-NAME[-INTERVALs]``)."""


def _method(value: str) -> str:
    """The registry's method a method or client column's value names, else the value."""
    for prefix in ("checker-", "cadence-"):
        if value.startswith(prefix):
            rest = value.removeprefix(prefix)
            return rest if rest in methods.BY_NAME else rest.rsplit("-", 1)[0]
    return value


def held_by(fresh: pd.DataFrame, committed: pd.DataFrame) -> pd.DataFrame:
    """Fresh rows cut to what the committed rows of a part hold: their columns, in their
    order, and no row of a check method of the registry they have none of. So a method added
    to the registry (its rows or columns not yet made, ``make rows``) leaves the committed
    ones comparable, while a committed column the fresh rows lack, or any changed value of
    a committed method, still differs."""
    lacking = [c for c in committed.columns if c not in fresh.columns]
    if lacking:
        raise ValueError(f"the fresh rows lack the committed columns {lacking}")
    new = set(methods.BY_NAME)
    for column in METHOD_COLUMNS:
        if column in committed.columns:
            new -= {_method(v) for v in committed[column].astype(str)}
    keep = pd.Series(True, index=fresh.index)
    for column in METHOD_COLUMNS:
        if column in fresh.columns:
            keep &= ~fresh[column].astype(str).map(_method).isin(new)
    return fresh.loc[keep, list(committed.columns)].reset_index(drop=True)
