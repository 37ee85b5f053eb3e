"""The fitted shape of an edit process: everything the generator needs, as one frozen value.

A shape is fitted from a log (``sim.calibrate.fit``) and saved as JSON, so a simulation can
load it without the log. Tuples, not lists, keep it hashable; construction validates every
field, so a hand-edited or truncated file fails with a ValueError naming the field.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from dataclasses import MISSING, asdict, dataclass, fields, replace
from pathlib import Path

FAMILIES = {"zipf": 1, "zipf_mandelbrot": 2}
"""Popularity laws over edit ranks r = 1, 2, ...: r**-s, and (r + q)**-s; value: parameter count."""
FORMAT_VERSION = 1


MAX_LOG_ARTICLES = 1_000_000
"""Articles a log's shape may speak for: past any help centre (`advise --articles` takes
100,000), short of a count whose arrays would not fit in memory."""
MAX_LOG_SAVES_PER_DAY = 10_000_000
"""Saves a day a log's shape may speak for: `advise --saves-per-day`'s range."""


@dataclass(frozen=True)
class EditShape:
    popularity_family: str
    """'zipf' (weights r**-s) or 'zipf_mandelbrot' (weights (r + q)**-s) over edit ranks."""
    popularity_params: tuple[float, ...]
    """(s,) for 'zipf'; (s, q) for 'zipf_mandelbrot'."""
    active_share: float
    """Share of the log's articles that were ever body-edited; the law covers that share of
    the simulated articles' ranks and the rest are never saved."""
    session_size_pmf: tuple[float, ...]
    """P(a session holds 1, 2, ... saves of one article)."""
    session_gap_s: float
    """A re-save within this many seconds of the article's previous save continues its session."""
    gap_quantiles_s: tuple[float, ...]
    """Gaps inside a session: their quantiles at equally spaced probabilities 0..1 (the log's
    own within-session gaps, no family imposed); drawn by log-linear interpolation."""
    bulk_share: float
    """Share of session-starting publishes that start sessions on more than one article."""
    bulk_size_pmf: tuple[float, ...]
    """P(size = 2, 3, ...) of those bulk publishes (index 0 is size 2)."""
    mix: tuple[float, float, float, float]
    """Shares of saves that are body edits, title changes, unpublishes, new articles."""
    hour_weights: tuple[float, ...]
    """24 shares of sitting starts, each weighted by the sessions it starts, by UTC hour."""
    weekday_weights: tuple[float, ...]
    """7 shares of sitting starts (weighted likewise) by UTC weekday, Monday first."""
    log_saves_per_day: float
    """The log's own volume: saves per 24 h over its observation window."""
    log_articles: int
    """Articles that appear in the log."""
    source: str
    """Where the shape was fitted from (a file name or a git repository and folder)."""
    sitting_gap_s: float = 3600.0
    """Session-starting publishes within this many seconds of the previous one are one
    sitting (an editor at work, touching several articles in turn)."""
    sitting_size_pmf: tuple[float, ...] = (1.0,)
    """P(a sitting holds 1, 2, ... session-starting publishes)."""
    sitting_gap_quantiles_s: tuple[float, ...] = (3600.0, 3600.0)
    """Gaps between a sitting's publishes, as quantiles (like gap_quantiles_s)."""

    def __post_init__(self) -> None:
        def bad(name: str, want: str) -> ValueError:
            return ValueError(f"EditShape.{name}: expected {want}; got {getattr(self, name)!r}")

        if self.popularity_family not in FAMILIES:
            raise bad("popularity_family", f"one of {sorted(FAMILIES)}")
        params = self.popularity_params
        if len(params) != FAMILIES[self.popularity_family] or not all(map(_finite, params)):
            raise bad("popularity_params", f"{FAMILIES[self.popularity_family]} finite numbers")
        if params[0] < 0 or (len(params) > 1 and params[1] <= -1):
            raise bad("popularity_params", "s >= 0 and, for Zipf–Mandelbrot, q > -1")
        for name in ("active_share", "bulk_share"):
            value = getattr(self, name)
            if not (_finite(value) and 0 <= value <= 1):
                raise bad(name, "a share from 0 to 1")
        if not self.active_share > 0:
            raise bad("active_share", "a share above 0")
        for name, length in (
            ("session_size_pmf", None),
            ("bulk_size_pmf", None),
            ("mix", 4),
            ("hour_weights", 24),
            ("weekday_weights", 7),
        ):
            _check_pmf(self, name, length, bad)
        if self.bulk_share > 0 and not self.bulk_size_pmf:
            raise bad("bulk_size_pmf", "the sizes of the bulk publishes when bulk_share > 0")
        for name in ("session_gap_s", "log_saves_per_day"):
            value = getattr(self, name)
            if not (_finite(value) and value > 0):
                raise bad(name, "a finite number above 0")
        if self.log_saves_per_day > MAX_LOG_SAVES_PER_DAY:
            raise bad("log_saves_per_day", f"at most {MAX_LOG_SAVES_PER_DAY:,} saves a day")
        _check_pmf(self, "sitting_size_pmf", None, bad)
        for name, top in (
            ("gap_quantiles_s", "session_gap_s"),
            ("sitting_gap_quantiles_s", "sitting_gap_s"),
        ):
            q, limit = getattr(self, name), getattr(self, top)
            if not (_finite(limit) and limit > 0):
                raise bad(top, "a finite number above 0")
            if (
                not isinstance(q, tuple)
                or len(q) < 2
                or not all(_finite(v) and 0 < v <= limit for v in q)
                or any(b < a for a, b in itertools.pairwise(q))
            ):
                raise bad(name, f"2 or more increasing gaps above 0 up to {top}")
        if isinstance(self.log_articles, bool) or not isinstance(self.log_articles, int):
            raise bad("log_articles", "an integer of 1 or more")
        if not 1 <= self.log_articles <= MAX_LOG_ARTICLES:
            raise bad("log_articles", f"an integer from 1 to {MAX_LOG_ARTICLES:,}")
        if not isinstance(self.source, str):
            raise bad("source", "a string")

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT_VERSION, **asdict(self)}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> EditShape:
        """Parse a shape file; any problem is one ValueError saying what is wrong."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"not JSON ({e})") from None
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object; got {type(data).__name__}")
        if data.pop("format", None) != FORMAT_VERSION:
            raise ValueError(f'expected "format": {FORMAT_VERSION} (an EditShape file)')
        names = [f.name for f in fields(cls)]
        optional = {f.name for f in fields(cls) if f.default is not MISSING}
        missing = [n for n in names if n not in data and n not in optional]
        extra = sorted(set(data) - set(names))
        if missing or extra:
            raise ValueError(f"fields missing: {missing}; fields not known: {extra}")
        values = {}
        for name in (n for n in names if n in data):
            value = data[name]
            if isinstance(value, list):
                if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
                    raise ValueError(f"EditShape.{name}: expected a list of numbers")
                value = tuple(float(v) for v in value)
            elif name not in ("popularity_family", "source", "log_articles"):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"EditShape.{name}: expected a number; got {value!r}")
                value = float(value)
            values[name] = value
        return cls(**values)


def stretch_sessions(shape: EditShape, factor: float) -> EditShape:
    """The shape with every editing session ``factor`` times as long in re-saves: a session
    of n saves becomes one of 1 + factor·(n − 1), its mass split between the two whole sizes
    around that (so the mean re-saves scale exactly). The generator keeps the volume, so
    the stretched shape makes the same number of saves in fewer, burstier sessions: an
    ablation that takes the burst coefficient B to a log's own where the fit falls short."""
    if not (math.isfinite(factor) and factor >= 1.0):
        raise ValueError(f"stretch_sessions: factor must be a number ≥ 1, got {factor!r}")
    if factor == 1.0:
        return shape  # as fitted, to the last bit
    pmf = shape.session_size_pmf
    out = [0.0] * (2 + math.ceil(factor * (len(pmf) - 1)))
    for i, p in enumerate(pmf):  # size i + 1 holds i re-saves
        x = factor * i
        lo = math.floor(x)
        out[lo] += p * (1.0 - (x - lo))
        out[lo + 1] += p * (x - lo)
    while out[-1] == 0.0:
        out.pop()
    total = math.fsum(out)
    return replace(shape, session_size_pmf=tuple(v / total for v in out))


