"""The study's runs: ``experiments`` (a seed's days, on all cores or a Dask cluster),
``metrics`` (the headline quantities per seed), ``sweep`` (grids of parameters),
``seedrule`` (the sequential seed rule's batches), ``seedrows`` (every experiment's per-seed
rows, the commit point ``results/seeds/``), ``reproduce`` (``make reproduce``: every table
built from the rows alone) and ``check`` (``make check``: a fresh rerun compared with
``results/``)."""
