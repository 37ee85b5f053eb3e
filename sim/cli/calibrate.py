"""`python -m sim calibrate`: fit an edit log, print what was fitted, write the shape file.

Nothing is written unless the whole fit succeeds; the shape file (and an extracted log) are
written atomically. A bad log is one line on stderr naming the line and the problem, exit 2.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from sim.atlas import place as atlas_place
from sim.calibrate.fit import GOF_LEVEL, Fit, fit
from sim.calibrate.gitlog import git_log
from sim.calibrate.logs import (
    IMPORT_MIN,
    IMPORT_SHARE,
    EditLog,
    LogError,
    log_bytes,
    parse_log,
    read_log,
    write_atomic,
)
from sim.calibrate.overlog import runs_for
from sim.calibrate.popfit import Gof
from sim.calibrate.shape import EditShape
from sim.calibrate.validate import BurstRuns, burst_runs, burstiness_table, gof_table
from sim.cli.common import PROG, output_file
from sim.importer.git import COUNTED
from sim.studymap import dominant
from sim.studymap import logs as stale_by_age

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BURST_REPS = 20
"""Runs of each process over the log's span for their B and M ranges, at most..."""
BURST_SAVES = 4_000_000
"""...and at most about this many generated saves a process (at least 2 runs): a long log's
runs are long, and their B and M vary less. On the shared log repeated to 400,000 rows (end
to end, before it was squeezed to end by 2100; 10 runs), the calibrated process's B has a
standard deviation of 0.0014 from run to run, so the mean of 10 runs is within about 0.001
of that of 20; a log of up to 200,000 rows keeps 20."""
SMALL_PUBLISHES, SMALL_ARTICLES = 100, 20
"""Below either (publishes, body-edited articles) the fit comes with a warning."""
PROGRESS_ROWS = 200_000
"""From this many rows on, each stage is reported on stderr as it starts."""


def default_out(args: argparse.Namespace) -> Path:
    """LOG-NAME.shape.json in the current folder: says what it holds and whose."""
    if args.log is not None:
        return Path(f"{args.log.stem}.shape.json")
    return Path(f"{args.git.resolve().name}.shape.json")


def atlas_figure_path(map_figure: Path) -> Path:
    """The atlas's figure with the log among its sites: beside the map's, NAME-atlas.png."""
    return map_figure.with_name(f"{map_figure.stem}-atlas{map_figure.suffix}")


def atlas_figure(name: str, stale: list[dict[str, Any]]) -> Figure:
    """The atlas's sites (the packaged table) with this log's stale share by age over them."""
    from sim.atlas import population
    from sim.atlas.table import PACKAGED
    from sim.report import atlas

    sites = pd.read_csv(PACKAGED)
    mine = pd.DataFrame(stale)
    mine = mine[(mine["draw"] == atlas.HEADLINE_DRAW) & (mine["age_s"] >= 60)]
    you = (name, mine.set_index("age_s")["measured"].sort_index())
    return atlas.figure(sites, population.population(sites), you=you)


