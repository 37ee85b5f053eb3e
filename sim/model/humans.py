"""The human side: editors saving articles through the KB editor app (not the tools).

What a save drawn for an unpublished article does is ``Params.unpublished_save``: by
default the article stays unpublished for the rest of the day and the save edits its
draft (an event, but invisible to search and read); 'redraw' draws another published
article by the same weights; 'republish' publishes it again with the edit. An
unpublish drawn for an unpublished article edits its draft in every reading.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

import numpy as np
import simpy

from sim.corpus import ArticleSpec, edited_body, title_for
from sim.kb.store import KBStore
from sim.model.records import SaveRecord
from sim.model.schedule import SAVE_KINDS, DaySchedule


def human_editors(
    env: simpy.Environment,
    store: KBStore,
    kb_id: str,
    specs: Sequence[ArticleSpec],
    schedule: DaySchedule,
    seed: int,
    popularity: str,
    out: list[SaveRecord],
    unpublished_save: str = "draft",
    redraws: np.random.Generator | None = None,
) -> Generator[simpy.Event, None, None]:
    title_revision = [0] * len(specs)
    for t, target, kind, u in zip(
        schedule.save_s,
        schedule.save_targets,
        schedule.save_kinds,
        schedule.save_uniforms,
        strict=True,
    ):
        # saves of one publish share an instant, and now (a sum of earlier delays) can pass
        # that instant by an ulp: the schedule is sorted, so a negative wait is that ulp
        yield env.timeout(max(0.0, t - env.now))
        spec = specs[target]
        current = store.article_state(kb_id, spec.article_id)
        drawn = SAVE_KINDS[kind]
        if drawn == "new":  # a created article: nothing cited changes (sim.model.calibrated)
            out.append(SaveRecord(seed, popularity, float(t), spec.article_id, drawn, "new", False))
            continue
        if not current.published and unpublished_save == "redraw" and redraws is not None:
            hidden = set(store.unpublished_among(kb_id, [a.article_id for a in specs]))
            published = [i for i, a in enumerate(specs) if a.article_id not in hidden]
            if published:
                w = schedule.save_w[published]
                target = published[int(redraws.choice(len(published), p=w / w.sum()))]
                spec = specs[target]
                current = store.article_state(kb_id, spec.article_id)
        republish = (
            not current.published and unpublished_save == "republish" and drawn != "unpublish"
        )
        if republish:
            store.set_published(kb_id, spec.article_id, True)
        if not current.published and not republish:
            effect = "draft"
            store.save(kb_id, spec.article_id, edited_body(spec, current.content, u))
        elif drawn == "unpublish":
            effect = "unpublish"
            store.set_published(kb_id, spec.article_id, False)
        elif drawn == "title":
            effect = "title"
            title_revision[target] += 1
            store.save(
                kb_id,
                spec.article_id,
                edited_body(spec, current.content, u),
                title=title_for(spec, title_revision[target]),
            )
        else:
            effect = "body"
            store.save(kb_id, spec.article_id, edited_body(spec, current.content, u))
        out.append(
            SaveRecord(seed, popularity, float(t), spec.article_id, drawn, effect, republish)
        )
