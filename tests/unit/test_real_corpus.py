"""`breaker-tui eval tests/data/real` holds its figures: 160 real public trajectories, labelled by reading.

The corpus (`tests/data/real/README.md` gives the sources, the labelling rule and the conversion) is
what agents actually did; it measures above all that real work is not blocked. The targets of issue
20 are held here: no legitimate session blocked, every loop stopped; the figures are the measured ones,
so a change that moves them shows up as a failing test and a line to update in the README.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wrapper.records.evaluate import evaluate

CORPUS = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(scope="module")
def tables() -> dict[str, dict[str, int]]:
    return {m: r.table() for m, r in evaluate(CORPUS).items()}


def test_corpus_shape(tables: dict[str, dict[str, int]]) -> None:
    t = tables["default"]
    assert (t["cases"], t["legit"], t["loops"]) == (160, 158, 2)


def test_default_mode_blocks_no_real_work_and_stops_the_loops(tables: dict[str, dict[str, int]]) -> None:
    t = tables["default"]
    assert t["legit_blocked"] == 0  # before issue 20: real-133 (Claude Code sibling cancellations) was blocked
    assert t["loops_blocked"] == 2  # before: real-098 (`Wrong flag!` with no exit status) was missed
    assert t["legit_steered"] == 4
    # calls from the loop's first call to its block: 4 (real-098) and 11 (real-122, an OpenHands edit
    # whose identical failing retry comes only after 8 different failing edits); the median is 7
    assert t["median_block_calls"] == 7


def test_seed_mode_figures(tables: dict[str, dict[str, int]]) -> None:
    t = tables["seed"]
    assert (t["legit_blocked"], t["loops_blocked"], t["legit_steered"]) == (9, 2, 23)
