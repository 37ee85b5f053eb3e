"""Edit logs in the shared CSV format: read strictly, convert to saves, write atomically.

Format (one row per article changed by a publish): time,publish,author,article,change,
lines_added,lines_removed — time in UTC ISO 8601 with seconds; publish an integer that never
decreases, rows of one publish sharing one time; change one of add, modify, rename, delete.
A malformed log raises LogError with one line naming the line and the problem. Some 380
lines: the reader has a vectorised path for a well-formed log and a line-by-line one that
names the first bad line, and the two must agree on every log.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import tempfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from sim.calibrate.generate import DAY_S, WEEK_S, Saves

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("time", "publish", "author", "article", "change", "lines_added", "lines_removed")
CHANGES = {"modify": 0, "rename": 1, "delete": 2, "add": 3}
"""Log change → index into generate.KINDS (body, title, unpublish, new)."""
BUNDLED = Path(__file__).with_name("logs") / "help-centre-edits.csv"
"""The shared help-centre log, shipped with the package (see logs/README.md)."""
PANEL = {
    "Obsidian": BUNDLED,
    "Bitwarden": BUNDLED.with_name("bitwarden-help-edits.csv"),
    "DuckDuckGo": BUNDLED.with_name("duckduckgo-help-edits.csv"),
}
"""The three real help centres' logs shipped with the package, by the help centre's name:
the panel a claim about real edits must hold across."""


class LogError(ValueError):
    """A log that is not in the shared format; the message is one line."""


@dataclass(frozen=True)
class EditLog:
    """A validated log as arrays, sorted by time (stable, so publishes keep their order)."""

    epoch_s: np.ndarray
    """Unix seconds of each row."""
    publish: np.ndarray
    article: np.ndarray
    """Dense article index, 0.. in order of first appearance."""
    kind: np.ndarray
    """Index into generate.KINDS."""
    n_articles: int
    source: str

    def __len__(self) -> int:
        return len(self.epoch_s)

    def window(self, lo_s: float, hi_s: float) -> EditLog:
        """The rows with lo_s <= epoch_s < hi_s; its articles are those it holds, renumbered."""
        keep = (self.epoch_s >= lo_s) & (self.epoch_s < hi_s)
        present, article = np.unique(self.article[keep], return_inverse=True)
        return EditLog(
            self.epoch_s[keep],
            self.publish[keep],
            article.astype(np.int64),
            self.kind[keep],
            len(present),
            self.source,
        )

    def saves(self, origin_s: float) -> tuple[Saves, float]:
        """The rows as Saves from ``origin_s``, ranked by body edits; and origin's week offset."""
        counts = np.bincount(self.article[self.kind == 0], minlength=self.n_articles)
        order = np.argsort(-counts, kind="stable")
        rank = np.empty(self.n_articles, dtype=np.int64)
        rank[order] = np.arange(self.n_articles)
        _, publish = np.unique(self.publish, return_inverse=True)
        saves = Saves(
            self.epoch_s - origin_s, rank[self.article], self.kind.astype(np.int8), publish
        )
        return saves, week_offset(origin_s)


IMPORT_SHARE, IMPORT_MIN = 0.2, 10
"""A publish that adds at least this share of the log's articles (and this many) is an
initial import, not editing: a one-off that would set the mix and the profile (the fit
leaves it out of both: ``sim.calibrate.fit``)."""


class Import(NamedTuple):
    """An initial import: its publish, instant (Unix seconds), articles added and saves
    (rows of the publish, of any kind)."""

    publish: int
    epoch_s: float
    added: int
    saves: int


def initial_imports(log: EditLog) -> list[Import]:
    """Each initial import in the log, in time order."""
    ids, first, inverse = np.unique(log.publish, return_index=True, return_inverse=True)
    adds = np.bincount(inverse, weights=log.kind == CHANGES["add"], minlength=len(ids))
    rows = np.bincount(inverse, minlength=len(ids))
    hit = np.flatnonzero((adds >= IMPORT_SHARE * log.n_articles) & (adds >= IMPORT_MIN))
    return [
        Import(int(ids[i]), float(log.epoch_s[first[i]]), int(adds[i]), int(rows[i])) for i in hit
    ]


def week_offset(epoch_s: float) -> float:
    """Seconds since the Monday 00:00 UTC before ``epoch_s`` (1970-01-01 was a Thursday)."""
    return float((epoch_s + 3 * DAY_S) % WEEK_S)


def read_log(path: str | Path) -> EditLog:
    return parse_log(log_bytes(path), str(path))


