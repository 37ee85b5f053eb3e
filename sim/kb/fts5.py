"""What the in-memory indexes reproduce of FTS5: unicode61's tokens of ASCII text, the
weighted counts of bm25(title 4, body 1), and its idf and bm25 formulas.

From ``ext/fts5/fts5_aux.c`` (SQLite 3.40): k1 = 1.2, b = 0.75, idf = log((N − n + 0.5) /
(n + 0.5)) floored at 1e-6, the same floating-point operations in the same order. Both
indexes (``index.py`` for a large KB, ``matrix_index.py`` for a small one) score with these,
and a property test holds each to FTS5 itself.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

import numpy as np

K1 = 1.2
B = 0.75
TITLE_WEIGHT = 4
"""FTS5's title weight, an integer: weighted counts are then exact in integer arrays."""
_TOKEN = re.compile(r"[a-z0-9]+")
_ASCII_TOKEN = re.compile(r"[a-z0-9]+\Z")


def exact_words(words: list[str]) -> bool:
    """Whether each query word is one ASCII token, as the in-memory indexes tokenize."""
    return all(_ASCII_TOKEN.match(w) for w in words)


_NOT_IN_TOKENS = bytes(
    c if chr(c).isascii() and (chr(c).islower() or chr(c).isdigit()) else 32 for c in range(256)
)


def tokens(text: str) -> list[str]:
    """unicode61's tokens of ASCII text: runs of letters and digits, lower-cased. ASCII
    text (all the study's) is lower-cased, its other bytes made spaces and split: the
    regex's runs in a third of its time (a save tokenizes its row's old and new text)."""
    if text.isascii():
        return text.encode().lower().translate(_NOT_IN_TOKENS).decode().split()
    return _TOKEN.findall(text.lower())


def ascii_tokens(text: str) -> list[bytes]:
    """``tokens`` of the text, encoded: for ASCII text a byte translation and a split, the
    same runs at a fraction of the regex's cost (a bulk build tokenizes every row)."""
    if text.isascii():
        return text.encode().lower().translate(_NOT_IN_TOKENS).split()
    return [t.encode() for t in tokens(text)]


_NOT_IN_TOKENS_BUT_NUL = b"\x00" + _NOT_IN_TOKENS[1:]


def batch_tokens(chunk: list[tuple[int, str, str]]) -> tuple[list[bytes], list[int]]:
    """Each row's ``ascii_tokens`` of its body then of its title, one list, and how many
    each text gave: for ASCII text without NUL, one translation of the batch's texts
    joined by NUL, split at NUL and then into tokens (two calls a text instead of five)."""
    texts = [text for _, title, content in chunk for text in (content, title)]
    joined = "\x00".join(texts)
    if joined.isascii() and joined.count("\x00") == len(texts) - 1:
        pieces = joined.encode().lower().translate(_NOT_IN_TOKENS_BUT_NUL).split(b"\x00")
        split = list(map(bytes.split, pieces))
    else:
        split = list(map(ascii_tokens, texts))
    return list(itertools.chain.from_iterable(split)), list(map(len, split))


def weighted_counts(title: str, content: str) -> tuple[Counter[str], int]:
    """Each term's count weighted as FTS5's bm25(title 4, body 1) weighs it, and the row's
    length in tokens."""
    title_tokens, body_tokens = tokens(title), tokens(content)
    # counted in one pass (each title token TITLE_WEIGHT times): the same counts in the same
    # order, the body's terms first, without a Python loop over the title's
    weights = Counter(body_tokens + title_tokens * TITLE_WEIGHT)
    return weights, len(title_tokens) + len(body_tokens)


def idf(n_rows: int, n_hit: int) -> float:
    """FTS5's idf of a word held by n_hit of the table's n_rows rows."""
    value = math.log((n_rows - n_hit + 0.5) / (n_hit + 0.5)) if n_rows else 0.0
    return value if value > 0.0 else 1e-6


def bm25(freqs: np.ndarray, idfs: np.ndarray, length: np.ndarray, avgdl: float) -> np.ndarray:
    """FTS5's bm25 of rows, given each query word's weighted count in them (rows × words, in
    query order) and their lengths: its floating-point operations in its order (each word's
    term, then the terms added left to right), negated as FTS5 ranks. Integer counts are
    taken as they are: the first operation on them gives exact float64 values."""
    norm = K1 * ((1 - B) + B * length / avgdl)
    terms = idfs * ((freqs * (K1 + 1.0)) / (freqs + norm[:, None]))
    # left to right, a column at a time: the sums an accumulate along each row gives, which
    # numpy runs row by row (measured: 20 times slower at 2,000 matching rows, 7 at 50,000)
    total = terms[:, 0]
    for j in range(1, terms.shape[1]):
        total = total + terms[:, j]
    return -1.0 * total
