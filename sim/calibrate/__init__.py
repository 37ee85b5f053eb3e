"""Calibrate the simulated edit process from a real help centre's edit log (issue 20).

Modules: ``logs`` (read and validate the shared CSV format), ``gitlog`` (extract a log from a
git repository of markdown articles), ``popfit`` (edit popularity), ``sessions`` (editing
sessions and burst coefficients), ``fit`` (the shape with bootstrap intervals), ``shape``
(the fitted shape as a file), ``generate`` (saves drawn from a shape), ``stats`` and
``validate`` (held-out validation), ``flags`` and ``cli`` (``python -m sim calibrate``).
"""
