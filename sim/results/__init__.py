"""What writes and checks ``results/``: ``seedrows`` (every experiment's per-seed rows, the
commit point ``results/seeds/``), ``reproduce`` (``make reproduce``: every table, figure and
text built from the rows alone) and ``check`` (``make check``: a fresh rerun compared with
``results/`` byte for byte).

A package of its own, above ``sim.report``, not inside ``sim.study`` below it: the study
builds every experiment's rows, but the readings' seed rule asks the report's judgement of
them (``sensitivity.open_readings``), the real-shape arms the advisor's choice
(``sim.advise.choice``), and reproduce writes every page from them.
"""
