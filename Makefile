# Every target sets up its own virtual environment first, so a fresh machine
# with Python 3.11 and make needs nothing else.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

# Python's bytecode caches (__pycache__, ignored by git) are written even where the
# environment sets PYTHONDONTWRITEBYTECODE (as these machines do): without them every test
# worker, server and notebook kernel compiles each module again, and pytest rewrites every
# test module's asserts again, on every run.
export PYTHONDONTWRITEBYTECODE :=

.PHONY: install test lint typecheck reproduce docs rows check bench clean lock

# The exact versions, with their hashes, come from requirements.lock (pip's own hash-checking
# format, so a fresh machine needs nothing but pip); the project itself goes on top of them
# with no dependency of its own resolved again. The lock is universal: one file for Linux
# (x86_64, aarch64), macOS (arm64, x86_64) and Windows on Python 3.11-3.13, each line that
# only one of them needs marked for it (appnope on macOS, colorama and pywin32 on Windows),
# so pip takes exactly that platform's set.
$(VENV)/.installed: pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13) and "make: $(PYTHON) is Python %d.%d; the lock is checked for Python 3.11 to 3.13: make install PYTHON=python3.12 (or another of them)" % sys.version_info[:2])'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

# The environment alone (what the host configuration's .venv/bin/python needs).
install: $(VENV)/.installed

# After editing pyproject.toml's dependencies: resolve again (uv; `pip install uv` once), then
# `make reproduce` and `make check`, and commit results/ with both files. uv.lock is the lock:
# uv's own universal resolution, chosen over `uv pip compile --universal` because it records
# every package's dependencies with their markers, so tests/test_lock.py can prove that each
# platform's and Python's selection is complete without a network; requirements.lock is its
# export for pip (hashes and markers), which is all `make install` reads. uv keeps every
# version already in uv.lock; `uv lock --upgrade` moves them.
lock:
	uv lock
	uv export --quiet --frozen --all-extras --no-emit-project --format requirements.txt \
	  -o requirements.lock

# ruff, then the import contracts ([tool.importlinter] in pyproject.toml: the packages in layers,
# each importing only those below it; no cycle among a package's modules or sim's own).
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check sim tests notebooks
	$(VENV)/bin/ruff format --check sim tests notebooks
	$(VENV)/bin/lint-imports --no-cache

# Every function in sim/ typed and checked ([tool.mypy] in pyproject.toml); the cache in
# .mypy_cache makes a second run take seconds.
typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy

# pytest runs on every core (up to four) under pytest-xdist: addopts in pyproject.toml;
# `-n 0` runs it in one process. The type check runs beside it, not before it (from an empty
# cache it takes 20 CPU-s on one core, which would leave the other idle that long): its
# report is shown after pytest's, and the target fails if either fails.
test: lint
	@echo "$(VENV)/bin/mypy (beside pytest) && $(PY) -m pytest -q"
	@typed=$$(mktemp); $(VENV)/bin/mypy > $$typed 2>&1 & mypy=$$!; \
	$(PY) -m pytest -q; tests=$$?; \
	wait $$mypy; types=$$?; cat $$typed; rm -f $$typed; \
	[ $$types -eq 0 ] || exit $$types; exit $$tests

# Every table, figure and text of results/ and the README's blocks from the committed
# per-seed rows (results/seeds/), no simulation: after a change to a page or a parameter's
# description. The rows, and so every number, stay as they are.
docs: $(VENV)/.installed
	$(PY) -m sim reproduce --from-rows

# What a change touched, without the full rerun: the experiments named in EXPERIMENTS
# (sim/results/seedrows.py's EXPERIMENTS) run again at the study's seeds, only their per-seed
# rows in results/seeds/ rewritten, then every page rebuilt from the rows as `make docs` does.
# A new check method (sim/model/methods.py): make rows EXPERIMENTS="staleness exposure".
rows: $(VENV)/.installed
	@test -n "$(EXPERIMENTS)" || { echo 'make rows: name the experiments to rerun, e.g. make rows EXPERIMENTS="staleness exposure"'; exit 2; }
	$(PY) -m sim reproduce --only $(EXPERIMENTS)

reproduce: $(VENV)/.installed
	$(PY) -m sim reproduce
	$(PY) -m sim notebook

# The full fresh rerun (results/SPEED.md has its last timing): every file of results/ and the
# README's blocks must equal it; then the tests marked deep on their full samples.
# Run before committing a change to sim/ or results/.
check: $(VENV)/.installed
	STALE_CITATIONS_CACHE=off $(PY) -m sim.results.check
	$(PY) -m pytest -q --deep -m deep

bench: $(VENV)/.installed
	$(PY) -m sim bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .grimp_cache .import_linter_cache
