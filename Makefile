# Two entry points: `make demo` (the service on the embedded store, fed by the
# OpenTelemetry SDK) and `make test` (lint, types and the whole test suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed-app: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml tests/requirements-instrumentation.txt | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	$(BIN)/pip install -q --no-deps -r tests/requirements-instrumentation.txt
	touch $@

demo: $(VENV)/.installed-app
	$(BIN)/agentwatch demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy

pytest: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q

test: lint pytest

bench: $(VENV)/.installed-test
	$(BIN)/python bench/ingest.py

clean:
	rm -rf $(VENV) .agentwatch