def log_bytes(path: str | Path) -> bytes:
    """The log file's bytes, decompressed when it is gzip (by its magic number, whatever
    its name): a long log is kept as .csv.gz, as the atlas's are (sim/atlas/logs/)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise LogError(f"{path}: cannot read it ({e.strerror})") from None
    if raw[:2] != b"\x1f\x8b":
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:
        raise LogError(f"{path}: a gzip file that cannot be decompressed ({e})") from None


def parse_log(raw: bytes, name: str) -> EditLog:
    """Validate every row; the first problem raises LogError naming its line."""
    if b"\0" in raw:
        line = raw[: raw.index(b"\0")].count(b"\n") + 1
        raise LogError(f"{name}: line {line}: binary bytes (NUL); not a CSV text file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise LogError(f"{name}: line {line}: bytes that are not UTF-8 text") from None
    fast = _parse_fast(text, name)
    if fast is not None:
        return fast
    rows = csv.reader(io.StringIO(text, newline=""))
    header = next(rows, None)
    if not header:
        raise LogError(f"{name}: line 1: empty file; expected the header {','.join(COLUMNS)}")
    return _parse_rows([h.strip() for h in header], rows, name)


def from_rows(rows: Sequence[Sequence[object]], name: str) -> EditLog:
    """The log of rows in COLUMNS' order, as `parse_log` reads them from their CSV, without
    the file: `import` measures the log it has just written from the rows it holds. Rows as
    an import writes them (times in UTC with a Z, whole numbers, known changes) are read in
    one pass with numpy; any other goes the careful way, which names the line at fault."""
    fast = _values_fast(rows, name)
    if fast is not None:
        return fast
    return _parse_rows(list(COLUMNS), ([str(v) for v in row] for row in rows), name)


def _values_fast(rows: Sequence[Sequence[object]], name: str) -> EditLog | None:
    if not rows or any(len(r) != len(COLUMNS) for r in rows):
        return None
    columns = zip(*rows, strict=True)
    when, publish, author, article, change, added, removed = (list(c) for c in columns)
    distinct = {t: i for i, t in enumerate(dict.fromkeys(when))}
    if not all(isinstance(t, str) and _UTC_Z_ONLY.fullmatch(t) for t in distinct):
        return None
    if not all(isinstance(v, int) and v >= 0 for v in (*publish, *added, *removed)):
        return None
    if not all(isinstance(v, str) and v and v == v.strip() for v in (*author, *article)):
        return None
    if not set(change) <= set(CHANGES):
        return None
    try:
        seconds = np.array([t[:-1] for t in distinct], dtype="datetime64[s]")
    except ValueError:
        return None
    epoch = seconds.astype(np.int64).astype(float)[[distinct[t] for t in when]]
    pub = np.asarray(publish, dtype=np.int64)
    step = np.diff(pub)
    if (step < 0).any() or (np.diff(epoch)[step == 0] != 0).any():
        return None
    ids: dict[object, int] = {}
    art = np.asarray([ids.setdefault(a, len(ids)) for a in article], dtype=np.int64)
    kinds = np.asarray([CHANGES[str(c)] for c in change], dtype=np.int8)
    order = np.argsort(epoch, kind="stable")
    return EditLog(epoch[order], pub[order], art[order], kinds[order], len(ids), name)


def _parse_rows(header: list[str], rows: Iterable[list[str]], name: str) -> EditLog:
    """The row-by-row parse under `header` (stripped): every row checked, the first problem
    raising LogError with its line."""
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise LogError(
            f"{name}: line 1: header lacks column(s) {', '.join(missing)}; "
            f"expected {','.join(COLUMNS)}"
        )
    at = {c: header.index(c) for c in COLUMNS}
    epoch, publish, article, kind = [], [], [], []
    ids: dict[str, int] = {}
    parsed: dict[str, float] = {}  # the rows of a publish share its time: parse it once
    last_publish, last_time = None, None
    for line, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise LogError(f"{name}: line {line}: {len(row)} fields; the header has {len(header)}")
        get = {c: row[i].strip() for c, i in at.items()}
        t = parsed.get(get["time"])
        if t is None:
            t = parsed[get["time"]] = _time(get["time"], name, line)
        p = _int(get["publish"], "publish", name, line)
        for col in ("lines_added", "lines_removed"):
            _int(get[col], col, name, line)
        if get["change"] not in CHANGES:
            raise LogError(
                f"{name}: line {line}: change {get['change']!r} is not one of {', '.join(CHANGES)}"
            )
        for col in ("author", "article"):
            if not get[col]:
                raise LogError(f"{name}: line {line}: empty {col}")
        if last_publish is not None and p < last_publish:
            raise LogError(
                f"{name}: line {line}: publish {p} after publish {last_publish}; "
                "publishes must not decrease"
            )
        if p == last_publish and t != last_time:
            raise LogError(
                f"{name}: line {line}: publish {p} at {get['time']} but its earlier rows "
                "at another time; a publish is one instant"
            )
        last_publish, last_time = p, t
        epoch.append(t)
        publish.append(p)
        article.append(ids.setdefault(get["article"], len(ids)))
        kind.append(CHANGES[get["change"]])
    if not epoch:
        raise LogError(f"{name}: line 2: no rows after the header")
    epoch_a = np.asarray(epoch, dtype=float)
    order = np.argsort(epoch_a, kind="stable")
    return EditLog(
        epoch_a[order],
        np.asarray(publish, dtype=np.int64)[order],
        np.asarray(article, dtype=np.int64)[order],
        np.asarray(kind, dtype=np.int8)[order],
        len(ids),
        name,
    )


_YEAR_1_S, _YEAR_10000_S = -62_135_596_800, 253_402_300_800
"""0001-01-01 and 10000-01-01 00:00 UTC in Unix seconds."""
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
"""The times the fast path parses, whole seconds with a zone (others go the careful way)."""


def _parse_fast(text: str, name: str) -> EditLog | None:
    """A well-formed log in one vectorised pass (pandas' C parser, a strict time format,
    each distinct id stripped and checked once), the same EditLog as the row-by-row parse;
    None at the first doubt, and the row-by-row parse then names the line and the problem."""
    import pandas as pd

    numbers = {"publish": np.int64, "lines_added": np.int64, "lines_removed": np.int64}
    try:
        df = pd.read_csv(io.StringIO(text), dtype={c: str for c in COLUMNS} | numbers,
                         keep_default_na=False, skip_blank_lines=True, engine="c")  # fmt: skip
        names = list(df.columns)
        if names != [str(c).strip() for c in names] or set(COLUMNS) - set(names) or not len(df):
            return None
    except (
        pd.errors.ParserError,
        pd.errors.EmptyDataError,
        ValueError,
        KeyError,
        TypeError,
        OverflowError,
    ):
        return None
    if len(set(df.columns)) != len(df.columns) or df.isna().to_numpy().any():
        return None  # duplicate columns, or a row with fewer fields than the header
    if any(df[c].dtype != np.int64 or (df[c] < 0).any() for c in numbers):
        return None
    ids = {}
    for col in ("author", "article", "change"):  # distinct texts, stripped, and each row's
        raw_codes, raw = pd.factorize(df[col], sort=False)
        again, distinct = pd.factorize(pd.Series(raw, dtype=object).str.strip(), sort=False)
        if "" in set(distinct):
            return None
        ids[col] = (again[raw_codes], distinct)
    if not set(ids["change"][1]) <= set(CHANGES):
        return None
    epoch = _epoch_s(df["time"])
    if epoch is None:
        return None
    if (epoch < _YEAR_1_S).any() or (epoch >= _YEAR_10000_S).any():
        return None  # outside what a UTC datetime holds: the careful way says so
    publish = df["publish"].to_numpy()
    step = np.diff(publish)
    if (step < 0).any() or (np.diff(epoch)[step == 0] != 0).any():
        return None
    kinds = np.array([CHANGES[v] for v in ids["change"][1]], dtype=np.int8)[ids["change"][0]]
    article = ids["article"][0].astype(np.int64)
    order = np.argsort(epoch, kind="stable")
    return EditLog(
        epoch[order], publish[order], article[order], kinds[order], len(ids["article"][1]), name
    )


_UTC_Z = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"
"""A time in UTC with a Z, which numpy's whole seconds read at any year of four digits."""
_UTC_Z_ONLY = re.compile(_UTC_Z)


