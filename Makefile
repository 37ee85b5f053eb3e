# Every target sets up its own virtual environment first, so a fresh machine
# with Python 3.11 and make needs nothing else.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: test lint reproduce bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check sim tests notebooks
	$(VENV)/bin/ruff format --check sim tests notebooks

test: lint
	$(PY) -m pytest -q

reproduce: $(VENV)/.installed
	$(PY) -m sim reproduce
	$(PY) -m sim notebook

bench: $(VENV)/.installed
	$(PY) -m sim bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
