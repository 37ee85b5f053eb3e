"""The map: each of the study's three answers as a function of what decides it (edit
intensity, citation age, how questions relate to edits, delay, the agent's own edits, saves
per check and citations held), the closed forms that draw it, a small simulation grid that
holds them to the model, and real help centres' edit logs measured on it without the model.

``forms`` (closed forms) and ``grid`` (the simulation points and their per-seed rows) are
the model layer; ``logs`` measures an edit log's own rows; ``tables`` and ``figures`` turn
rows into results/ files (REPORT.md's section on them is ``sim/report/map_section.py``'s)."""