def _epoch_s(times: pd.Series) -> np.ndarray | None:
    """Unix seconds of each time (the strict format), or None at the first doubt. pandas'
    nanosecond times end in 2262; a log reaching past it (a history repeated in time) is
    read, if every time is in UTC with a Z, as numpy's seconds, each distinct text once."""
    import pandas as pd

    try:
        when = pd.to_datetime(times, format=_TIME_FORMAT, utc=True)
        since = (when - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)
        return since.to_numpy(dtype=np.int64).astype(float)
    except pd.errors.OutOfBoundsDatetime:
        pass
    except (ValueError, OverflowError, TypeError):
        return None
    codes, distinct = pd.factorize(times, sort=False)
    if not pd.Series(distinct, dtype=object).str.fullmatch(_UTC_Z).all():
        return None
    try:
        seconds = np.array([t[:-1] for t in distinct], dtype="datetime64[s]")
    except ValueError:
        return None
    return seconds.astype(np.int64).astype(float)[codes]


def _time(text: str, name: str, line: int) -> float:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise LogError(
            f"{name}: line {line}: time {text!r} is not UTC ISO 8601 like 2020-08-05T23:32:32Z"
        )
    try:
        return when.astimezone(UTC).timestamp()
    except OverflowError:  # year 1 with a positive offset, year 9999 with a negative one
        raise LogError(
            f"{name}: line {line}: time {text!r} is in UTC outside the years 0001 to 9999"
        ) from None


def _int(text: str, column: str, name: str, line: int) -> int:
    if not text.isdigit():
        raise LogError(f"{name}: line {line}: {column} {text!r} is not a whole number of 0 or more")
    return int(text)


def write_atomic(path: str | Path, text: str) -> None:
    """Write text to path through a temporary file in the same folder: all or nothing, with
    the mode a new file gets under the umask (mkstemp's own is 0600)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # by path: os.fchmod is POSIX-only before 3.13
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
