# The two documented commands: `make demo` (opens the demo) and `make test` (runs every check).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)

.PHONY: setup dsh demo test lint unit bench conformance calibrate clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

setup: $(STAMP)

dsh: $(STAMP)
	$(BIN)/breaker-tui setup-dsh

demo: dsh
	$(BIN)/breaker-tui demo

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy engine

test: dsh lint
	$(BIN)/python -m engine.conformance ../shared/conformance
	$(BIN)/pytest -q

unit: $(STAMP)
	$(BIN)/pytest -q tests/unit

conformance: $(STAMP)
	$(BIN)/python -m engine.conformance ../shared/conformance

calibrate: $(STAMP)
	$(BIN)/breaker-tui calibrate

bench: $(STAMP)
	$(BIN)/python -m engine.bench
	$(BIN)/python -m wrapper.bench
	$(BIN)/python -m tui.bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache bench-results
