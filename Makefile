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

.PHONY: test lint reproduce check bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check sim tests notebooks
	$(VENV)/bin/ruff format --check sim tests notebooks

# pytest runs on every core (up to four) under pytest-xdist: addopts in pyproject.toml;
# `-n 0` runs it in one process.
test: lint
	$(PY) -m pytest -q

reproduce: $(VENV)/.installed
	$(PY) -m sim reproduce
	$(PY) -m sim notebook

# The full fresh rerun (about 13 minutes on 2 cores; results/bench.json has the last timing): every file of results/ and the
# README's blocks must equal it; then the tests marked deep on their full samples.
# Run before committing a change to sim/ or results/.
check: $(VENV)/.installed
	$(PY) -m sim.check
	$(PY) -m pytest -q --deep -m deep

bench: $(VENV)/.installed
	$(PY) -m sim bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
