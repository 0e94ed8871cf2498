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

pytestmark = pytest.mark.slow  # corpus figures: `make test` runs them, `make check` does not

CORPUS = Path(__file__).resolve().parents[3] / "data" / "real"


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
    # 160 from the first collection, then 200 tau-bench airline runs (gpt-4o) with 3 real loops
    assert (t["cases"], t["legit"], t["loops"]) == (360, 355, 5)


def test_default_mode_figures(tables: dict[str, dict[str, int]], reports: dict[str, ModeReport]) -> None:
    t = tables["default"]
    # calls from the loop's first call to its block: 4 (real-098, the 4th `submit` of one wrong flag),
    # 4 (real-269, tau-bench: the 4th identical book_reservation after 3 identical failures; the variant
    # before them changed its baggage count, data, so it is not part of the loop), 6 (real-173) and 7
    # (real-273): the 4th update that still carries the flight its error named (`cause-failure`, across
    # the customer's messages), and 11 (real-122, an OpenHands edit whose identical failing retry comes
    # only after 6 different failing edits): the median is 6 (the target: within 6)
    assert t["median_block_calls"] == 6
    assert t["loops_blocked"] == 5 and t["legit_steered"] == 6
    blocks = {c.file[:8]: (c.first_rule, c.block_calls) for c in reports["default"].cases if c.expected == "loop"}
    assert blocks == {
        "real-098": ("same-error", 4),
        "real-122": ("failure", 11),
        "real-173": ("cause-failure", 6),
        "real-269": ("same-error", 4),
        "real-273": ("cause-failure", 7),
    }
    # No case disagrees. Before: real-173 and real-273 were missed (each retry in a new turn, and the
    # rest of the call changing), and real-271 was blocked: its booking re-sent with a recomputed amount
    # (299, then 374, then 375, which books) was refused as the failing call "numbers aside"
    assert _disagreeing(reports["default"], "loop") == []
    assert t["legit_blocked"] == 0 and _disagreeing(reports["default"], "no_loop") == []
    steered = sorted(c.file[:8] for c in reports["default"].cases if c.expected == "no_loop" and c.steered)
    assert steered == ["real-008", "real-085", "real-096", "real-117", "real-218", "real-271"]


def test_seed_mode_figures(tables: dict[str, dict[str, int]]) -> None:
    t = tables["seed"]
    assert (t["legit_blocked"], t["loops_blocked"], t["legit_steered"]) == (9, 2, 23)


# ---- tests/data/loops: loops and look-alikes made from these sessions (`tests/data/loops/README.md`) ----

LOOPS = CORPUS.parent / "loops"


@pytest.fixture(scope="module")
def loops_table() -> dict[str, int]:
    return evaluate(LOOPS, ("default",))["default"].table()


def test_loops_corpus_figures(loops_table: dict[str, int], capsys: pytest.CaptureFixture[str]) -> None:
    t = loops_table
    with capsys.disabled():
        print(
            f"\ntests/data/loops: loops stopped {t['loops_blocked']}/{t['loops']}, legitimate blocked "
            f"{t['legit_blocked']}/{t['legit']}, median {t['median_block_calls']} call(s) from loop start to block"
        )
    assert (t["loops"], t["legit"]) == (63, 64)
    # as measured: every loop stopped, no look-alike blocked, a median of 5 calls from the loop's first call
    assert t["loops_blocked"] == 63 and t["legit_blocked"] == 0
    assert 0 < t["median_block_calls"] <= 5
