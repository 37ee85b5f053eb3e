"""The three read-only tools: search, read and poll, each a reply of machine values and
the text an agent reads first (``results.py``). Their arguments are checked and the KB
granted before they are called (``tools.py``)."""

from __future__ import annotations

import re

from sim.kb import rows
from sim.kb.store import KBStore
from sim.kb.versions import format_version
from sim.server.describe import describe_value
from sim.server.listing import KB_RESOURCE_TYPE, MAX_SEARCH_LIMIT
from sim.server.results import Reply, Structured, error, not_found

RESOURCE_TYPES = ("channel", "note", KB_RESOURCE_TYPE, "record", "session")
_WORD = re.compile(r"\w+")
# Words too common to rank by: left out of the FTS query, as most search engines do.
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "in", "is", "it", "its", "me", "my", "of", "on", "or", "so", "that", "the", "this",
    "to", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your",
})  # fmt: skip


def search_words(text: str) -> list[str]:
    """The query's words that are searched: lower-cased, each once, stopwords left out."""
    words = dict.fromkeys(w.lower() for w in _WORD.findall(text))
    return [w for w in words if w not in STOPWORDS]


def count(n: int, noun: str) -> str:
    """A count in words, as an agent copies it: '1 event', '3 events'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def search(store: KBStore, knowledge_base_id: str, query: str, limit: int) -> Reply:
    words = search_words(query)
    kb = knowledge_base_id
    if not words:
        return Reply(
            {"knowledge_base_id": kb, "searched_words": [], "hits": []},
            "Nothing was searched: the query has no word to search by (common words such "
            "as how, the and to are left out). Send the question's key terms, such as a "
            "feature, a setting or an error message.",
            True,
        )
    total, hits = store.search(kb, words, limit)
    listed = ", ".join(words)
    structured: Structured = {
        "knowledge_base_id": kb,
        "searched_words": words,
        "total_matches": total,
        "shown": len(hits),
        "complete": len(hits) == total,
        "hits": [],
    }
    if not total:
        return Reply(
            structured,
            f"No published article in {kb} contains any of the words: {listed}. Drafts and "
            "unpublished articles are never searched; try other key terms.",
            True,
        )
    shown = (
        f"all {total} shown"
        if len(hits) == total
        else f"showing the {len(hits)} most relevant (limit goes up to {MAX_SEARCH_LIMIT})"
    )
    urls = store.page_urls(kb, [h.article_id for h in hits])
    lines = [
        f"{count(total, 'published article')} in {kb} "
        f"{'contains' if total == 1 else 'contain'} at least one of the words: {listed}; "
        f"{shown}. Each line is article_id | title | updated_at, the version to cite"
        + (" | the page's address, for a person to open." if urls else ".")
    ]
    for i, h in enumerate(hits, 1):
        version = format_version(h.updated_us)
        hit = {"article_id": h.article_id, "title": h.title, "updated_at": version}
        line = f"{i}. {h.article_id} | {h.title} | {version}"
        if (url := urls.get(h.article_id)) is not None:
            hit["url"] = url
            line += f" | {url}"
        structured["hits"].append(hit)
        lines.append(line)
    return Reply(structured, "\n".join(lines), False)


def read(store: KBStore, knowledge_base_id: str, article_id: str) -> Reply:
    article, head = store.published_article_at_head(knowledge_base_id, article_id)
    asked = ""
    moved = None if article is not None else store.article_at(knowledge_base_id, article_id)
    if moved is not None:  # an imported file's current path, asked as an id: its article
        article, head = store.published_article_at_head(knowledge_base_id, moved)
        if article is not None:
            asked, article_id = f" (asked as {article_id}, its file's path now)", moved
    if article is None:
        return not_found(knowledge_base_id, article_id)
    version = format_version(article.updated_us)
    url = store.page_urls(knowledge_base_id, [article_id]).get(article_id)
    page = "" if url is None else f"Page (for a person to open): {url}\n"
    text = (
        f"Published article {article_id}{asked} of {knowledge_base_id}, version {version}. Cite it "
        f"as {{knowledge_base_id, article_id, updated_at}}; to edit it, send that updated_at "
        f"as expected_version; to hear of changes, poll events with after_sequence={head}.\n"
        f"Title: {article.title}\n{page}\n{article.content}"
    )
    structured: Structured = {
        "knowledge_base_id": knowledge_base_id,
        "article_id": article_id,
        "updated_at": version,
        "title": article.title,
    }
    if url is not None:
        structured["url"] = url
    structured |= {"content": article.content, "event_sequence": head}
    return Reply(structured, text, False)


def resource_type_refusal(resource_type: str) -> Reply | None:
    if resource_type != KB_RESOURCE_TYPE:
        known = resource_type in RESOURCE_TYPES
        return error(
            "resource_type_not_simulated" if known else "invalid_argument",
            f"resource_type {describe_value(resource_type)} "
            + (
                f"exists on the real server, but only {KB_RESOURCE_TYPE!r} is simulated here."
                if known
                else f"is not one of: {', '.join(RESOURCE_TYPES)}."
            ),
            f"Poll resource_type={KB_RESOURCE_TYPE!r} with a granted knowledge base id.",
            argument="resource_type",
            received=describe_value(resource_type),
            allowed=KB_RESOURCE_TYPE,
        )
    return None


def poll(
    store: KBStore, resource_type: str, resource_id: str, after_sequence: int, limit: int
) -> Reply:
    page = store.events_after(resource_id, after_sequence, limit)
    head = page.head_sequence
    if after_sequence > head:  # the schema sets no upper bound (events_after binds none)
        return error(
            "sequence_ahead_of_log",
            f"after_sequence {describe_value(after_sequence)} is beyond this log's head, "
            f"{head}: the log holds no such position now (a server that keeps its log in "
            "memory starts afresh when restarted).",
            f"Re-read the articles you cite, then resume with after_sequence={head}.",
            argument="after_sequence",
            received=describe_value(after_sequence),
            head_sequence=head,
        )
    if after_sequence < page.oldest_sequence - 1:
        return error(
            "history_trimmed",
            f"Events {after_sequence + 1} to {page.oldest_sequence - 1} were trimmed from "
            f"the log; the oldest kept is {page.oldest_sequence} and the head is {head}. "
            "Changes in that gap cannot be listed.",
            f"Re-read every article you cite, then resume with after_sequence={head}.",
            argument="after_sequence",
            received=describe_value(after_sequence),
            oldest_available_sequence=page.oldest_sequence,
            head_sequence=head,
        )
    return _event_page(resource_type, resource_id, after_sequence, page, store)


def _event_page(
    resource_type: str, kb: str, after: int, page: rows.EventPage, store: KBStore
) -> Reply:
    events = page.events
    next_after = events[-1].sequence if events else after
    has_more = next_after < page.head_sequence
    structured: Structured = {
        "resource_type": resource_type,
        "resource_id": kb,
        "after_sequence": after,
        "events": [],
        "next_after_sequence": next_after,
        "has_more": has_more,
        "head_sequence": page.head_sequence,
    }
    if not events:
        text = (
            f"No events after sequence {after}: nothing in {kb} changed since. Poll again "
            f"later with after_sequence={next_after}."
        )
        return Reply(structured, text, True)
    articles = list(dict.fromkeys(e.article_id for e in events))
    tail = (
        f"more events wait: call again now with after_sequence={next_after}"
        if has_more
        else f"no more pages; next time poll with after_sequence={next_after}"
    )
    lines = [
        f"{count(len(events), 'event')} on {count(len(articles), 'article')} after sequence "
        f"{after}; {tail}. "
        "Each line is sequence type article_id updated_at."
    ]
    for e in events:
        version = format_version(e.updated_us)
        structured["events"].append(
            {
                "sequence": e.sequence,
                "type": e.type,
                "article_id": e.article_id,
                "updated_at": version,
            }
        )
        lines.append(f"{e.sequence} {e.type} {e.article_id} {version}")
    hidden = store.unpublished_among(kb, articles)
    if hidden:
        structured["not_published"] = hidden
        lines.append(
            f"{count(len(hidden), 'article')} of these {'is' if len(hidden) == 1 else 'are'} not "
            f"published now, so read_knowledge_article cannot return "
            f"{'it' if len(hidden) == 1 else 'them'}: {', '.join(hidden)}."
        )
    return Reply(structured, "\n".join(lines), False)
