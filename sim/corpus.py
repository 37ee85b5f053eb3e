"""A synthetic help-centre corpus in which search means something.

Each article is one task: a verb, an object from a topic, and a place in the
product ("How to export the invoice PDF in the web app"). A customer's question
names the task of its target article, so the KB's real bm25 search ranks the
target first and a related article (same object or same verb and place) second.
Popularity rank is drawn independently of topic. Human edits keep the task's key
words, so the question still finds the article after it is edited or renamed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from sim import draws
from sim.kb.store import KBStore
from sim.kb.versions import us_from_datetime
from sim.vocabulary import (
    PLACES,
    ROLES,
    SECTIONS,
    SENTENCES,
    SYMPTOMS,
    TITLES,
    TOPICS,
    VERBS,
)

KB_ID = "kb-support"
"""The id of the KB every simulated day, `serve` and `import` write (one KB a file)."""
DAY_START_US = us_from_datetime(datetime(2026, 11, 9, 9, 0, tzinfo=UTC))
"""09:00 UTC on a Monday: simulated time 0 as a version timestamp."""


@dataclass(frozen=True, slots=True)
class ArticleSpec:
    article_id: str
    topic: str
    verb: str
    gerund: str
    obj: str
    place: str
    title: str

    @property
    def query(self) -> str:
        """What a customer types about this article's task."""
        return f"how do I {self.verb} the {self.obj} in the {self.place}"

    def question(self, answer: int) -> str:
        """The question of the day's answer number `answer` about this article: its query
        (an imported article's questions vary, ``sim.importer.corpus``)."""
        return self.query


def _words(d: dict[str, str]) -> dict[str, str]:
    """A task's template words (role, section and symptom left to each sentence's draw)."""
    return {
        **d,
        "Verb": d["verb"].capitalize(),
        "Gerund": d["gerund"].capitalize(),
        "Obj": d["obj"][0].upper() + d["obj"][1:],
        "Place": d["place"][0].upper() + d["place"][1:],
    }


def _fill(template: str, spec: ArticleSpec | dict[str, str], u: np.ndarray) -> str:
    """Fill a template; u holds 3 uniforms that pick role, section and symptom."""
    d = (
        spec
        if isinstance(spec, dict)
        else {
            "verb": spec.verb,
            "gerund": spec.gerund,
            "obj": spec.obj,
            "place": spec.place,
            "topic": spec.topic,
        }
    )
    return _filled(template, _words(d), u.tolist())


def _filled(template: str, words: dict[str, str], u: list[float]) -> str:
    words["role"] = ROLES[int(u[0] * len(ROLES))]
    words["section"] = SECTIONS[int(u[1] * len(SECTIONS))]
    words["symptom"] = SYMPTOMS[int(u[2] * len(SYMPTOMS))]
    return template.format_map(words)


def title_for(spec: ArticleSpec | dict[str, str], revision: int) -> str:
    return _fill(TITLES[revision % len(TITLES)], spec, np.zeros(3))


_LEAD = "This article explains how to {verb} the {obj} in the {place}."
_SENTENCES_PER_BODY = (4, 7)
"""A body's sentences after the lead: 4 to 6, distinct, in drawn order."""
_UNIFORMS = 3
"""Uniforms per sentence: its role, section and symptom (drawn whether it names them or not)."""


_TASK_WORDS = ("verb", "gerund", "obj", "place", "topic")
_PICKED = (ROLES, SECTIONS, SYMPTOMS)


def _with_task_fields(template: str, **picked: str) -> str:
    """The template with `picked` filled in and the task's words left as %-fields: a
    corpus fills 50,000 bodies, and % with a dict is the cheapest of Python's formats."""
    fields = {w: f"%({w})s" for w in _TASK_WORDS}
    escaped = {k: v.replace("%", "%%") for k, v in picked.items()}
    return template.replace("%", "%%").format_map(fields | escaped)


_LEAD_FIELDS = _with_task_fields(_LEAD)
_TITLE_FIELDS = _with_task_fields(TITLES[0])  # as title_for(d, 0): no role, section, symptom
_VARIANTS = [
    _with_task_fields(template, role=r, section=s, symptom=y)
    for template in SENTENCES
    for r in ROLES
    for s in SECTIONS
    for y in SYMPTOMS
]
"""Every sentence with its role, section and symptom filled in: sentence i with uniforms
picking r, s, y is number ((i·R + r)·S + s)·Y + y."""


def _bodies(n: int, rng: np.random.Generator) -> list[str]:
    """n bodies with %-fields for their tasks' words: each the lead, then 4 to 6 distinct
    sentences, each with 3 uniforms, drawn as ``rng.choice(8, size=rng.integers(4, 7),
    replace=False)`` then ``rng.random(3 * size)`` per body (``sim.draws`` in bulk)."""
    sizes, picks, u = draws.choices_with_uniforms(
        rng, n, len(SENTENCES), *_SENTENCES_PER_BODY, _UNIFORMS
    )
    variant = picks
    for k, words in enumerate(_PICKED):
        variant = variant * len(words) + (u[k::_UNIFORMS] * len(words)).astype(np.int64)
    texts = [_VARIANTS[v] for v in variant.tolist()]
    ends = np.cumsum(sizes).tolist()
    return [
        "\n\n".join([_LEAD_FIELDS, *texts[end - k : end]])
        for end, k in zip(ends, sizes.tolist(), strict=True)
    ]


