# The documented commands: `make demo` (opens the demo), `make check` (the fast checks, in parallel,
# offline) and `make test` (everything, with the real dsh and the compiled engine).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)

# The compiled wheel in its own venv, rebuilt only when what it is built from changes. The editable
# development install in .venv always runs the engine as plain Python.
CVENV := .venv-compiled
CBIN := $(CVENV)/bin
CSOURCES := $(shell find engine wrapper tui themes -type f ! -path '*/__pycache__/*' ! -name '*.pyc' 2>/dev/null | sort) pyproject.toml hatch_build.py
CSTAMP := $(CVENV)/.built-$(shell cat $(CSOURCES) 2>/dev/null | sha1sum | cut -c1-12)
# `compiled`: the compiled venv fails to build without a C compiler; `make test ENGINE_BUILD=auto` accepts plain.
ENGINE_BUILD ?= compiled
EXPECT = $(if $(filter compiled,$(ENGINE_BUILD)),compiled (mypyc),)

# The tests `make check` runs: no dsh, network or compiler, and none of the `slow` property tests,
# fuzzers, corpus figures and long recordings; `make test` runs the rest too. Every test outside tests/unit
# carries a folder marker, so only tests/unit is collected: each worker skips importing the integration and
# TUI test modules it would deselect.
FAST := -m "not integration and not tui and not slow"
FAST_TESTS := tests/unit
# One worker per core; an idle worker takes tests queued for a busy one, so a few long tests at the end
# do not leave a core idle while the other works through its queue.
PARALLEL := -n auto --dist worksteal

.PHONY: setup compiled dsh agents demo docs check check-format check-lint check-imports check-types check-unit \
	lint test test-compiled test-suite unit bench conformance calibrate clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	@echo "installing breaker-tui and its dev tools into $(VENV) (about 270 MB; minutes the first time): pip names each package"
	$(BIN)/python -m pip install -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

setup: $(STAMP)