def burst_reps(rows: int) -> int:
    return runs_for(rows, BURST_REPS, BURST_SAVES)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if (args.log is None) == (args.git is None):
        parser.error("give an edit log CSV, or --git REPO --path DIR/ (one of the two)")
    if (args.git is None) != (args.path is None):
        parser.error("--git and --path go together: --git REPO --path DIR/")
    if (args.log_out or args.all_commits) and args.git is None:
        flag = "--log-out" if args.log_out else "--all-commits"
        parser.error(f"{flag} goes with --git REPO --path DIR/ (a log read from git); add them")
    if not 0 < args.session_gap_h <= 24 * 365:
        parser.error(
            f"--session-gap-h: expected hours above 0 up to a year; got {args.session_gap_h}"
        )
    out = args.out if args.out is not None else default_out(args)
    if args.map_figure is not None and args.map_figure.suffix.lower() != ".png":
        parser.error(f"--map-figure {args.map_figure}: expected a .png file name")
    taken = {"the edit log": args.log} if args.log is not None else {}
    atlas_png = atlas_figure_path(args.map_figure) if args.map_figure is not None else None
    for flag, path in (
        ("--out", out),
        ("--log-out", args.log_out),
        ("--map-figure", args.map_figure),
        ("--map-figure (its atlas figure)", atlas_png),
    ):
        if path is None:
            continue
        other = next((k for k, p in taken.items() if p.resolve() == path.resolve()), None)
        if other is not None:
            parser.error(f"{flag} {path}: the same file as {other}; name another file")
        taken[flag] = path
        output_file(parser, flag, path, args.force)
    started = time.perf_counter()

    def stage(text: str) -> None:
        print(f"calibrate: {time.perf_counter() - started:6.1f} s  {text}", file=sys.stderr)

    try:
        if args.git is not None:
            text, paths = git_log(args.git, args.path, args.all_commits)
            log = parse_log(text.encode(), f"{args.git}:{args.path}")
        else:
            text, paths, log = None, {}, read_log(args.log)
        long = len(log) >= PROGRESS_ROWS
        if long:
            stage(f"read {len(log):,} rows; fitting")
        reps = burst_reps(len(log))
        runs: list[Future[BurstRuns]] = []

        def start_runs(shape: EditShape) -> None:
            """The burst table's runs need the shape alone: they go beside the bootstrap
            (numpy's draws release the GIL; the bootstrap is mostly Python)."""
            if long:
                stage(f"burst coefficients of {reps} runs of each process, beside the bootstrap")
            runs.append(pool.submit(burst_runs, shape, log, reps, args.seed))

        with ThreadPoolExecutor(1) as pool:
            f = fit(log, session_gap_s=args.session_gap_h * 3600, boot=args.boot,
                    gof_sims=args.boot, seed=args.seed,
                    progress=_every_tenth(stage, args.boot) if long else None,
                    on_shape=start_runs)  # fmt: skip
            stale = stale_by_age.measured_rows(log)  # while the runs finish
            rows = list(csv.reader(io.StringIO(text or log_bytes(args.log).decode("utf-8-sig"))))
            one = dominant.find(rows[1:], log.source, paths)
            bursts = burstiness_table(log, f, reps, args.seed, runs=runs[0].result())
    except (LogError, ValueError) as e:
        parser.exit(2, f"{parser.prog}: error: {e}\n")
    warnings = [w for w in (small_log_warning(log, f), fit_warning(f)) if w]
    for w in warnings:
        print(f"{parser.prog}: warning: {w}", file=sys.stderr)
    warning = "; ".join(warnings)
    replaced = out.exists()
    try:
        if text is not None and args.log_out:
            write_atomic(args.log_out, text)
        write_atomic(out, f.shape.to_json() + "\n")
    except OSError as e:
        parser.exit(2, f"{parser.prog}: error: --out {out}: cannot write it ({e.strerror})\n")
    if args.map_figure is not None:
        from sim.studymap import yourlog

        try:
            name = Path(log.source).stem
            yourlog.save(yourlog.figure(log, name), args.map_figure)
            assert atlas_png is not None
            yourlog.save(atlas_figure(name, stale), atlas_png)
        except OSError as e:
            parser.exit(
                2,
                f"{parser.prog}: error: --map-figure {args.map_figure}: cannot write it "
                f"({e.strerror}); the shape is written\n",
            )
    if args.json:
        by_age = pd.DataFrame(stale).to_dict(orient="records")
        print(
            json.dumps(
                as_json(f, bursts, out)
                | {"stale_by_age": by_age, "warning": warning}
                | {"atlas_percentiles": atlas_place.placement(stale)}
                | {"dominant_file": None if one is None else one.as_json()}
                | {"commits": COUNTED[args.all_commits] if args.git else None},
                indent=1,
            )
        )
    else:
        print(render(log, f, bursts, args.boot, args.seed, reps))
        print(stale_by_age.render(log, stale))
        print(atlas_place.line(stale))
        if one is not None:
            print(dominant.render(one, stale))
        if args.git is not None:
            print(f"  Commits counted: {COUNTED[args.all_commits]}.")
        print(
            f"{'Replaced' if replaced else 'Wrote'} the shape in {out}"
            + (f" and the log in {args.log_out}" if args.log_out else "")
            + (
                f", the map's figure in {args.map_figure} and the atlas's in {atlas_png}"
                if args.map_figure
                else ""
            )
            + ". Use it:"
        )
        print(f"  {PROG} advise --edit-shape {out}")
        print(
            f"  {PROG} sweep save_process=calibrated edit_shape={out} n_saves=150,300"
            " --experiments staleness cas"
        )
    if long:
        try:
            import resource  # Unix only
        except ModuleNotFoundError:  # Windows: no peak to say
            stage("done")
        else:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
            stage(f"done; peak memory {peak:,.0f} MB")
    return 0


