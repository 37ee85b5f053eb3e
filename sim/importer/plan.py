"""A folder's articles and history as the store takes them: rows, events and the edit log.

With git, every change of an article in a commit is a version at the commit's time (one
microsecond later than the article's last, if not after it): its first is ``created``, a
change of the draft flag ``published`` or ``unpublished``, any other change of title or
text ``saved``; a deletion ``unpublishes`` it (the KB never drops an article) and a file
added again at its path publishes it again. A pure rename is no event: the article keeps
its id (the path it was added at) and its text. The same pass writes the edit log's rows
(one per change, a commit being one publish; authors get pseudonyms u001, u002, ...).
Without git the files' modification times are the versions, compared with what the KB holds;
a file whose title and text are exactly an article's that no file names any more is that
article renamed, and keeps its id, as git's rename does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from sim.importer import git, gitstream
from sim.importer.files import MAX_ARTICLE_BYTES, NOT_NAMED, Notes, decoded, named, on_disk, shown
from sim.importer.frontmatter import Malformed
from sim.importer.layout import LINE_BREAKS
from sim.importer.markdown import EMPTY, Parsed, article_id, parse
from sim.importer.select import Taken
from sim.importer.sites import Site, detect
from sim.kb.importing import ImportedEvent, ImportedPage, ImportedRow, digest

_LOG_CHANGE = {"A": "add", "C": "add", "M": "modify", "T": "modify", "R": "rename", "D": "delete"}


@dataclass
class _State:
    parsed: Parsed
    us: int
    path: str
    alive: bool = True


@dataclass
class Plan:
    history: list[ImportedEvent] = field(default_factory=list)
    """Every event, oldest first (with git the whole history; without, what the KB holds
    and then the new)."""
    rows: list[ImportedRow] = field(default_factory=list)
    log_rows: list[tuple] = field(default_factory=list)
    """The edit log in the shared format (``sim.calibrate.logs``), without git empty."""
    pages: list[ImportedPage] = field(default_factory=list)
    """Each article's file now: its path, route and layout (what export writes back)."""
    present: int = 0
    """Articles in the folder now."""


class _Ids:
    """Path → article id, each id its article's for good (ids are never reused)."""

    def __init__(self, notes: Notes) -> None:
        self.live: dict[str, str] = {}
        self.gone: dict[str, str] = {}
        self.taken: set[str] = set()
        self._notes = notes

    def new(self, path: str, base: str) -> str:
        """The id of the article first seen at `path`, whose front matter wants `base`."""
        if path in self.gone:  # added again where a deleted article was: that article
            self.live[path] = self.gone.pop(path)
            return self.live[path]
        wanted = base
        n = 1
        while wanted in self.taken:
            n += 1
            wanted = f"{base}~{n}"
        if wanted != base:
            holder = next((p for p, a in self.live.items() if a == base), "")
            whose = f"{holder}'s" if holder else "a deleted article's"
            self._notes.add(
                path,
                f"id {base!r} is already {whose} (an id is its article's first path and is "
                f"never reused): imported as {wanted!r}",
            )
        self.taken.add(wanted)
        self.live[path] = wanted
        return wanted


def _event(prev: _State | None, now: Parsed) -> str | None:
    if prev is None:
        return "created"
    if not prev.alive:
        return "published" if now.published else "saved"
    if now.published != prev.parsed.published:
        return "published" if now.published else "unpublished"
    if (now.title, now.content) != (prev.parsed.title, prev.parsed.content):
        return "saved"
    return None


def _parsed(path: str, text: str | None, site: Site) -> tuple[Parsed | None, str]:
    """(the article, "") or (None, why the file is skipped)."""
    if text is None:
        return None, ""
    try:
        return parse(path, text, site), ""
    except Malformed as e:
        return None, f"{e}: skipped (a draft flag may be in it); fix it and import again"


def _finish(plan: Plan, state: dict[str, _State], notes: Notes) -> None:
    """The rows and pages after the history, and a line for each article with no text."""
    for aid, s in state.items():
        p = s.parsed
        plan.rows.append((aid, p.title, p.content, p.published and s.alive, s.us))
        plan.pages.append((aid, s.path, p.route, p.front, p.tail, digest(p.title, p.content)))
        if s.alive and p.hidden == EMPTY:
            notes.add(s.path, f"{EMPTY}: imported, not published")
        if s.alive and p.unaddressed:
            notes.add(s.path, f"{p.unaddressed}: imported without a page address")


