"""The study's runs: ``experiments`` (a seed's days, on all cores or a Dask cluster),
``metrics`` (the headline quantities per seed), ``sweep`` (grids of parameters) and
``seedrule`` (the sequential seed rule's batches). Below ``sim.report``, which builds tables
from them; ``sim.results`` commits their rows and writes ``results/``."""
