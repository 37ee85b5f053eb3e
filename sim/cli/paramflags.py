"""Flags that set a `Params` field, built from the field: its flag's name, help and limits
from its metadata (`sim.params.Flag`), its type and choices from its annotation, its default
from its default. A command names the fields; nothing of them is written in the command.

Our own few lines rather than tyro or simple-parsing: those make a parser (or a group) of a
whole dataclass, each flag named after its field in the field's unit, while a command here
takes a few fields under its own flag names, some in hours, a few with no default (taken
from an edit log), into the argparse parsers and one-line errors every command shares.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import MISSING, Field, fields
from functools import lru_cache
from typing import Any, Literal, get_args, get_origin, get_type_hints

from sim.cli.common import bounded
from sim.params import Flag, Params

PARAMS: Any = object()
"""param_flag's default: the field's own."""


@lru_cache(maxsize=1)
def flagged() -> dict[str, tuple[Field[Any], Flag]]:
    """Every field that has a flag, by field name, with its Flag."""
    return {f.name: (f, f.metadata["flag"]) for f in fields(Params) if "flag" in f.metadata}


def default(name: str) -> Any:
    """The field's default in its flag's unit (hours for a field in seconds)."""
    f, flag = flagged()[name]
    assert f.default is not MISSING
    value = f.default
    return value if flag.unit == 1 else value / flag.unit


def _shown(value: object, flag: Flag) -> str:
    if flag.shown:
        return flag.shown
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:,g}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def param_flag(
    group: argparse.ArgumentParser | argparse._ArgumentGroup,
    name: str,
    *,
    value: Any = PARAMS,
    lo: float | None = None,
    also: str = "",
) -> None:
    """Add the flag of Params field `name` to `group`. `value`: the flag's default when the
    command's differs from the field's (None: the command decides, `also` saying how; the
    help still states the field's); `lo`: a lower limit of the command's own."""
    _, flag = flagged()[name]
    hint = get_type_hints(Params)[name]
    shown = _shown(default(name), flag)
    kwargs: dict[str, Any] = {"default": default(name) if value is PARAMS else value}
    if get_origin(hint) is Literal:
        kwargs["choices"] = get_args(hint)
        said = f"default: {shown}"
    else:
        kind = flag.kind or hint
        if kind not in (int, float) or flag.limits is None:
            raise TypeError(f"Params.{name}: its Flag needs limits and an int or float kind")
        low, high = flag.limits if lo is None else (lo, flag.limits[1])
        kwargs["type"] = bounded(kind, low, high)
        fmt = "," if kind is int else ",g"
        said = f"{low:{fmt}} to {high:{fmt}}; default: {shown}"
    text = f"{flag.help} ({said}{'; ' + also if also else ''})"
    group.add_argument(flag.name, metavar=flag.metavar, help=text.replace("%", "%%"), **kwargs)


def param_flags(group: argparse.ArgumentParser | argparse._ArgumentGroup, *names: str) -> None:
    """The flags of these Params fields, each with the field's own default."""
    for name in names:
        param_flag(group, name)