def match_bulk(shape: EditShape, multi_share: float) -> EditShape:
    """The shape with its bulk share set so that publishes of more than one article make up
    ``multi_share`` of all publishes, as in a log (at most 1). A bulk share counts session
    starts only, and every re-save is a publish of its own, so a publish share m needs
    b = m(1 + r) / (1 − m·r·(s − 1)), r the mean re-saves of a session and s the mean bulk
    size: an ablation that takes a log's multi-article publishes to its own share where the
    fit falls short (a log whose bulk publishes also re-save articles mid-session)."""
    if not (math.isfinite(multi_share) and 0.0 <= multi_share < 1.0):
        raise ValueError(f"match_bulk: multi_share must be in [0, 1), got {multi_share!r}")
    if not shape.bulk_size_pmf:
        return shape  # no bulk sizes to draw from: the log has no multi-article publish
    resaves = math.fsum(i * p for i, p in enumerate(shape.session_size_pmf))
    extra = math.fsum((j + 1) * p for j, p in enumerate(shape.bulk_size_pmf))  # size − 1
    den = 1.0 - multi_share * resaves * extra
    share = min(1.0, multi_share * (1.0 + resaves) / den) if den > 0 else 1.0
    return replace(shape, bulk_share=share)


def load_shape(path: str | Path) -> EditShape:
    """Read a shape file; a missing, unreadable or invalid file raises ValueError naming it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot read a shape file ({e})") from None
    try:
        return EditShape.from_json(text)
    except ValueError as e:
        raise ValueError(f"{path}: not a valid edit shape: {e}") from None


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _check_pmf(
    shape: EditShape, name: str, length: int | None, bad: Callable[[str, str], ValueError]
) -> None:
    value = getattr(shape, name)
    if not isinstance(value, tuple) or (length is not None and len(value) != length):
        raise bad(name, f"a tuple of {length or 'one or more'} shares")
    if name == "bulk_size_pmf" and not value:
        return  # no bulk publishes in the log: bulk_share is 0
    if not value or not all(_finite(v) and v >= 0 for v in value):
        raise bad(name, "shares of 0 or more")
    if abs(sum(value) - 1) > 1e-6:
        raise bad(name, "shares summing to 1")
