# The two documented commands: `make demo` (opens the demo) and `make test` (runs every check).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)

.PHONY: setup native dsh demo test lint unit bench conformance calibrate clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

setup: $(STAMP) native

# The engine's hot modules compiled with mypyc (about a minute, only when they changed). Without a C
# compiler this reports why and the engine runs as plain Python: same results, slower tool checks.
native: $(STAMP)
	@$(BIN)/python -m engine.nativebuild --if-stale || echo "warning: the engine runs as plain Python"

dsh: setup
	$(BIN)/breaker-tui setup-dsh

demo: dsh
	$(BIN)/breaker-tui demo

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy engine

test: dsh lint
	$(BIN)/python -m engine.nativebuild status
	$(BIN)/python -m engine.conformance ../shared/conformance
	BREAKER_TUI_PURE=1 $(BIN)/python -m engine.conformance ../shared/conformance
	BREAKER_TUI_PURE=1 $(BIN)/pytest -q tests/unit
	$(BIN)/pytest -q

unit: setup
	$(BIN)/pytest -q tests/unit

conformance: setup
	$(BIN)/python -m engine.conformance ../shared/conformance

calibrate: setup
	$(BIN)/breaker-tui calibrate

bench: setup
	$(BIN)/python -m engine.bench
	$(BIN)/python -m wrapper.bench
	$(BIN)/python -m tui.bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache bench-results
