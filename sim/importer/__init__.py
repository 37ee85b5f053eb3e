"""`python -m sim import DOCS_DIR --db kb.sqlite`: a folder of Markdown articles as a KB;
`python -m sim export OUT_DIR --db kb.sqlite`: the articles edited since, back as files.

Each ``.md``/``.markdown``/``.mdx`` file becomes one article: ``frontmatter.py`` reads its
YAML or TOML front matter, ``markdown.py`` its title, visibility and id, ``routes.py`` its
page's address by the rule of the generator ``sites.py`` finds (``mkdocs.py`` reads MkDocs'
config and nav titles), and ``select.py`` says which paths are
articles (``--exclude``). In a git work tree the history comes from git (``git.py``):
every commit that changes an article is a version at its commit time, in the event log in
commit order, and the edit log ``calibrate`` reads is written in the same pass. Without git
the files' modification times are the versions. ``files.py`` reads the files on disk
(regular files only), ``plan.py`` turns them into rows, events and pages, the store appends
them in one transaction (``sim.kb.importing``), ``paths.py`` keeps the outputs apart from
the inputs and a new KB whole, ``cli.py`` is the subcommand and ``export.py`` the way back.
"""
