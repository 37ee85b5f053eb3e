"""The report's prose lives in templates (``sim/report/templates/*.md.j2``); the modules
beside this one compute tables and values and pass them in. One Jinja2 environment, and
the filters every page shares, so a percentage, an interval or a count reads the same
everywhere and a sentence is edited where it is read, not inside an f-string.

The environment is strict (an undefined name is an error, not an empty string) and keeps
a template's last newline, so a page's bytes are exactly what its template says.
Whitespace: ``trim_blocks`` and ``lstrip_blocks`` are on, so a ``{% … %}`` line leaves
no blank line and no indent behind.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Environment

    from sim.stats import Interval


def pct(x: float, digits: int = 1) -> str:
    """A share as a percentage: 0.1234 → "12.3 %"."""
    return f"{100 * x:.{digits}f} %"


def pct_ci(i: Interval, digits: int = 1) -> str:
    """A share with its interval: "12.3 % (10.1 % – 14.5 %)"."""
    return f"{pct(i.mean, digits)} ({pct(i.lo, digits)} – {pct(i.hi, digits)})"


def num(x: float, digits: int = 0) -> str:
    """A number with thousands separators: 12345.6 → "12,346"."""
    return f"{x:,.{digits}f}"


def num_ci(i: Interval, digits: int = 0) -> str:
    """A number with its interval: "1,234 (1,100 – 1,368)"."""
    return f"{num(i.mean, digits)} ({num(i.lo, digits)} – {num(i.hi, digits)})"


def num_sized(x: float) -> str:
    """A fitted quantity with the digits its size needs: "1,234", "12.35", "0.123"; "n/a"
    for a missing one."""
    if math.isnan(x):
        return "n/a"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def count(n: float) -> str:
    """A count: an integer with thousands separators; a fraction keeps what it needs ("0.11")."""
    if math.isfinite(n) and n == int(n):
        return f"{int(n):,}"
    return f"{n:,.2g}" if abs(n) < 1 else f"{n:,.1f}"


def signed(x: float, digits: int = 1) -> str:
    """A move with its sign: "+1.2", "−0.3" as "-0.3"."""
    return f"{x:+.{digits}f}"


def points(x: float, digits: int = 1) -> str:
    """A move of a share in percentage points, with its sign: 0.012 → "+1.2"."""
    return signed(100 * x, digits)


def oneline(text: str) -> str:
    """A paragraph written over several template lines, as the one line Markdown keeps:
    each line break with the indent around it becomes one space."""
    return re.sub(r"[ \t]*\n[ \t]*", " ", text.strip())


FILTERS = {
    "oneline": oneline,
    "pct": pct,
    "pct_ci": pct_ci,
    "num": num,
    "num_ci": num_ci,
    "num_sized": num_sized,
    "count": count,
    "signed": signed,
    "points": points,
}


@cache
def environment() -> Environment:
    """The templates' environment, built once (Jinja2 loaded on first use: the commands
    that write no page never import it)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("sim.report", "templates"),
        undefined=StrictUndefined,
        autoescape=False,  # Markdown, not HTML: a value's "<" or "&" is written as it is
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(FILTERS)
    return env


def render(template: str, **values: Any) -> str:
    """The text of ``templates/<template>`` with these values."""
    return environment().get_template(template).render(**values)
