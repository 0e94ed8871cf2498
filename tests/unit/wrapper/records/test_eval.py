"""`breaker-tui eval` on the shared labelled corpora holds the detection figures.

The shared corpora live beside the checkout (`../shared/detection`); without them these tests skip
and say so.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from wrapper.records.evaluate import ModeReport, evaluate, main

pytestmark = [
    pytest.mark.slow,  # corpus figures: `make test` runs them, `make check` does not
    pytest.mark.skipif(
        not (Path(__file__).resolve().parents[4] / ".." / "shared" / "detection").is_dir(),
        reason="../shared/detection (the shared labelled corpora) is absent from this checkout",
    ),
]

SHARED = Path(__file__).resolve().parents[4] / ".." / "shared" / "detection"


@pytest.fixture(scope="module")
def work() -> dict[str, dict[str, int]]:
    return {m: r.table() for m, r in evaluate(SHARED / "work").items()}


@pytest.fixture(scope="module")
def peers() -> dict[str, dict[str, int]]:
    return {m: r.table() for m, r in evaluate(SHARED / "peers").items()}


def test_work_default_mode(work: dict[str, dict[str, int]]) -> None:
    t = work["default"]
    assert (t["legit"], t["loops"]) == (10, 11)
    assert t["legit_blocked"] <= 1 and t["loops_blocked"] >= 10
    assert (t["legit_blocked"], t["loops_blocked"]) == (0, 11)  # as measured
    # median calls from a loop's start to its block (the target: within 6); the period-4 view
    # cycle is now stopped by the cycle rule at its 13th call: its four ranges are four reads (numbers
    # that are whole values are data), where the toy outputs made them one "same result" at the 5th
    assert t["median_block_calls"] == 5


def test_work_seed_mode_is_the_seed(work: dict[str, dict[str, int]]) -> None:
    t = work["seed"]
    assert (t["legit_blocked"], t["loops_blocked"]) == (6, 9)


def test_peers_default_mode(peers: dict[str, dict[str, int]]) -> None:
    assert peers["default"]["cases"] == 134
    assert peers["default"]["agreed"] >= 118
    # as measured; the 6 disagreements are listed in docs/detection.md. Two of them are on purpose, since
    # results count as progress:
    # openclaw calls a poll whose output changes every time ("tick N") a loop; a result that keeps
    # changing is progress here (the "does not block known polling when output progresses" case, which
    # the backstop used to deny, agrees now)
    assert peers["default"]["agreed"] == 128


def test_peers_seed_mode(peers: dict[str, dict[str, int]]) -> None:
    assert peers["seed"]["agreed"] == 112


def test_json_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SHARED / "work"), "--json", "--mode", "default"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["default"]["table"]["loops_blocked"] == 11
    assert {"file", "first_rule", "first_line", "agrees"} <= set(out["default"]["cases"][0])
    (tmp_path / "bad.jsonl").write_text('{"t": "meta", "expected": "loop"}\n{"t": "call"}\n', encoding="utf-8")
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "needs `tool`" in err
    assert main([str(tmp_path / "nothing-here")]) == 2


# ---- the public corpus of real trajectories (`real-public/`): recall on real loops ------------------

REAL_PUBLIC = SHARED / "real-public"
# What the build achieves (loops stopped of 64, legitimate sessions blocked of 136, the median number of
# calls from a loop's first call to its block). A detector that blocks nothing scores 0 of 64 and fails.
# Its 8 undecided trajectories carry no `expected` at all (labels.jsonl says `skip`): read, not scored.
# Before one notion of "new" the build stopped 49 of 64 and blocked 2 of 136 (median 5).
REAL_PUBLIC_FIGURES = {"loops": 64, "legit": 136, "skipped": 0, "min_loops_blocked": 58, "max_legit_blocked": 0}
REAL_PUBLIC_MAX_MEDIAN = 6


def check_real_public(t: dict[str, int]) -> None:
    """The held figures of `real-public/` (a function, so a blocks-nothing table can be shown to fail it)."""
    f = REAL_PUBLIC_FIGURES
    assert (t["loops"], t["legit"], t["skipped"]) == (f["loops"], f["legit"], f["skipped"])
    assert t["loops_blocked"] >= f["min_loops_blocked"], f"loops stopped {t['loops_blocked']}/64"
    assert t["legit_blocked"] <= f["max_legit_blocked"], f"legitimate blocked {t['legit_blocked']}/136"
    assert 0 < t["median_block_calls"] <= REAL_PUBLIC_MAX_MEDIAN


@pytest.fixture(scope="module")
def real_public() -> ModeReport:
    return evaluate(REAL_PUBLIC, ("default",))["default"]


def test_real_public_figures(real_public: ModeReport, capsys: pytest.CaptureFixture[str]) -> None:
    t = real_public.table()
    with capsys.disabled():
        print(
            f"\nreal-public: loops stopped {t['loops_blocked']}/{t['loops']}, legitimate blocked "
            f"{t['legit_blocked']}/{t['legit']}, median {t['median_block_calls']} call(s) from loop start to block"
        )
    check_real_public(t)


def test_real_public_fails_a_detector_that_blocks_nothing(real_public: ModeReport) -> None:
    nothing = ModeReport(
        "none", [replace(c, blocked=False, block_calls=0) for c in real_public.cases], real_public.skipped
    )
    with pytest.raises(AssertionError):
        check_real_public(nothing.table())
