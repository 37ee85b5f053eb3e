"""The check methods: what each is and how it checks, in one registry.

The hourly checker (``checker.py``), the interval sweep (``cadence.py``), the per-method
rows in long form (``sim.study.methodrows``: the sweep's method table, the exposure rows),
the report's cost and unnoticed tables and its figures iterate over ``METHODS``. Push is
not a check on a schedule (the server notifies, ``push.py``), so it is not one of them; the
tables add it beside them.

To add a method, end to end (docs/walkthrough.md runs a day with the registry):

1. Its check: a class with ``status`` and ``unsure`` (``Check`` below), made from a session,
   the KB's id and the search limit a title check takes.
2. Its entry in ``METHODS``: name, label and colour (how every page shows it), ``exact``
   (must it find every change the truth has? An exact method is held to the truth at every
   check, a difference stopping the day, and gets the closed forms' columns; one that
   checks only some citations is not), ``hourly`` (run by the hourly checker), ``swept``
   (run at every interval of the sweep), ``stateless``. The hourly checker counts a method's
   catches, misses and false alarms against the truth; the sweep does not: there a citation
   a method flags counts as noticed, so a method that can flag a fresh citation shows its
   false alarms only in the hourly checks.
3. Its test: tests/test_model.py, tests/test_methodrows.py and tests/test_sweep.py iterate
   over the registry, so an exact method is tested against the truth with no edit there;
   add a test of what a method that is not exact catches and misses.
4. Its rows: ``make rows EXPERIMENTS="staleness exposure"`` reruns the experiments whose
   rows hold methods (an hourly method's are the staleness runs' checks and calls and the
   exposure rows, a swept method's the exposure rows), rewrites only their per-seed rows
   in results/seeds/ and rebuilds every page from the rows: no full ``make reproduce``
   (the same without make: ``python -m sim reproduce --only staleness exposure``; 310
   simulated days, about 300 CPU-s). It records this machine in results/environment.json
   and does not rerun the notebook (``python -m sim notebook`` does).
   Until then the committed rows lack the method, and the regression test compares only the
   methods and columns they hold (``sim.results.rowfiles.held_by``), so ``make test``
   passes; the pages leave it out, except results/DATA.md, whose method list is this
   registry's (``make docs`` rewrites it at once).

What then shows it with no other edit: the hourly checks' cost table and figure
(check_calls_by_check.csv, check_cost.png), the exposure table and figure (REPORT.md § 6,
exposure.csv, exposure.png), ``python -m sim sweep``'s method table and the notebook's cost
figure. Not the per-seed rows' wide cost columns (frozen with the committed rows,
``sim.study.metrics.WIDE_COSTS``), nor the advisor, whose closed forms price re-read, poll
and push.

A check is built once a day for its client session and answers, for the citations held
at an instant, what it finds of each ('fresh', 'stale', 'gone', or 'changed' for a method
that cannot tell which). ``unsure`` is the same check under the stopping rule
(``Params.stop_checking_known_stale``): only the citations at ``unsure`` are looked at.
A check is given no clock: each held citation carries its read time (``read_s``), and the
checkers (``checker.py``, ``cadence.py``) know the check's time, so a method that depends
on a citation's age or the time of day changes them too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from sim.model.agent import HeldCitation
from sim.server.listing import DEFAULT_POLL_LIMIT, KB_RESOURCE_TYPE
from sim.server.tools import ToolCaller


class Check(Protocol):
    session: ToolCaller

    def status(self, held: list[HeldCitation]) -> list[str]: ...

    def unsure(self, held: list[HeldCitation], unsure: list[int]) -> list[str]: ...


@dataclass(frozen=True)
class Method:
    name: str
    label: str
    """How the report names it."""
    colour: str
    """Its colour in every figure."""
    exact: bool
    """An id-based check: it must equal the ground truth at every check (a difference
    stops the run, as a bug); a search by title need not."""
    hourly: bool
    """Run by the hourly checker."""
    swept: bool
    """Run at every interval of the sweep."""
    stateless: bool
    """Its calls and findings at an instant do not depend on its earlier checks, so the
    sweep runs it once an instant and charges every interval with a check then."""
    make: Callable[[ToolCaller, str, int], Check]
    """Its check for a session, the KB's id and the search limit a title check takes."""
    brief: str = ""
    """A shorter name where a column is narrow (the advisor's table); '' for the label."""

    @property
    def short(self) -> str:
        return self.brief or self.label


class Reread:
    """Read every cited article, compare versions."""

    def __init__(self, session: ToolCaller, kb_id: str, _limit: int = 0) -> None:
        self.session, self.kb_id = session, kb_id

    def status(self, held: list[HeldCitation]) -> list[str]:
        current = read_versions(
            self.session, self.kb_id, list(dict.fromkeys(c.article_id for c in held))
        )
        return [compare(c, current[c.article_id]) for c in held]

    def unsure(self, held: list[HeldCitation], unsure: list[int]) -> list[str]:
        articles = list(dict.fromkeys(held[i].article_id for i in unsure))
        return _found(held, unsure, read_versions(self.session, self.kb_id, articles))