def _every_tenth(stage: Callable[[str], None], boot: int) -> Callable[[str], None]:
    """Pass on the fit's stages, and a tenth of its bootstrap steps."""
    step = max(1, boot // 10)

    def progress(text: str) -> None:
        head, _, tail = text.rpartition(" ")
        done = tail.split("/")[0]
        if not head.startswith("bootstrap of articles") or int(done) % step == 0:
            stage(text)

    return progress


def _verdict(g: Gof) -> str:
    """The same words for either law's goodness of fit."""
    return f"{'fits badly' if g.p_value < GOF_LEVEL else 'not rejected'} at {100 * GOF_LEVEL:g} %"


def fit_warning(f: Fit) -> str:
    """A sentence when the popularity law the shape uses fits badly, whichever law it is."""
    used = next(g for g in f.gof if g.family == f.shape.popularity_family)
    if not used.p_value < GOF_LEVEL:
        return ""
    name = "Zipf–Mandelbrot" if used.family == "zipf_mandelbrot" else "Zipf"
    return (
        f"the edit popularity's law the shape uses, {name}, fits badly (KS by simulation,"
        f" p = {used.p_value:.3f} < {GOF_LEVEL:g}): the shape's popularity is the closest"
        " of the two laws, not the log's own; its effect on the answers is a rough guide"
    )


def small_log_warning(log: EditLog, f: Fit) -> str:
    """A sentence when the log is too small for the shape to be more than a rough guide."""
    publishes = len(np.unique(log.publish))
    articles = round(f.shape.active_share * log.n_articles)
    if publishes >= SMALL_PUBLISHES and articles >= SMALL_ARTICLES:
        return ""
    return (
        f"the log holds {publishes} publishes on {articles} body-edited articles (fewer than"
        f" {SMALL_PUBLISHES} or {SMALL_ARTICLES}): the shape is fitted, but its intervals are"
        " wide or missing and it is a rough guide only; a longer log fits it better"
    )


def as_json(f: Fit, bursts: pd.DataFrame, out: Path) -> dict:
    return {
        "shape_file": str(out),
        "shape": json.loads(f.shape.to_json()),
        "fit": f.table.to_dict(orient="records"),
        "goodness_of_fit": gof_table(f).to_dict(orient="records"),
        "burstiness": bursts.to_dict(orient="records"),
        "initial_imports": [
            {
                "publish": imp.publish,
                "time": f"{pd.Timestamp(imp.epoch_s, unit='s'):%Y-%m-%dT%H:%M:%SZ}",
                "articles_added": imp.added,
                "saves_left_out": imp.saves,
            }
            for imp in f.imports
        ],
    }


def render(
    log: EditLog, f: Fit, bursts: pd.DataFrame, boot: int, seed: int, reps: int = BURST_REPS
) -> str:
    est = f.table.set_index("quantity")

    def v(name: str, fmt: str = ".3g", scale: float = 1.0, unit: str = "") -> str:
        e, lo, hi = (est.loc[name, c] * scale for c in ("estimate", "ci_low", "ci_high"))
        if not np.isfinite(e):
            return "n/a"
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return f"{e:{fmt}}{unit} [no interval]"
        return f"{e:{fmt}}{unit} [{lo:{fmt}}, {hi:{fmt}}]"

    def pct(name: str) -> str:
        return v(name, ".1f", 100, " %")

    days = (log.epoch_s[-1] - log.epoch_s[0]) / 86400
    first, last = (pd.Timestamp(t, unit="s").date() for t in (log.epoch_s[0], log.epoch_s[-1]))
    zipf, zm = f.gof
    chosen = "Zipf–Mandelbrot" if f.shape.popularity_family == "zipf_mandelbrot" else "Zipf"
    b = bursts.set_index(["source", "coefficient"])

    def coef(source: str) -> str:
        if not np.isfinite(b.loc[(source, "B"), "estimate"]):
            return "n/a (no article with 10+ re-save gaps)"
        return " / ".join(
            f"{b.loc[(source, c), 'estimate']:.3f} [{b.loc[(source, c), 'ci_low']:.3f}, "
            f"{b.loc[(source, c), 'ci_high']:.3f}]"
            for c in ("B", "M")
        )

    hours = np.asarray(f.shape.hour_weights)
    peak = ", ".join(f"{h:02d}" for h in np.argsort(-hours, kind="stable")[:4])
    gap_h = f.shape.session_gap_s / 3600
    lines = [
        f"Edit log {log.source}: {len(log):,} saves in {len(np.unique(log.publish)):,} publishes"
        f" on {log.n_articles:,} articles, {first} to {last} ({days:,.0f} days).",
        f"Each value with its 95 % bootstrap interval ({boot} resamples of articles, publishes or"
        f" sittings, as the fit table notes; seed {seed}).",
        f"  Volume: {v('saves per day')} saves a day.",
        f"  Edit popularity over the {round(f.shape.active_share * log.n_articles)} body-edited"
        f" articles: Zipf s = {v('zipf s')}; the 10 most edited take"
        f" {pct('top-10 share of body edits')} of body edits.",
        f"    Goodness of fit (KS by simulation): Zipf D = {zipf.ks:.3f}, p = {zipf.p_value:.3f}"
        f" ({_verdict(zipf)}); Zipf–Mandelbrot s = {v('zipf-mandelbrot s')},"
        f" q = {v('zipf-mandelbrot q')}, D = {zm.ks:.3f}, p = {zm.p_value:.3f}"
        f" ({_verdict(zm)}); AIC {zipf.aic:,.0f} vs {zm.aic:,.0f}. Shape uses: {chosen}.",
        f"  Editing sessions (a re-save within {gap_h:g} h continues one):"
        f" {v('saves per session (mean)')} saves per session;"
        f" {pct('sessions with a re-save')} of sessions re-save; the gaps inside have median"
        f" {v('gap median in a session (s)', '.0f', 1, ' s')},"
        f" {pct('gaps in a session within 10 min')} within 10 min.",
        f"  Sittings (session-starting publishes within {f.shape.sitting_gap_s / 3600:g} h of"
        f" the previous one): {v('sitting: publishes (mean)')} publishes per sitting, gaps"
        f" median {v('sitting: gap median (s)', '.0f', 1, ' s')}.",
        "  Burstiness B / memory M of re-save gaps (Goh & Barabási; mean over articles with"
        " 10+ gaps):",
        f"    log {coef('log')}; calibrated model {coef('calibrated')};"
        f" write-up's Poisson {coef('write-up (volume only)')} (model ranges over"
        f" {reps} runs).",
        f"  Bulk publishes: {pct('bulk share of session starts')} of session-starting publishes"
        f" start more than one article, {v('bulk size (mean)')} on average;"
        f" {pct('publishes with >1 article')} of all publishes change >1 article;"
        f" {pct('saves in publishes of >=10')} of saves"
        " come in publishes of 10 or more.",
        f"  Mix: body {pct('mix body')}, title {pct('mix title')}, unpublish"
        f" {pct('mix unpublish')}, new {pct('mix new')}.",
        f"  Profile (UTC): busiest hours {peak}; weekend share of saves"
        f" {100 * sum(f.shape.weekday_weights[5:]):.1f} %.",
    ]
    for imp in f.imports:
        lines.append(
            f"  Initial import left out of the mix and the profile: publish {imp.publish}"
            f" ({pd.Timestamp(imp.epoch_s, unit='s'):%Y-%m-%d %a}) adds {imp.added} articles,"
            f" {100 * imp.added / log.n_articles:.0f} % of the log's (the rule: a publish adding"
            f" at least {100 * IMPORT_SHARE:.0f} % of them and {IMPORT_MIN} or more); its"
            f" {imp.saves} saves are"
            " not in the mix nor its sessions in the profile (they still count in the volume,"
            " the sessions and the bulk sizes)."
        )
    return "\n".join(lines)
