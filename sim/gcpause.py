"""Python's cyclic garbage collector paused for work that allocates many containers and
frees no cycle (a KB's opening, loading the MCP SDK): one context manager the model and
the servers share."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off meanwhile, for work that allocates many
    containers and frees no cycle: an opening (the collector's passes over the caller's
    heap, the advisor's holding pandas, cost 0.3-0.6 s of a 50,000-article opening), or
    loading the MCP SDK (``sim.serve``)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
