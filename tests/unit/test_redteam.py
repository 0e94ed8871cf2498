"""`eval` on the red-team corpus (`tests/data/redteam/`) holds its figures.

The corpus is invented legitimate work that a naive breaker blocks and the loops real models fall
into (long view cycles, scrolling back and forth, cosmetic retries, monologues, unknown tools); the
default mode must block no legitimate case and every loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wrapper.evaluate import evaluate

CORPUS = Path(__file__).resolve().parents[1] / "data" / "redteam"


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, int]]:
    return {m: r.table() for m, r in evaluate(CORPUS).items()}


def test_corpus_shape(results: dict[str, dict[str, int]]) -> None:
    t = results["default"]
    assert t["cases"] >= 30
    assert (t["legit"], t["loops"]) == (31, 24)


def test_default_mode_blocks_no_legitimate_work_and_every_loop(results: dict[str, dict[str, int]]) -> None:
    t = results["default"]
    assert t["legit_blocked"] == 0 and t["legit_steered"] == 0
    assert t["loops_blocked"] == 24


def test_seed_mode_figures(results: dict[str, dict[str, int]]) -> None:
    t = results["seed"]
    assert (t["legit_blocked"], t["loops_blocked"]) == (14, 10)  # as measured: the seed is what the rules fix
