"""``python -m sim export --db kb.sqlite OUT_DIR``: an agent's edits back out as files.

An edit through ``serve`` goes to the KB file only, and an import over that file is refused
until the repository carries it. Export writes each article whose title or text differs
from what its last import wrote (``imported_pages``' digest) as a Markdown file at its path
in the docs folder, under its front matter as written, into a new folder: the docs team
reviews it (``diff -r OUT_DIR docs``), copies it into its repository and commits it as
written, and imports into the same KB file: the agent's saves then stand for that commit
(``sim/kb/adopting.py``), nothing is appended twice and clients' cursors stay valid. Each
file is the one imported with only the text replaced (``sim/importer/layout.py``): its front
matter, the line breaks around the text and the text's own line endings byte for byte.
Nothing else is written, and an existing file is never overwritten; a stored path no file
can have (a NUL byte) is refused before anything is written. Every path and value printed
is escaped (``describe.terminal``): a KB file may hold any byte.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path, PurePosixPath

from sim.cli.common import a_path
from sim.corpus import KB_ID
from sim.importer.frontmatter import Malformed
from sim.importer.layout import LINE_BREAKS, file_text
from sim.importer.markdown import parse
from sim.kb.importing import digest
from sim.kb.rows import StoreError
from sim.kb.store import KBStore
from sim.server.describe import terminal

HELP = """\
Write the articles of an imported KB whose title or text changed since its last import (an
agent's edits through `serve`) as Markdown files into OUT_DIR, a new folder (or an empty
one): each at its path in the docs folder, under the front matter its file had, so that
`diff -r OUT_DIR DOCS_DIR` shows the edits to review and copying OUT_DIR over DOCS_DIR takes
them in; committed as written, importing into the same --db then takes them back without
appending them twice. Nothing is written when no article changed; the KB file is only read."""


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    exp = sub.add_parser(
        "export", help="an imported KB's edited articles back out as Markdown files",
        description=HELP,
    )  # fmt: skip
    exp.add_argument("out", type=a_path, metavar="OUT_DIR", help="a new folder to write into")
    exp.add_argument("--db", type=a_path, required=True, help="a KB file `import` wrote")
    return exp


def _say(line: str) -> None:
    print(f"export: {line}", file=sys.stderr)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    db, out = args.db, args.out
    shown_db, shown_out = terminal(db), terminal(out)
    if not db.is_file() or db.stat().st_size == 0:
        what = "is empty" if db.is_file() else "is not a file"
        parser.error(f"--db {shown_db}: {what}; name a KB file `python -m sim import` wrote")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        parser.error(f"OUT_DIR {shown_out}: {_not_a_new_folder(out, db)}, nothing was written")
    if not out.parent.is_dir():
        parser.error(
            f"OUT_DIR {shown_out}: the folder {terminal(out.parent)} does not exist; create it"
            " first"
        )
    try:
        changed = _changed(db)
    except (StoreError, sqlite3.Error, ValueError) as e:
        _say(f"--db {shown_db}: {terminal(e)}. Nothing was written.")
        return 1
    if not changed:
        print(f"No article of {shown_db} changed since its import: nothing written.")
        return 0
    written = []
    for path, text, note in changed:
        target = out.joinpath(*PurePosixPath(path).parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "x", encoding="utf-8", newline="") as f:  # never overwrites
                f.write(text)  # its line breaks as they are
        except FileExistsError:
            _say(f"{terminal(path)}: another changed article was written at this path: not written")
            continue
        except OSError as e:
            _say(
                f"OUT_DIR {shown_out}: cannot write {terminal(path)} ({terminal(e.strerror)}); "
                "the files above are written"
            )
            return 1
        written.append(path)
        if note:
            _say(f"{terminal(path)}: {note}")
    print(
        f"Exported {len(written):,} articles of {shown_db} changed since its import into "
        f"{shown_out}:"
    )
    for path in written:
        print(f"  {terminal(path)}")
    return 0


def _not_a_new_folder(out: Path, db: Path) -> str:
    """Why an existing OUT_DIR cannot be written into, and what to name instead."""
    if out.is_dir():
        return "exists and is not an empty folder; name a new folder (export creates it)"
    what = "a file, not a folder"
    try:
        if out.samefile(db):
            what = "the KB file --db names, not a folder"
    except OSError:
        pass
    return f"{what}; name a new folder to write the edited articles into (export creates it)"


def _changed(db: Path) -> list[tuple[str, str, str]]:
    """(path, file text, a note or "") of each article changed since its import."""
    probe = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        is_kb = probe.execute("SELECT 1 FROM sqlite_master WHERE name = 'kbs'").fetchone()
    except sqlite3.DatabaseError as e:
        raise ValueError(f"not a KB file ({e}); name one `python -m sim import` wrote") from None
    finally:
        probe.close()
    if not is_kb:
        raise ValueError("not a KB file; name one `python -m sim import` wrote")
    store = KBStore(lambda: 0, path=str(db))
    try:
        pages = store.imported_pages(KB_ID) if store.kb_exists(KB_ID) else {}
        if not pages:
            raise ValueError(
                "no imported pages in it (not written by `import`, or by one before `export` "
                "existed: import the folder again into a new file)"
            )
        found = []
        for aid, page in pages.items():
            article = store.article_state(KB_ID, aid)
            if digest(article.title, article.content) == page.digest:
                continue
            path = _safe(page.path, aid)
            text = file_text(page.before, article.content, page.after)
            found.append((path, text, _note(path, text, article.title, article.content)))
    finally:
        store.close()
    return found


def _safe(path: str, aid: str) -> str:
    """The path to write at: the page's own, unless it would leave the folder; ValueError
    naming the article when no file can have it (a NUL byte, which a KB file may hold)."""
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        path = f"{aid.replace('..', '_').lstrip('/')}.md"
    if "\0" in path:
        raise ValueError(
            f"article {terminal(repr(aid))}: its stored path {terminal(repr(path))} holds a NUL "
            "byte, which no file name can; the KB file was changed outside import: import the "
            "docs folder again into a new file"
        )
    return path


def _note(path: str, text: str, title: str, content: str) -> str:
    """What a reviewer must fix by hand ("" when the file imports back as the article)."""
    try:
        back = parse(path, text)
    except Malformed:
        back = None
    if back is None or back.title != title:
        return f"its title is now {title!r}, which the file does not say: set it by hand"
    if back.content != content.strip(LINE_BREAKS):
        return "its new text changes how the file reads (front matter?): check it by hand"
    return ""
