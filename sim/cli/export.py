"""``python -m sim export --db kb.sqlite OUT_DIR``: an agent's edits back out as files.

An edit through ``serve`` goes to the KB file only, and an import over that file is refused
until the repository carries it. Export writes each article whose title or text differs
from what its last import wrote (``imported_pages``' digest) as a Markdown file at its path
in the docs folder, under its front matter as written, into a new folder: the docs team
reviews it (``diff -r OUT_DIR docs``), copies it into its repository and commits it as
written, and imports into the same KB file: the agent's saves then stand for that commit
(``sim/kb/adopting.py``), nothing is appended twice and clients' cursors stay valid. Nothing
else is written, and an existing file is never overwritten.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path, PurePosixPath

from sim.cli.common import a_path
from sim.corpus import KB_ID
from sim.importer.frontmatter import Malformed
from sim.importer.markdown import parse
from sim.kb.importing import digest
from sim.kb.rows import StoreError
from sim.kb.store import KBStore

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
    if not db.is_file() or db.stat().st_size == 0:
        what = "is empty" if db.is_file() else "is not a file"
        parser.error(f"--db {db}: {what}; name a KB file `python -m sim import` wrote")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        parser.error(f"OUT_DIR {out}: {_not_a_new_folder(out, db)}, nothing was written")
    if not out.parent.is_dir():
        parser.error(f"OUT_DIR {out}: the folder {out.parent} does not exist; create it first")
    try:
        changed = _changed(db)
    except (StoreError, sqlite3.Error, ValueError) as e:
        _say(f"--db {db}: {e}. Nothing was written.")
        return 1
    if not changed:
        print(f"No article of {db} changed since its import: nothing written.")
        return 0
    written = []
    for path, text, note in changed:
        target = out.joinpath(*PurePosixPath(path).parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "x", encoding="utf-8", newline="\n") as f:  # never overwrites
                f.write(text)
        except FileExistsError:
            _say(f"{path}: another changed article was written at this path: not written")
            continue
        except OSError as e:
            _say(f"OUT_DIR {out}: cannot write {path} ({e.strerror}); the files above are written")
            return 1
        written.append(path)
        if note:
            _say(f"{path}: {note}")
    print(f"Exported {len(written):,} articles of {db} changed since its import into {out}:")
    for path in written:
        print(f"  {path}")
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
        for aid, (path, front, dig) in pages.items():
            article = store.article_state(KB_ID, aid)
            if digest(article.title, article.content) == dig:
                continue
            found.append(_file(_safe(path, aid), front, article.title, article.content))
    finally:
        store.close()
    return found


def _safe(path: str, aid: str) -> str:
    """The path to write at: the page's own, unless it would leave the folder."""
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        return f"{aid.replace('..', '_').lstrip('/')}.md"
    return path


def _file(path: str, front: str, title: str, content: str) -> tuple[str, str, str]:
    text = f"{front}{content}\n"
    note = ""
    try:
        said = parse(path, text).title
    except Malformed:
        said = ""
    if said != title:
        note = f"its title is now {title!r}, which the file does not say: set it by hand"
    return path, text, note
