"""What a client receives from each tool, in characters, measured: the text content and the
structured content's JSON, on the study's opening KB (seed 1, 400 articles), through the
real tools. `python -m sim.study.sizes OUT.json` writes the figures (an older commit's own
sizes module measures that commit the same way); ``sim.report.sizes`` sets a fresh
measurement beside ``sizes_before.json``.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

from sim.kb.store import KBStore
from sim.model.opening import DAY_START_US, KB_ID, open_kb
from sim.server.tools import KBServer, structured_json


def _chars(result: Any) -> dict[str, int]:
    return {"text": len(result.text), "structured": len(structured_json(result.structured))}


def measure(seed: int = 1, n_articles: int = 400) -> dict[str, dict[str, float]]:
    """Median characters per kind of result, over the corpus's own questions."""
    store = KBStore(lambda: DAY_START_US)
    specs = open_kb(store, seed, n_articles)
    session = KBServer(store, lambda: DAY_START_US).connect("sizes", [KB_ID])
    kinds: dict[str, list[dict[str, int]]] = {
        "search, 5 hits": [],
        "read": [],
        "poll, 100 events": [],
        "edit conflict": [],
    }
    for spec in specs[:50]:
        found = session.call(
            "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": spec.query, "limit": 5}
        )
        kinds["search, 5 hits"].append(_chars(found))
        read = session.call(
            "read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": spec.article_id}
        )
        kinds["read"].append(_chars(read))
        conflict = session.call(
            "edit_knowledge_article",
            {
                "knowledge_base_id": KB_ID,
                "article_id": spec.article_id,
                "content": "new text",
                "expected_version": "2000-01-01T00:00:00.000000Z",
                "idempotency_key": f"size-{spec.article_id}",
            },
        )
        kinds["edit conflict"].append(_chars(conflict))
    for after in range(0, 300, 100):
        page = session.call(
            "poll_resource_events",
            {"resource_type": "knowledge_base", "resource_id": KB_ID, "after_sequence": after},
        )
        kinds["poll, 100 events"].append(_chars(page))
    return {
        kind: {part: statistics.median(r[part] for r in rows) for part in ("text", "structured")}
        for kind, rows in kinds.items()
    }


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(measure(), indent=2) + "\n")