class Poll:
    """Page through the events since a position; re-read only the cited articles in them.

    With the cursor kept ('one integer of state') each check starts where the last ended
    and keeps what it knew; without, each check starts again from the oldest citation's
    position and knows nothing from before."""

    def __init__(
        self, session: ToolCaller, kb_id: str, _limit: int = 0, keep_cursor: bool = True
    ) -> None:
        self.session = session
        self.kb_id = kb_id
        self.keep_cursor = keep_cursor
        self.cursor: int | None = None
        self.known: dict[tuple[int, int], str] = {}
        """(answer, slot) -> what the last check found of each citation held then."""

    def status(self, held: list[HeldCitation]) -> list[str]:
        if not held:
            return []
        if self.cursor is None or not self.keep_cursor:
            self.cursor = min(c.event_sequence for c in held)
            self.known = {}
        changed = self.page()
        cited = [a for a in dict.fromkeys(c.article_id for c in held) if a in changed]
        current = read_versions(self.session, self.kb_id, cited)
        self.known = {
            (c.answer, c.slot): compare(c, current[c.article_id])
            if c.article_id in current
            else self.known.get((c.answer, c.slot), "fresh")
            for c in held
        }
        return [self.known[(c.answer, c.slot)] for c in held]

    def unsure(self, held: list[HeldCitation], unsure: list[int]) -> list[str]:
        if not held:
            return []
        if not self.keep_cursor or self.cursor is None:
            if not unsure:
                return ["fresh"] * len(held)
            self.cursor = min(held[i].event_sequence for i in unsure)
        changed = self.page()
        articles = [a for a in dict.fromkeys(held[i].article_id for i in unsure) if a in changed]
        return _found(held, unsure, read_versions(self.session, self.kb_id, articles))

    def page(self) -> set[str]:
        """The articles named in the events after the cursor, paging to the head; the
        cursor moves to the last event read."""
        changed: set[str] = set()
        while True:
            r = self.session.call(
                "poll_resource_events",
                {
                    "resource_type": KB_RESOURCE_TYPE,
                    "resource_id": self.kb_id,
                    "after_sequence": self.cursor,
                    "limit": DEFAULT_POLL_LIMIT,
                },
            )
            if r.is_error:
                raise RuntimeError(f"checker poll refused unexpectedly: {r.text}")
            changed.update(e["article_id"] for e in r.structured["events"])
            self.cursor = r.structured["next_after_sequence"]
            if not r.structured["has_more"]:
                return changed


class PollFromOldest(Poll):
    """The poll restarted at every check from the oldest citation's position."""

    def __init__(self, session: ToolCaller, kb_id: str, _limit: int = 0) -> None:
        super().__init__(session, kb_id, keep_cursor=False)


class TitleOnly:
    """Search each kept title; a citation whose title no hit carries is flagged. It cannot
    see a body edit, and cannot tell a changed title from an unpublished article."""

    def __init__(self, session: ToolCaller, kb_id: str, limit: int) -> None:
        self.session, self.kb_id, self.limit = session, kb_id, limit

    def status(self, held: list[HeldCitation]) -> list[str]:
        found: dict[str, bool] = {}
        for title in dict.fromkeys(c.title for c in held):
            r = self.session.call(
                "search_knowledge_base",
                {"knowledge_base_id": self.kb_id, "query": title[:200], "limit": self.limit},
            )
            found[title] = any(h["title"] == title for h in r.structured.get("hits", []))
        return ["fresh" if found[c.title] else "changed" for c in held]

    def unsure(self, held: list[HeldCitation], unsure: list[int]) -> list[str]:
        looked = self.status([held[i] for i in unsure])
        out = ["fresh"] * len(held)
        for i, f in zip(unsure, looked, strict=True):
            out[i] = f
        return out


def read_versions(session: ToolCaller, kb_id: str, article_ids: list[str]) -> dict[str, str | None]:
    """Each article's current version, None if it is not published."""
    current: dict[str, str | None] = {}
    for a in article_ids:
        r = session.call("read_knowledge_article", {"knowledge_base_id": kb_id, "article_id": a})
        if r.is_error and r.structured["error"]["code"] != "article_not_found":
            raise RuntimeError(f"checker read refused unexpectedly: {r.text}")
        current[a] = None if r.is_error else r.structured["updated_at"]
    return current


def compare(c: HeldCitation, current: str | None) -> str:
    if current is None:
        return "gone"
    return "fresh" if current == c.version else "stale"


def _found(
    held: list[HeldCitation], unsure: list[int], current: dict[str, str | None]
) -> list[str]:
    """What a check that read `current` finds of the citations at `unsure`; 'fresh' for
    the rest (not looked at)."""
    out = ["fresh"] * len(held)
    for i in unsure:
        if held[i].article_id in current:
            out[i] = compare(held[i], current[held[i].article_id])
    return out


METHODS: tuple[Method, ...] = (
    Method(
        "title_only", "title-only search", "#7f7f7f",
        exact=False, hourly=True, swept=False, stateless=True, make=TitleOnly,
    ),
    Method(
        "reread", "re-read every cited article", "#d95f02",
        exact=True, hourly=True, swept=True, stateless=True, make=Reread,
        brief="re-read all cited",
    ),
    Method(
        "poll", "poll, cursor kept", "#1b9e77",
        exact=True, hourly=True, swept=True, stateless=False, make=Poll,
        brief="poll (cursor kept)",
    ),
    Method(
        "poll_from_oldest", "poll from the oldest citation", "#7570b3",
        exact=True, hourly=False, swept=True, stateless=True, make=PollFromOldest,
    ),
)  # fmt: skip
"""Every check method, in the order the checkers run them and the report lists them."""
BY_NAME = {m.name: m for m in METHODS}
HOURLY = tuple(m for m in METHODS if m.hourly)
SWEPT = tuple(m for m in METHODS if m.swept)
