"""`breaker-tui eval tests/data/real` holds its figures: 360 real public trajectories, labelled by reading.

The corpus (`tests/data/real/README.md` gives the sources, the labelling rule and the conversion) is
what agents actually did. The figures are the measured ones, and the cases where the default rules
disagree with the label are named, so a change that moves them (a fix of a known miss, or a new false
block) shows up as a failing test and a line to update in the README.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wrapper.records.evaluate import ModeReport, evaluate

CORPUS = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(scope="module")
def reports() -> dict[str, ModeReport]:
    return evaluate(CORPUS)


@pytest.fixture(scope="module")
def tables(reports: dict[str, ModeReport]) -> dict[str, dict[str, int]]:
    return {m: r.table() for m, r in reports.items()}


def _disagreeing(report: ModeReport, expected: str) -> list[str]:
    return sorted(c.file[:8] for c in report.cases if c.expected == expected and not c.agrees)


def test_corpus_shape(tables: dict[str, dict[str, int]]) -> None:
    t = tables["default"]
    # 160 from the first half of issue 20, then 200 tau-bench airline runs (gpt-4o) with 3 real loops
    assert (t["cases"], t["legit"], t["loops"]) == (360, 355, 5)


def test_default_mode_figures(tables: dict[str, dict[str, int]], reports: dict[str, ModeReport]) -> None:
    t = tables["default"]
    # calls from the loop's first call to its block: 3 (real-269, tau-bench, the 4th identical
    # book_reservation), 4 (real-098) and 11 (real-122, an OpenHands edit whose identical failing retry
    # comes only after 6 different failing edits): the median is 4 (issue 20's target: within 6)
    assert t["median_block_calls"] == 4
    assert t["loops_blocked"] == 3 and t["legit_steered"] == 7
    # Known misses, measured and left for the engine (they are real sessions, kept as labelled):
    # real-173 and real-273 (tau-bench) send one identical failing update 5 and 4 times, each time after
    # the customer asks again: the failure rules count per turn, and every retry is in a new turn
    assert _disagreeing(reports["default"], "loop") == ["real-173", "real-273"]
    # real-271 (tau-bench) retries an identical failing booking twice, then changes the amount (374,
    # then 375, which books): the failure shape folds numbers, so the changed amounts are refused
    assert t["legit_blocked"] == 1 and _disagreeing(reports["default"], "no_loop") == ["real-271"]


def test_seed_mode_figures(tables: dict[str, dict[str, int]]) -> None:
    t = tables["seed"]
    assert (t["legit_blocked"], t["loops_blocked"], t["legit_steered"]) == (9, 2, 23)
