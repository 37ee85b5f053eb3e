"""The study's runs: ``experiments`` (a seed's days, on all cores or a Dask cluster),
``metrics`` (the headline quantities per seed), ``methodrows`` (every check method's results
in long form), ``sweep`` (grids of parameters) and
``seedrule`` (the sequential seed rule's batches); each experiment's days and per-seed rows:
``staleness`` (the staleness days' rows, the measured result sizes), ``exposure``,
``breakeven``, ``gate`` (the write gate), ``readings`` (every reading of an open choice, with
``ladder`` and ``reported``), ``realshape`` (the arms on a real edit shape, with
``realshape_panel``, ``realshape_misses`` and ``realshape_seeds``) and ``sizes`` (what a
client receives). Below ``sim.report``, which builds tables, figures and pages from the rows
alone; ``sim.results`` commits the rows and writes ``results/``."""
