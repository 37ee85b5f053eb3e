"""A user's own edit log on the map: the same measurement § 7 makes of the shared logs (its
stale share by citation age from its own rows, with window intervals) as text, rows and a
figure that places the log beside the closed form's lines. `calibrate`, `advise` and
`import` print it for the log they were given or wrote."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.calibrate.logs import EditLog, LogError, from_rows, read_log

if TYPE_CHECKING:  # matplotlib and the map's tables load only for a figure (import: 1 s less)
    from matplotlib.figure import Figure

    from sim.params import Params


def measured(log: EditLog, name: str) -> Any:
    """The log's rows as the map's ``map_logs`` holds the shared logs'."""
    from sim.studymap import tables

    return tables.logs_table({name: log})


def figure(log: EditLog, name: str, base: Params | None = None) -> Figure:
    """The map's stale figure with this log placed on it, its lines drawn from a decade
    below the log's intensity to a decade above the write-up's day."""
    from sim.params import Params
    from sim.studymap import figures, logs, tables

    base = base or Params()
    rate = tables.per_article_day(base, base.n_saves)
    rows = measured(log, name)
    axis = tables.rate_axis([logs.intensity(log)], max(rate, logs.intensity(log)))
    return figures.stale_figure(tables.stale_map(axis), rows, rate, f"{name}'s own rows")


def save(fig: Figure, path: Path) -> None:
    """The figure as `make reproduce` saves the map's (``sim.report.figures.save``), written
    whole: a temporary file beside it, then renamed, so a failed write leaves what was there."""
    import os
    import tempfile

    from sim.report.figures import save as save_png

    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".png", dir=path.resolve().parent)
    os.close(fd)
    try:
        save_png(fig, Path(name))
        os.replace(name, path)
    finally:
        Path(name).unlink(missing_ok=True)


def lines_for(
    path: Path, log_rows: Sequence[Sequence[object]] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """The measurement of the edit log at `path` as `advise` and `import` print it (and its
    rows, for JSON), or one line saying why there is none: a log they cannot read is
    reported, not raised, as the advice or the import stands without it. `log_rows`: the
    log's rows already in hand (an import's), measured without reading the file back."""
    from sim.studymap import logs

    try:
        log = read_log(path) if log_rows is None else from_rows(log_rows, str(path))
    except (LogError, ValueError, OSError) as e:
        return f"  Stale citations by age: {path} cannot be measured ({e}).", []
    rows = logs.measured_rows(log)
    return logs.render(log, rows), rows
