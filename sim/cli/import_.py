"""The ``import`` subcommand: flags, the import in one transaction, and what it says."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sim.calibrate.logs import write_atomic
from sim.cli.common import PROG, a_path
from sim.cli.import_log import log_text, not_ours, sha256
from sim.corpus import KB_ID  # the KB serve serves
from sim.importer import git
from sim.importer.files import Notes, take_back
from sim.importer.paths import Clash, built_whole, check_outputs, default_edit_log
from sim.importer.plan import EditedSince, Plan, from_disk, from_git
from sim.importer.routes import url_problem
from sim.importer.select import Taken
from sim.kb.importing import AgentEditsNotTaken, HistoryDiverged, digest
from sim.kb.rows import StoreError
from sim.kb.store import KBStore
from sim.server.describe import terminal

HELP = """\
Import a folder of Markdown (.md, .markdown, .mdx) articles into a KB file that `serve
--db` serves and `advise --db` studies. Front matter is YAML (---) or Hugo's TOML (+++).
Title: an mkdocs.yml nav's, else its `title`, else the first heading outside code fences.
Not published: `draft: true`, `published: false`, `unlisted: true`, `status: draft`, or no
text. Article id: the path in the folder the file was first imported at (in git: committed
at), without its suffix (a Docusaurus `id` for the name, a Hugo _index.md its folder's).
An id is never changed nor reused, so every id a citation holds reads its article: a file
git records as renamed (or, without git, moved with its text unchanged) keeps its first
id; a read of the file's path now, as an id, reads it too; and a new file at a path whose
id is taken gets it with ~2 (~3, ...) appended, in a line naming the holder. With --base-
url, search and read give beside each id the page's current address as the site's
generator serves it (Docusaurus' slug, id, number prefixes, category indexes and
routeBasePath; MkDocs' use_directory_urls and blog plugin; Hugo's url, slug and _index.md;
Jekyll's permalink: the generator found by its config file in DOCS_DIR or its parent, else
these keys all read); an absolute url or permalink in front matter is the page's address
as written, a valid http(s) URL or none. In a git work tree each first-parent commit of
HEAD is a version (a merged branch is one, its merge, with its diff against the first
parent; --all-commits: every commit reachable from HEAD, each of a merged branch's commits
one and the merges none; updated_at = the article's last commit) and the event log holds
the history in order; the edit log `calibrate` and `advise --edit-log` read is written
beside the KB (NAME.edits.csv; a file already there is replaced only if an import into
this KB wrote it). Importing again appends only the new commits' events, so clients'
cursors stay valid. A file that cannot be taken (malformed front matter, not a regular
file, ...) gets one line saying what was done; a refused import writes nothing, and a new
KB file appears only complete. The articles are served as the KB `kb-support`, each text
with the line endings its file has; an agent's edits go to the KB file only: `python -m
sim export` writes them back out as files (each as imported, only its text replaced), and
once they are committed as written, importing into the same KB takes them back (their
saves stand for the commit, which is not appended again). Importing over a KB edited
otherwise since its last import is refused."""


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    imp = sub.add_parser(
        "import", help="a folder of Markdown articles (and its git history) into a KB file",
        description=HELP,
    )  # fmt: skip
    imp.add_argument("folder", type=a_path, metavar="DOCS_DIR", help="the folder of articles")
    imp.add_argument("--db", type=a_path, required=True, help="KB file to create or update")
    imp.add_argument(
        "--edit-log",
        type=a_path,
        default=None,
        metavar="LOG.csv",
        help="where to write the edit log (default: beside --db, NAME.edits.csv)",
    )
    imp.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out the paths (relative to DOCS_DIR) this glob matches, or whose folder it "
        "matches; ** spans folders; repeatable (e.g. --exclude 'i18n/**' --exclude 'blog/**')",
    )
    imp.add_argument(
        "--all-commits",
        action="store_true",
        help="in git: every commit reachable from HEAD is a version and a publish of the edit"
        " log, not only the first-parent ones (a merged branch's commits each count)",
    )
    imp.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="the site's public address (http:// or https://): each article keeps its page's "
        "URL beside its id (default: the last import's, or none)",
    )
    return imp


def _say(line: str) -> None:
    print(terminal(f"import: {line}"), file=sys.stderr)


def _base_url(value: str | None, parser: argparse.ArgumentParser) -> str | None:
    if value is None:
        return None
    if "@" in value.partition("://")[2].partition("/")[0]:
        parser.error(
            "--base-url: an address with a user name or password (not shown), which every"
            " agent's search and read would carry; give the site's public root"
        )
    why = url_problem(value) or ("it has a ?query or #fragment" if set("?#") & set(value) else "")
    if why:
        parser.error(
            f"--base-url: {value!r} is not a site's root: {why}; give an http:// or https:// "
            "address without ?query or #fragment, e.g. https://docs.example.com/"
        )
    return value.rstrip("/")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    folder, db = args.folder, args.db
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        parser.error(f"DOCS_DIR {folder}: {what}; name the folder that holds the articles")
    if db.is_dir():
        parser.error(f"--db {db}: is a folder; name a file (it is created if missing)")
    if not db.resolve().parent.is_dir():
        parser.error(f"--db {db}: the folder {db.parent} does not exist; create it first")
    log_path = args.edit_log or default_edit_log(db)
    if not log_path.resolve().parent.is_dir():
        parser.error(f"--edit-log {log_path}: the folder {log_path.parent} does not exist")
    for flag, path in (("--db", db), ("--edit-log", log_path)):  # before anything is written
        if not os.access(path.resolve().parent, os.W_OK):
            parser.error(f"{flag} {path}: cannot write in {path.parent}; choose another folder")
    try:
        select = Taken(args.exclude)
        check_outputs([("--db", db), ("--edit-log", log_path)], folder)
    except ValueError as e:  # an empty glob, or a Clash
        parser.error(str(e) if isinstance(e, Clash) else f"--exclude: {e}; give a path glob")
    base_url = _base_url(args.base_url, parser)
    refusal = not_ours(log_path, db)
    if refusal:
        parser.error(refusal)
    notes = Notes()
    with built_whole(db) as draft:
        try:
            plan, store = _planned(folder.resolve(), draft.path, notes, select, args.all_commits)
        except git.GitError as e:
            return _refused(notes, f"{folder}: {e}", db)
        except sqlite3.Error as e:
            return _refused(notes, f"--db {db}: not a KB file SQLite can open ({e})", db)
        except _Refusal as e:
            return _refused(notes, str(e), db)
        except EditedSince as e:
            return _refused(
                notes,
                f"--db {db}: {e} were edited in the KB since its import and their files differ: "
                f"importing would undo the edits. Take them out first ({PROG} export "
                f"OUT_DIR --db {db}), or import into a new file",
                db,
            )
        table = _table_beside(log_path, plan.log_rows) if plan.log_rows else None
        log = log_text(plan.log_rows) if plan.log_rows else None
        try:
            appended = store.import_history(
                KB_ID,
                plan.history,
                plan.rows,
                plan.pages,
                base_url,
                None if log is None else sha256(log),
            )
            head = store.head_sequence(KB_ID)
        except AgentEditsNotTaken as e:
            return _refused(notes, f"--db {db}: {e}. {take_back(db, folder)}", db)
        except HistoryDiverged as e:
            return _refused(notes, f"--db {db}: {e}; import into a new file", db)
        except (StoreError, sqlite3.Error) as e:
            return _refused(notes, f"--db {db}: {e}", db)
        finally:
            store.close()
        draft.keep = True
    for line in notes.lines:
        _say(line)
    if select.partials:
        names = ", ".join(sorted(select.partials)[:5]) + (", …" if len(select.partials) > 5 else "")
        _say(
            f"left out {len(select.partials):,} partials, not articles (a name or folder "
            f"starting with _, as the generators treat them): {names}"
        )
    if select.left_out:
        _say(f"--exclude left out {len(select.left_out):,} article files")
    for glob in select.unmatched():
        _say(
            f"--exclude {glob!r} matched no article file of {folder}: check its spelling (a "
            "glob is matched against paths relative to DOCS_DIR, e.g. 'i18n/**')"
        )
    print(
        terminal(
            f"Imported {folder} into {db}: {plan.present:,} articles in the folder, "
            f"{appended:,} new events (the KB's event log now ends at {head:,})."
        )
    )
    if table is not None and log is not None:  # a history gave the edit log its rows
        try:
            write_atomic(log_path.resolve(), log)
        except OSError as e:
            _say(
                f"--edit-log {log_path}: cannot write it ({e.strerror}); the KB is imported, "
                "and importing again (nothing new is appended) writes the log"
            )
            return 1
        print(
            terminal(
                f"Edit log: {log_path} ({len(plan.log_rows):,} rows; commits counted: "
                f"{git.COUNTED[args.all_commits]})."
            )
        )
        from sim.studymap import dominant  # loaded by the table's thread already

        text, measured = table.result()
        print(text)
        if measured:
            from sim.atlas import place

            print(place.line(measured))
        one = dominant.find(plan.log_rows, str(log_path))
        if one is not None:
            print(dominant.render(one, measured))
    print(terminal(f"Serve it: {PROG} serve --db {db}   Study it: {PROG} advise --db {db}"))
    return 0


def _table_beside(path: Path, rows: list) -> Future[tuple[str, list[dict[str, Any]]]]:
    """The stale-by-age table of the plan's edit log, made in a thread while the main one
    writes the KB (SQLite's work leaves Python's lock free; before it, the history is read
    in Python beside git): loading the study's closed forms and the table's arithmetic
    (0.1 s at 1,000 articles) then add little to an import's wall time.
    The thread is not a daemon, so an import refused meanwhile still exits after it, never
    in the middle of a module's load; the table says itself why a log cannot be measured."""
    from sim.studymap import yourlog

    pool = ThreadPoolExecutor(1, thread_name_prefix="stale-by-age-table")
    table = pool.submit(yourlog.lines_for, path, rows)
    pool.shutdown(wait=False)  # its one task still runs
    return table


class _Refusal(Exception):
    pass


def _planned(
    root: Path, db: Path, notes: Notes, select: Taken, all_commits: bool
) -> tuple[Plan, KBStore]:
    """The plan, and the store it goes into (`db`: the KB, or the new one's temporary file)."""
    with_git = git.has_history(root)
    store = _opened(db)
    try:
        if with_git:
            plan = from_git(root, notes, select, all_commits)
        else:
            notes.add(str(root), "not in a git work tree with commits: versions are file times")
            plan = from_disk(root, notes, *_held(store), time.time_ns() // 1000, select)
        if not plan.present:
            left = f" ({len(select.left_out):,} left out by --exclude)" if select.left_out else ""
            raise _Refusal(f"{root}: no Markdown article (.md, .markdown, .mdx) in it{left}")
    except BaseException:
        store.close()
        raise
    return plan, store


def _opened(db: Path) -> KBStore:
    try:
        return KBStore(lambda: time.time_ns() // 1000, path=str(db))
    except StoreError as e:
        raise _Refusal(f"--db {e}") from None


def _held(store: KBStore) -> tuple[list, dict, set[str]]:
    """The KB's events and rows as an import without git compares them, and the articles
    edited in the KB since the import that wrote them."""
    if not store.kb_exists(KB_ID):
        return [], {}, set()
    held = [(e.type, e.article_id, e.updated_us) for e in store.all_events(KB_ID)]
    pages = store.imported_pages(KB_ID)
    rows, edited = {}, set()
    for aid in store.article_ids(KB_ID):
        a = store.article_state(KB_ID, aid)
        rows[aid] = (aid, a.title, a.content, a.published, a.updated_us)
        if aid in pages and pages[aid].digest != digest(a.title, a.content):
            edited.add(aid)
    return held, rows, edited


def _refused(notes: Notes, why: str, db: Path) -> int:
    for line in notes.lines:
        _say(line)
    _say(f"{why.rstrip('.')}. Import refused: {db} is as it was.")
    return 1