# The build runs in .venv (it holds the hook's pinned mypy and hatch-mypyc), not in two isolated build
# environments that pip fills anew each time. .venv-compiled holds only the wheel; a .pth line puts .venv's
# packages (the dependencies and the test tools) behind it on the path, without the editable install's own
# .pth line that would put the checkout's sources first, so the tests import the compiled engine.
$(CSTAMP): $(STAMP)
	@test -x $(CBIN)/python || $(PY) -m venv $(CVENV)
	rm -rf $(CVENV)/dist
	BREAKER_TUI_BUILD=$(ENGINE_BUILD) $(BIN)/python -m build --no-isolation --outdir $(CVENV)/dist .
	$(CBIN)/python -m pip install -q --force-reinstall --no-deps $(CVENV)/dist/*.whl
	$(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))' \
		> "$$($(CBIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/breaker-dev-deps.pth"
	@rm -f $(CVENV)/.built-* && touch $(CSTAMP)

# Build the wheel (compiled with mypyc when a C compiler and the Python headers exist) into .venv-compiled.
compiled: $(CSTAMP)

dsh: setup
	$(BIN)/breaker-tui setup-dsh

demo: dsh
	$(BIN)/breaker-tui demo

# Every ACP agent in wrapper/harness/acp/presets.py, which the integration tests drive (pinned, from the npm
# registry; about 1.5 GB, once).
agents: setup
	$(BIN)/breaker-tui setup-agent --all

# Format, lint, import contracts, types and the unit tests, all five at once (the unit tests, the longest,
# first), and each to its end even when another fails, so one run shows every complaint.
check: $(STAMP)
	@$(MAKE) --no-print-directory -k -j5 --output-sync=target check-unit check-format check-lint check-imports check-types

check-format: $(STAMP)
	$(BIN)/ruff format --check .

check-lint: $(STAMP)
	$(BIN)/ruff check .

check-imports: $(STAMP)
	$(BIN)/lint-imports --no-cache

check-types: $(STAMP)
	$(BIN)/mypy

check-unit: $(STAMP)
	$(BIN)/pytest -q $(PARALLEL) $(FAST) $(FAST_TESTS)

lint: check-format check-lint check-imports check-types

# Everything, in one step that keeps both cores busy to the end: the static checks, the docs build, the
# compiled wheel's build and then its tests (`test-compiled`), and the whole suite from the checkout
# (`test-suite`: the slow tests, the real dsh and agents against the mock model, the TUI), all at once, each
# to its end even when another fails. The suite is the longest by far (about 80 % of the CPU), so it starts
# at once instead of after the checks and the build: the build (a minute of one core for gcc) and the checks
# run beside it, where they used to leave the other core idle before the tests could start (the suite first
# in the list, so it never waits for a job slot; it waits only for `dsh agents`). The suite also
# spends part of its time waiting on agents and the mock model's pace, which the rest fills.
test: setup
	@$(MAKE) --no-print-directory -k -j5 --output-sync=line test-suite check-types test-compiled docs \
		check-format check-lint check-imports

# What the compiled wheel is tested with. mypyc compiles only the engine's hot modules (the `include` list in
# pyproject.toml); the wrapper and the screen in the wheel are the checkout's own Python, which test-suite
# already tests, and running their 700 unit tests again against the wheel tested nothing new. What can tell
# a compiled engine from a plain one is run here: the conformance vectors, the engine's unit tests (with the
# build check, which fails unless the compiled engine is the one that ran) and the corpus figures, which
# replay the labelled and the real corpora through the whole engine and compare every count. The figures
# run here only, not in test-suite too: the plain engine agrees with the compiled one on every vector and
# engine test, the property tests (test-suite) hold its fast paths to its reference paths, and a developer's
# `pytest` runs the figures against the plain engine.
CORPUS_FIGURES := tests/unit/wrapper/records/test_real_corpus.py tests/unit/wrapper/records/test_eval.py
CPYTEST = cd $(CVENV) && BREAKER_TUI_EXPECT_BUILD="$(EXPECT)" ./bin/python -m pytest -q -p no:cacheprovider \
	--import-mode=importlib -o pythonpath= --rootdir=$(CURDIR) -c $(CURDIR)/pyproject.toml

# The engine's unit tests take ~10 s of CPU, less than starting and filling two xdist workers: one process.
# The figures run a file to a worker (`loadfile`): each file reads its corpus once into a module fixture,
# which two workers sharing a file would each read again.
test-compiled: compiled
	cd $(CVENV) && ./bin/python -m engine.seed.conformance $(CURDIR)/../shared/conformance
	$(CPYTEST) $(FAST) $(CURDIR)/tests/unit/engine
	$(CPYTEST) -n auto --dist loadfile $(addprefix $(CURDIR)/,$(CORPUS_FIGURES))

# dsh and the agents are checked (every installed file against its manifest: seconds of disk) beside the
# static checks and the build, not before them.
test-suite: dsh agents
	$(BIN)/python -m engine.seed.conformance ../shared/conformance
	$(BIN)/pytest -q $(PARALLEL) $(addprefix --ignore=,$(CORPUS_FIGURES))

# The documentation site, built strictly (a broken link or a missing page fails) into site/.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

unit: setup
	$(BIN)/pytest -q $(PARALLEL) $(FAST) $(FAST_TESTS)

conformance: setup
	$(BIN)/python -m engine.seed.conformance ../shared/conformance

calibrate: setup
	$(BIN)/breaker-tui calibrate

# The engine both ways, then the wrapper and the screen with the compiled build.
bench: setup compiled
	cd $(CVENV) && ./bin/python -m engine.bench --out $(CURDIR)/bench-results/engine-compiled.json
	$(BIN)/python -m engine.bench --out bench-results/engine-plain.json
	cd $(CVENV) && ./bin/python -m wrapper.bench --out $(CURDIR)/bench-results/wrapper.json
	cd $(CVENV) && ./bin/python -m wrapper.bench.seed --out $(CURDIR)/bench-results/seed.json
	cd $(CVENV) && ./bin/python -m wrapper.bench.recording --out $(CURDIR)/bench-results/recording.json
	cd $(CVENV) && ./bin/python -m tui.bench --out $(CURDIR)/bench-results/tui.json

clean:
	rm -rf $(VENV) $(CVENV) .mypy_cache .ruff_cache .pytest_cache .import_linter_cache bench-results
