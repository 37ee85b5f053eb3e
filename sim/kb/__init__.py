"""The knowledge base itself: the SQLite schema, the store, search and its indexes, versions,
approval records and the event log. Imports nothing from ``sim.server`` (its face to agents)."""
