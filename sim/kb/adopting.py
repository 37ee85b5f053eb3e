"""An import that takes back an agent's edits: the KB's saves made through ``serve`` and the
repository's commits of the same texts (``export``, then a commit) stand for one another.

The rule. The KB's events, less those that stand for a commit already (``adopted``), must be
the start of the history, less the commits they stand for. Where they are not, the KB's
remaining events (its tail) must all be saves made through ``serve`` (actor ``agent``), and
each article they saved must have exactly one change in the history's remaining commits, a
save, whose title and text are the KB's now. Then each of those KB saves stands for that
commit from now on (kept in ``imported_adoptions``): the commit's event is not appended (the
KB has the edit already; a client's cursor and the article's version stay as they are) and
the article keeps the KB's row, its version the agent's, until a later commit changes it.
Anything else is refused as before (nothing is written)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from sim.kb.rows import StoreError

AGENT = "agent"
"""The actor of a save made through serve (a CAS edit)."""

HeldEvent = tuple[int, str, str, int, str]
"""(sequence, type, article_id, updated_us, actor) of one event the KB holds."""
Adoption = tuple[int, str, str, int]
"""(the KB event's sequence, the type, article id and updated_us of the commit it stands for)."""
Current = Callable[[str], tuple[str, str, bool] | None]
"""The KB's (title, content, published) of an article now, or None."""


class HistoryDiverged(StoreError):
    """The KB's events are not the start of the history offered; the message says where."""


class AgentEditsNotTaken(HistoryDiverged):
    """The KB's events past the history are saves made through serve that the history's new
    commits do not carry (not exported and committed, or changed since)."""

    def __init__(self, message: str, articles: list[str]) -> None:
        super().__init__(message)
        self.articles = articles


@dataclass
class Alignment:
    new: list[tuple[str, str, int]]
    """The history's events to append, in order."""
    adoptions: list[Adoption] = field(default_factory=list)
    """The KB's saves that now stand for a commit."""


def align(
    kb_id: str,
    held: Sequence[HeldEvent],
    adopted: Sequence[Adoption],
    history: Sequence[tuple[str, str, int]],
    final: Mapping[str, tuple[str, str, str, bool, int]],
    current: Current,
) -> Alignment:
    """What to append of `history` to a KB holding `held` (HistoryDiverged when nothing)."""
    standing = {a[0] for a in adopted}
    stood_for = {(t, aid, us) for _, t, aid, us in adopted}
    mine = [e for e in held if e[0] not in standing]
    theirs: list[tuple[str, str, int]] = [
        (t, aid, us) for t, aid, us in history if (t, aid, us) not in stood_for
    ]
    k = 0
    while k < min(len(mine), len(theirs)) and mine[k][1:4] == theirs[k]:
        k += 1
    if k == len(mine):
        return Alignment([(t, a, us) for t, a, us in theirs[k:]])
    tail, rest = mine[k:], theirs[k:]
    if any(e[1] != "saved" or e[4] != AGENT for e in tail):
        raise _diverged(kb_id, mine, theirs, k)
    adoptions: list[Adoption] = []
    problems = []
    for aid in dict.fromkeys(e[2] for e in tail):
        changes = [e for e in rest if e[1] == aid]
        if len(changes) != 1 or changes[0][0] != "saved":
            problems.append(f"{aid!r}: {len(changes)} changes of it in the new commits, not one")
        elif not _same(final.get(aid), current(aid)):
            problems.append(f"{aid!r}: its title or text in the repository is not the KB's")
        else:
            adoptions += [(e[0], "saved", aid, changes[0][2]) for e in tail if e[2] == aid]
    if problems:
        articles = list(dict.fromkeys(e[2] for e in tail))
        raise AgentEditsNotTaken(
            f"knowledge base {kb_id!r}: its last {len(tail):,} events (from event "
            f"{tail[0][0]:,}) are edits made through serve, which the repository's new commits "
            f"do not carry as they are ({'; '.join(problems[:3])}"
            f"{'; …' if len(problems) > 3 else ''})",
            articles,
        )
    taken = {(t, aid, us) for _, t, aid, us in adoptions}
    return Alignment([(t, a, us) for t, a, us in rest if (t, a, us) not in taken], adoptions)


def _same(row: tuple[str, str, str, bool, int] | None, now: tuple[str, str, bool] | None) -> bool:
    """Whether a file's article is the KB's (the import takes a text's outer line breaks as
    the file's layout, and export writes the layout's)."""
    if row is None or now is None:
        return False
    return (row[1], row[2].strip("\r\n"), row[3]) == (now[0], now[1].strip("\r\n"), now[2])


def _diverged(
    kb_id: str, mine: list[HeldEvent], theirs: list[tuple[str, str, int]], k: int
) -> HistoryDiverged:
    if k >= len(theirs):
        return HistoryDiverged(
            f"knowledge base {kb_id!r} holds {len(mine):,} events, more than the "
            f"{len(theirs):,} of this history (was it rewritten, or edited since?)"
        )
    got, want = mine[k], theirs[k]
    return HistoryDiverged(
        f"knowledge base {kb_id!r}: its event {got[0]:,} ({got[1]} {got[2]!r}) is not this "
        f"history's ({want[0]} {want[1]!r}): it holds another history (another folder, or "
        "one rewritten since), or was edited since its import"
    )
