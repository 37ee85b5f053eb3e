"""The store's tables and its search statements, in SQL."""

from __future__ import annotations

from sim.kb import approvals

SCHEMA_VERSION = 5
"""Kept in PRAGMA user_version; 2 gave each KB its own rowid range, 3 scoped idempotency
keys to the client that sent them, 4 added the write gate's approvals, 5 made the FTS
table index the articles' own text instead of holding a copy of it."""
SCHEMA = (
    """
-- Each KB owns one range of article rowids (kb_no << 32 onwards), so that search can
-- restrict FTS5 to a KB by rowid range inside the index instead of joining every match.
CREATE TABLE kbs (
    kb_id TEXT PRIMARY KEY,
    kb_no INTEGER NOT NULL UNIQUE,
    head_sequence INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE articles (
    rowid INTEGER PRIMARY KEY,
    kb_id TEXT NOT NULL REFERENCES kbs(kb_id),
    article_id TEXT NOT NULL,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    published INTEGER NOT NULL CHECK (published IN (0, 1)),
    updated_us INTEGER NOT NULL,
    UNIQUE (kb_id, article_id)
);
-- External content: the index reads no text of its own; a row leaves it by the 'delete'
-- command with the text it was indexed with (the store passes the old row). It holds the
-- published rows only, so 'rebuild' and 'integrity-check', which assume every row of
-- articles, are never run on it. (Measured at 40,000 articles: 24 MiB less than a copy.)
CREATE VIRTUAL TABLE articles_fts USING fts5(
    title, content, tokenize = 'unicode61', content = 'articles', content_rowid = 'rowid'
);
-- Every save deletes and re-inserts a row; merging segments sooner keeps queries fast
-- (measured: search about a third faster after a day of saves, a save about 15 % slower).
INSERT INTO articles_fts (articles_fts, rank) VALUES ('crisismerge', 4);
CREATE TABLE events (
    kb_id TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    type TEXT NOT NULL,
    article_id TEXT NOT NULL,
    updated_us INTEGER NOT NULL,
    actor TEXT NOT NULL,
    PRIMARY KEY (kb_id, sequence)
) WITHOUT ROWID;
CREATE INDEX events_by_article ON events (kb_id, article_id, updated_us);
-- A key belongs to the client that sent it: another client's same key is another edit,
-- and no client can learn from a refusal which keys others have used.
CREATE TABLE idempotency (
    kb_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    result_json TEXT NOT NULL,
    PRIMARY KEY (kb_id, client_id, key)
) WITHOUT ROWID;
"""
    + approvals.SCHEMA
)

# bm25 column weights (title, content): a title match counts more than a body match.
# Only the best `limit` matches are joined to their articles: every match is scored (bm25
# needs it) but none other is looked up. Ties go to the earlier-created article.
SEARCH_SQL = """
WITH top AS MATERIALIZED (
    SELECT rowid, bm25(articles_fts, 4.0, 1.0) AS score
    FROM articles_fts WHERE articles_fts MATCH ? AND rowid BETWEEN ? AND ?
    ORDER BY score, rowid
    LIMIT ?
)
SELECT a.article_id, a.title, a.updated_us
FROM top JOIN articles AS a ON a.rowid = top.rowid
ORDER BY top.score, top.rowid
"""
COUNT_SQL = """
SELECT count(*) FROM articles_fts WHERE articles_fts MATCH ? AND rowid BETWEEN ? AND ?
"""
KB_ROWID_BITS = 32
