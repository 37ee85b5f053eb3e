"""What a person is shown when asked to approve one edit: enough to judge it, bounded.

A recorded approval is worth what the person saw. The prompt names the article by its
title, shows what changes (a unified diff of title and body against the version the edit
replaces, cut to a fixed number of lines and characters, saying how much was cut), and
says what approving does: one write, only while the article is still at that version.
Hosts show an elicitation's message as plain text in a dialog, with no scrolling
promised, so the whole prompt is held under ``MAX_PROMPT_CHARS``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from sim.kb.rows import Approval, Article
from sim.kb.versions import format_version

MAX_PROMPT_CHARS = 2_000
"""About a screenful: 25 lines of 80 characters."""
MAX_DIFF_LINES = 16
MAX_LINE_CHARS = 100
MAX_TITLE_CHARS = 120
_CONTEXT = 1


@dataclass(frozen=True, slots=True)
class Earlier:
    """An earlier request for the same write whose answer never came back."""

    approval: Approval
    why: str


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quoted(title: str) -> str:
    return f"“{_clip(' '.join(title.split()), MAX_TITLE_CHARS)}”"


def diff_lines(old: str, new: str) -> list[str]:
    """The body's unified diff, without the ---/+++ header (it says nothing a person needs)."""
    return list(difflib.unified_diff(old.splitlines(), new.splitlines(), n=_CONTEXT, lineterm=""))[
        2:
    ]


def body_diff(lines: list[str], max_lines: int = MAX_DIFF_LINES) -> str:
    """A diff shown as at most ``max_lines`` lines of at most MAX_LINE_CHARS characters,
    then one line saying how many lines and characters were left out."""
    if not lines:
        return "Body: the same lines; only line endings change."
    added = sum(1 for x in lines if x.startswith("+"))
    removed = sum(1 for x in lines if x.startswith("-"))
    kept = lines[:max_lines]
    shown = [_clip(x, MAX_LINE_CHARS) for x in kept]
    cut_lines = len(lines) - len(kept)
    # characters left out: the lines not shown, and the tails of the clipped ones
    cut_chars = sum(len(x) for x in lines[len(kept) :])
    cut_chars += sum(len(x) - (MAX_LINE_CHARS - 1) for x in kept if len(x) > MAX_LINE_CHARS)
    head = f"Body: {removed:,} line(s) removed, {added:,} added:"
    # fenced, so a host that renders markdown shows -/+ lines as a diff, not as bullets
    out = [head, "```diff", *shown, "```"] if shown else [head]
    if cut_lines or cut_chars:
        out.append(f"[… {cut_lines:,} more diff line(s), {cut_chars:,} characters, not shown]")
    return "\n".join(out)


def approval_prompt(
    approval_id: int,
    current: Article,
    content: str,
    title: str | None,
    earlier: Earlier | None = None,
    request_number: int = 1,
) -> str:
    """The message of the elicitation that asks for approval ``approval_id``."""
    version = format_version(current.updated_us)
    parts = [
        f"Approve one edit of the article {_quoted(current.title)} ({current.article_id}, "
        f"knowledge base {current.kb_id})?"
    ]
    if earlier is not None:
        parts.append(
            f"This is request {request_number} for this same edit: approval "
            f"{earlier.approval.approval_id}, asked at "
            f"{format_version(earlier.approval.requested_us)}, {earlier.why}."
        )
    if title is not None and title != current.title:
        parts.append(f"Title: {_quoted(current.title)} → {_quoted(title)}")
    elif title is not None:
        parts.append("Title: unchanged.")
    ending = (
        f"Approving writes this once, and only if the article is still at version {version} "
        "(the one shown); if anyone saved it since, nothing is written. Declining writes "
        f"nothing. Approval {approval_id} covers this call only."
    )
    budget = MAX_PROMPT_CHARS - sum(len(p) + 2 for p in parts) - len(ending) - 2
    if content == current.content:
        parts.append("Body: unchanged.")
    else:
        lines = diff_lines(current.content, content)
        shown = MAX_DIFF_LINES
        diff = body_diff(lines, shown)
        while len(diff) > budget and shown > 0:  # long lines: show fewer of them
            shown -= 1
            diff = body_diff(lines, shown)
        parts.append(_clip(diff, max(budget, 0)))
    parts.append(ending)
    return "\n\n".join(parts)