BASE_ARTICLES = 400
"""Up to this size the KB documents one product, in ``vocabulary.py``'s words."""
HEAPS_BETA = 0.55
"""Beyond it, the vocabulary grows as Heaps' law V ≈ K·n^β (β ≈ 0.4–0.6 for English
text: Heaps, Information Retrieval, 1978; Baeza-Yates & Ribeiro-Neto, Modern Information
Retrieval, 1999): a larger help centre documents more products, each with feature and
surface names of its own, so a question's words match a realistic share of it."""
_SYLLABLES = ("zor", "vex", "lin", "mar", "tek", "dra", "nix", "pel", "quo", "sam", "rin", "bo")


def n_products(n_articles: int) -> int:
    return max(1, round(math.pow(n_articles / BASE_ARTICLES, HEAPS_BETA)))


def _coined(product: int, kind: str, i: int) -> str:
    """A product-specific word, the same for every seed: syllables spelled from a number."""
    n = (product * 131 + {"object": 0, "feature": 1, "place": 2}[kind]) * 97 + i
    word = ""
    for _ in range(3):
        n, r = divmod(n, len(_SYLLABLES))
        word += _SYLLABLES[r]
    return word + (str(n) if n else "")


def _vocabulary(product: int) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """(topic, object) pairs and places of a product; product 0 is the base vocabulary."""
    objects = [(topic, obj) for topic, objs in TOPICS.items() for obj in objs]
    if product == 0:
        return objects, PLACES
    coined = [
        (topic, f"{_coined(product, 'feature', i)} {_coined(product, 'object', i)}")
        for i, (topic, _) in enumerate(objects)
    ]
    name = _coined(product, "place", 999)
    places = tuple(f"{name} {_coined(product, 'place', i)}" for i in range(len(PLACES)))
    return coined, places


def build_corpus(n_articles: int, rng: np.random.Generator) -> list[tuple[ArticleSpec, str]]:
    """n distinct tasks drawn without replacement, each with its body; ids art-00001.. in
    draw order. Beyond BASE_ARTICLES the articles are spread evenly over n_products(n)
    products. The body goes to the store, never into the spec: a simulation keeps its specs
    all day, and the store holds the text (the ×100 day's peak RSS fell 22 MiB with it)."""
    objects, places = _vocabulary(0)
    n_tasks = len(objects) * len(VERBS) * len(PLACES)
    products = n_products(n_articles)
    if n_articles > n_tasks * products:
        raise ValueError(
            f"n_articles: at most {n_tasks * products} distinct tasks; got {n_articles}"
        )
    if products == 1:
        product_of = np.zeros(n_articles, np.int64)
        task_of = rng.choice(n_tasks, size=n_articles, replace=False)
    else:
        product_of = rng.permutation(np.arange(n_articles) % products)
        task_of = np.zeros(n_articles, np.int64)
        for p in range(products):
            where = np.flatnonzero(product_of == p)
            task_of[where] = rng.choice(n_tasks, size=len(where), replace=False)
    vocabularies = [_vocabulary(p) for p in range(products)]
    article_id = f"art-%0{max(5, len(str(n_articles)))}d"  # art-00001 ..
    o_of, rest = np.divmod(task_of, len(VERBS) * len(PLACES))
    v_of, p_of = np.divmod(rest, len(PLACES))
    bodies = _bodies(n_articles, rng)
    drawn_articles = []
    for i, (product, o, v, p, body) in enumerate(
        zip(*(a.tolist() for a in (product_of, o_of, v_of, p_of)), bodies, strict=True)
    ):
        objects, places = vocabularies[product]
        topic, obj = objects[o]
        verb, gerund = VERBS[v]
        words = {"verb": verb, "gerund": gerund, "obj": obj, "place": places[p], "topic": topic}
        spec = ArticleSpec(
            article_id % (i + 1), topic, verb, gerund, obj, places[p], _TITLE_FIELDS % words
        )
        drawn_articles.append((spec, body % words))
    return drawn_articles


def load(store: KBStore, kb_id: str, articles: Sequence[tuple[ArticleSpec, str]]) -> None:
    """Create the KB and publish the corpus in it, as the editors would at opening time."""
    store.create_kb(kb_id)
    store.create_articles(kb_id, ((a.article_id, a.title, body) for a, body in articles))


EDIT_UNIFORMS = 6
"""Uniforms one body edit consumes, whatever the content: a fixed draw per save keeps the
humans' stream aligned when the agent's edits change what the humans edit."""


def edited_body(spec: ArticleSpec, content: str, u: np.ndarray) -> str:
    """A human body edit: one paragraph after the lead is rewritten, or one is added."""
    paragraphs = content.split("\n\n")
    new = _fill(SENTENCES[int(u[0] * len(SENTENCES))], spec, u[1:4])
    new += f" (Reviewed: step {2 + int(u[4] * 7)} clarified.)"
    if len(paragraphs) > 1 and u[5] < 0.7:
        paragraphs[1 + int(u[5] / 0.7 * (len(paragraphs) - 1))] = new
    else:
        paragraphs.append(new)
    return "\n\n".join(paragraphs[:10])
