"""`python -m sim import DOCS_DIR --db kb.sqlite`: a folder of Markdown articles as a KB.

Each ``.md``/``.markdown``/``.mdx`` file becomes one article (``markdown.py`` reads its
title and draft flag). In a git work tree the history comes from git (``history.py``):
every commit that changes an article is a version at its commit time, in the event log in
commit order, and the edit log ``calibrate`` reads is written in the same pass. Without git
the files' modification times are the versions. ``files.py`` says which files are taken,
``plan.py`` turns them into rows and events, the store appends them in one transaction
(``sim.kb.importing``), and ``cli.py`` is the subcommand.
"""