def from_git(root: Path, notes: Notes, select: Taken, all_commits: bool = False) -> Plan:
    history, data = gitstream.history(
        root,
        lambda c: c.status != "D" and c.mode != git.SYMLINK_MODE and select(c.path),
        MAX_ARTICLE_BYTES,
        all_commits,
    )
    head = git.head_files(root)
    texts: dict[str, str | None] = {sha: decoded(b)[0] for sha, b in data.items()}
    ids = _Ids(notes)
    site = detect(root, notes)
    state: dict[str, _State] = {}
    unread: dict[str, str] = {}  # path -> why its latest version is not imported
    plan = Plan()
    authors: dict[str, str] = {}
    publish = 0
    for commit in history:
        t_us = commit.time_s * 1_000_000
        when = datetime.fromtimestamp(commit.time_s, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        emitted = False
        for c in commit.changes:
            if c.mode == git.SYMLINK_MODE or not (named(c.path) and named(c.old_path)):
                continue
            was, now = select(c.old_path), select(c.path)
            reading = now and c.status != "D"
            parsed, why = _parsed(c.path, texts.get(c.sha), site) if reading else (None, "")
            if why:
                unread[c.path] = why
            else:
                unread.pop(c.path, None)
            if c.status == "R" and was and now and c.old_path in ids.live:
                aid = ids.live.pop(c.old_path)
                ids.live[c.path] = aid
            elif c.status == "D" or (c.status == "R" and was and not now):
                if c.old_path not in ids.live:
                    continue
                aid = ids.live.pop(c.old_path)
                ids.gone[c.old_path] = aid
            elif now:
                known = ids.live.get(c.path)
                if known is None:
                    if parsed is None:  # not an article until a version can be read
                        continue
                    known = ids.new(c.path, parsed.wanted_id)
                aid = known
            else:
                continue
            prev = state.get(aid)
            if c.status == "D" or not now:
                if prev is None or not prev.alive:
                    continue
                us = max(t_us, prev.us + 1)
                if prev.parsed.published:
                    plan.history.append(("unpublished", aid, us))
                    prev.us = us
                prev.alive = False
            else:
                if parsed is None:  # unreadable at this version: the KB keeps the last one
                    continue
                kind = _event(prev, parsed)
                if kind is not None:
                    us = t_us if prev is None else max(t_us, prev.us + 1)
                    plan.history.append((kind, aid, us))
                    state[aid] = _State(parsed, us, c.path)
                elif prev is not None:  # same article, perhaps at a new path or address
                    prev.parsed, prev.path = parsed, c.path
            author = authors.setdefault(commit.author, f"u{len(authors) + 1:03d}")
            change = _LOG_CHANGE.get(c.status[0], "modify")
            if c.status == "R" and not (was and now):
                change = "add" if now else "delete"
            plan.log_rows.append((when, publish, author, aid, change, c.added, c.removed))
            emitted = True
        publish += emitted
    _finish(plan, state, notes)
    plan.present = sum(s.alive for s in state.values())
    _head_notes(root, head, texts, data, ids, unread, notes, select)
    return plan


def _head_notes(
    root: Path,
    head: dict[str, tuple[str, str]],
    texts: dict[str, str | None],
    data: dict[str, bytes | int],
    ids: _Ids,
    unread: dict[str, str],
    notes: Notes,
    select: Taken,
) -> None:
    """One line for each article file at HEAD not imported as it is."""
    for path, (mode, sha) in sorted(head.items()):
        if not select(path):
            continue
        kept = "; the KB keeps its last readable version" if path in ids.live else ""
        if not named(path):
            notes.add(shown(path), NOT_NAMED)
        elif mode == git.SYMLINK_MODE:
            target = git.blobs(root, [sha], MAX_ARTICLE_BYTES).get(sha, b"")
            target = target if isinstance(target, bytes) else b""
            inside = (root / path).parent.joinpath(target.decode("utf-8", "replace")).resolve()
            where = "inside" if inside.is_relative_to(root.resolve()) else "out of"
            notes.add(path, f"a symlink {where} the folder: skipped")
        elif texts.get(sha) is None:
            why = decoded(data[sha])[1] if sha in data else "not in the history read: skipped"
            notes.add(path, why + kept)
        elif path in unread:
            notes.add(path, unread[path] + kept)
    for path in git.untracked(root):
        if select(path):
            notes.add(path, "not committed: skipped (commit it, then import again)")
    for path in git.uncommitted(root):
        if select(path):
            notes.add(path, "uncommitted changes: imported as of its last commit")


def _exported(parsed: Parsed, row: ImportedRow) -> bool:
    """Whether a file is an export of the KB's article: its title and text, but for the outer
    line breaks of the agent's text, which the file's layout replaces (``layout.py``)."""
    return (parsed.title, parsed.content) == (row[1], row[2].strip(LINE_BREAKS))


class EditedSince(Exception):
    """Files that would overwrite edits made in the KB since its import (the message names
    them)."""


def from_disk(
    root: Path,
    notes: Notes,
    held: list[ImportedEvent],
    rows: dict[str, ImportedRow],
    edited: set[str],
    now_us: int,
    select: Taken,
) -> Plan:
    """Without git: the files against the KB's rows (`rows`) and events (`held`);
    EditedSince when a file differs from an article `edited` in the KB since its import."""
    files = on_disk(root, notes, select)
    site = detect(root, notes)
    ids = _Ids(notes)
    plan = Plan(history=list(held))
    new: list[ImportedEvent] = []
    seen = set()
    undone: list[str] = []
    state: dict[str, _State] = {}
    read = {path: _parsed(path, text, site) for path, (text, _) in files.items()}
    moved = _moved(read, rows)
    ids.taken |= set(moved.values())
    for path, (_, mtime_us) in files.items():
        parsed, why = read[path]
        if parsed is None:
            aid = article_id(path)
            kept = "; the KB keeps its last version" if aid in rows else ""
            notes.add(path, why + kept)
            seen.add(aid)
            continue
        aid = moved.get(path) or ids.new(path, parsed.wanted_id)
        seen.add(aid)
        old = rows.get(aid)
        if old is not None and aid in edited and _exported(parsed, old):
            parsed = replace(parsed, content=old[2])  # the KB's own text, as adopting.py keeps
        prev = None if old is None else _State(Parsed(old[1], old[2], old[3]), old[4], path)
        kind = _event(prev, parsed)
        if kind is not None and aid in edited:
            undone.append(path)
        us = old[4] if old is not None else mtime_us
        if kind is not None:
            us = mtime_us if prev is None else max(mtime_us, prev.us + 1)
            new.append((kind, aid, us))
        state[aid] = _State(parsed, us, path)
    if undone:
        more = f" and {len(undone) - 3:,} more" if len(undone) > 3 else ""
        raise EditedSince(", ".join(undone[:3]) + more)
    _finish(plan, state, notes)
    plan.present = len(state)
    for aid, (_, title, content, published, us) in rows.items():
        if aid not in seen and published:
            us = max(now_us, us + 1)
            new.append(("unpublished", aid, us))
            plan.rows.append((aid, title, content, False, us))
    plan.history += sorted(new, key=lambda e: (e[2], e[1]))
    return plan


def _moved(
    read: dict[str, tuple[Parsed | None, str]], rows: dict[str, ImportedRow]
) -> dict[str, str]:
    """Without git, path -> the KB article its file is, renamed: the file's own id is new, and
    its title and text are exactly those of an article no file's id names any more (git's
    rename, its content unchanged), so that article keeps its id and citations."""
    wanted = {p.wanted_id if p else article_id(path) for path, (p, _) in read.items()}
    gone = {
        digest(r[1], r[2]): aid
        for aid, r in rows.items()
        if aid not in wanted and aid.rpartition("~")[0] not in wanted
    }
    moved: dict[str, str] = {}
    for path, (p, _) in read.items():
        if p is not None and p.wanted_id not in rows:
            aid = gone.pop(digest(p.title, p.content), None)
            if aid is not None:
                moved[path] = aid
    return moved
