"""The flags of `python -m sim calibrate`, apart from the fit so that building the command
line does not import it (scipy, pandas): only `calibrate` itself runs ``cli``."""

from __future__ import annotations

import argparse

from sim.calibrate.sessions import DEFAULT_SESSION_GAP_S
from sim.cli.common import a_path, bounded

FORMAT = """\
The edit log is a CSV with a header and one row per article changed by a publish
(a commit, or a CMS save); the rows of one publish share its time:

  time,publish,author,article,change,lines_added,lines_removed
  2020-08-05T23:32:32Z,0,u001,a0001,add,42,0

  time           when the publish landed, UTC ISO 8601 as YYYY-MM-DDTHH:MM:SSZ
                 (ASCII digits; no offset, no fraction of a second), from
                 1970-01-01T00:00:00Z to 2100-12-31T23:59:59Z; a later publish
                 never earlier than the one before it
  publish        integer that never decreases (0 = oldest); a publish's rows share it
  author         any id of who published (pseudonymous is fine)
  article        any id of the article; keep it across renames
  change         add, modify, rename (title changed) or delete
  lines_added    size of the change in lines (whole numbers of 0 or more)
  lines_removed

Bundled log (the English Obsidian Help articles, 2020-2026; two more help centres
next to it): sim/calibrate/logs/help-centre-edits.csv. From a git repository of
markdown articles, --git REPO --path DIR/ extracts the log itself (--log-out
keeps it; a commit stamped before the one before it is taken at that one's
time). Which commits count: the first-parent history of HEAD, a merged branch
one publish (its merge, with its diff against the first parent), as the site
published it; --all-commits counts every commit reachable from HEAD instead, each
of a merged branch's commits one publish and the merges none. A file holding more
than 20 % of the log's saves (release notes, a changelog) is named, with its share
and the stale shares without it. The shape file it writes is what --edit-shape (advise) and
edit_shape= (sweep, with save_process=calibrated) read.

An initial import (a publish adding at least 20 % of the log's articles, and 10
or more: the help centre being filled, not edited) is left out of the fitted mix
and weekly profile, and the output says which publish, when, and how many saves.
"""


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    cal = sub.add_parser(
        "calibrate",
        help="fit the edit process to a real edit log (CSV, or --git REPO --path DIR/)",
        description="Fit the simulated edit process (popularity, sessions, bulk publishes,"
        " mix, weekly profile) to a real edit log, print each value with its bootstrap"
        " interval, and write the fitted shape as JSON.",
        epilog=FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cal.add_argument("log", nargs="?", type=a_path, help="an edit log CSV in the shared format")
    cal.add_argument("--git", type=a_path, metavar="REPO", help="extract the log from this repo")
    cal.add_argument("--path", metavar="DIR/", help="with --git: the folder of markdown articles")
    cal.add_argument(
        "--out",
        type=a_path,
        help="shape file to write (default: LOG-NAME.shape.json in the current folder)",
    )
    cal.add_argument(
        "--force", action="store_true", help="replace an existing --out (or --map-figure) file"
    )
    cal.add_argument("--log-out", type=a_path, help="with --git: also write the extracted CSV")
    cal.add_argument(
        "--all-commits",
        action="store_true",
        help="with --git: count every commit reachable from HEAD, not the first-parent ones",
    )
    cal.add_argument(
        "--map-figure",
        type=a_path,
        metavar="PNG",
        help="also draw the log on the map's stale-share figure (REPORT.md § 7), into PNG, and"
        " among the atlas's sites (the first page's figure), into PNG's NAME-atlas.png",
    )
    cal.add_argument("--json", action="store_true", help="print the fit as JSON, not text")
    cal.add_argument(
        "--boot",
        type=bounded(int, 2, 100_000),
        default=200,
        help="bootstrap resamples (default 200)",
    )
    cal.add_argument(
        "--seed",
        type=bounded(int, 0, 2**63 - 1),
        default=1,
        help="seed of the bootstrap (default 1)",
    )
    cal.add_argument(
        "--session-gap-h",
        type=float,
        default=DEFAULT_SESSION_GAP_S / 3600,
        help="a re-save within this many hours continues a session (default 24)",
    )
    return cal
