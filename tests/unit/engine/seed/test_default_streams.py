"""The default mode's stream rules: side requests never blind, verbatim loops, restatements, plain output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import events as ev
from engine.breaker import Breaker, StreamTrip
from engine.config import BreakerConfig
from engine.lenses.verbatim import ProseFilter, VerbatimDetector, is_prose
from engine.seed.corpora import LENS_A, LENS_B_CLEAN, clean_generators
from engine.seed.textgen import expand

NO_CAP = BreakerConfig.from_mapping({"thinking": {"max_reasoning_chars": 0}})
WORK = Path(__file__).resolve().parents[4] / ".." / "shared" / "detection" / "work"
SPANISH = "El sistema debe verificar la configuración antes de continuar con el siguiente paso. "


def _feed(b: Breaker, text: str, chunk: int = 64, agent: str = "A") -> tuple[StreamTrip | None, int]:
    for i in range(0, len(text), chunk):
        t = b.feed(ev.ReasoningDelta(agent, text[i : i + chunk]))
        if t is not None:
            return t, i + chunk
    return None, len(text)


def test_a_title_request_started_mid_stream_does_not_blind_the_main_stream() -> None:
    b = Breaker()
    b.feed(ev.TurnStart("A", 1))
    b.request_start("A", 1)
    assert _feed(b, SPANISH * 2)[0] is None
    b.request_start("A", 1, purpose="session-title")  # concurrent side request
    trip, _ = _feed(b, SPANISH * 100)
    assert trip is not None and trip.action == "abort_retry"
    assert b.request_error("A", trip.failure_message, "ABORTED")
    assert b.request_start("A", 1) is True  # the retry runs with thinking off


def test_a_symbol_flood_in_the_first_turn_trips_despite_a_title_request() -> None:
    b = Breaker()
    b.request_start("A", 1)
    b.request_start("A", 1, purpose="title")
    trip, _ = _feed(b, "✦✧" * 600)
    assert trip is not None


def test_verbatim_loop_trips_by_the_4th_copy_of_a_long_unit() -> None:
    unit = (
        "I will not output any text.\n  I will just end the turn.\n  I am done.\n  I will not do anything else.\n"
        "  I will wait for the user's next command.\n"
    )
    b = Breaker(NO_CAP)
    b.request_start("A", 1)
    trip, at = _feed(b, unit * 30)
    assert trip is not None and trip.rule == "verbatim-loop"
    assert at <= 4 * len(unit) + 64
    assert "written 4 times" in trip.evidence()


def test_short_units_need_500_characters() -> None:
    d = VerbatimDetector()
    assert d.push("Thinking... Done. " * 20) is None  # 360 characters
    assert d.push("Thinking... Done. " * 10) is not None


@pytest.mark.parametrize("name", [k for k in {**LENS_A, **LENS_B_CLEAN} if k.startswith("CLEAN")])
def test_no_verbatim_trip_on_the_clean_calibration_corpora(name: str) -> None:
    spec = {**LENS_A, **LENS_B_CLEAN}[name]
    text = expand(spec)[:400_000]
    d, f = VerbatimDetector(), ProseFilter()
    assert all(d.push(f.push(text[i : i + 64])) is None for i in range(0, len(text), 64))


def test_no_trip_on_the_clean_generators_in_default_mode() -> None:
    for name, spec in clean_generators(2000, 20000, 2000).items():
        b = Breaker(NO_CAP)
        b.request_start("A", 1)
        assert _feed(b, expand(spec))[0] is None, name


def test_no_trip_on_structured_reasoning_in_work() -> None:
    for path in sorted(WORK.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if rows[0].get("expected") != "no_loop":
            continue
        b = Breaker()
        b.request_start("A", 1)
        for row in rows[1:]:
            if row["t"] == "think":
                assert _feed(b, row["text"])[0] is None, path.name


def test_prose_filter_drops_code_and_dividers() -> None:
    f = ProseFilter()
    out = f.push("Text before.\n``") + f.push("`\ncode();\n```\nAfter. " + "─" * 40 + " end")
    assert "code" not in out and "─" not in out and "Text before." in out and "After" in out
    assert is_prose("This is a unique sentence, id=1. This is a unique ")
    assert not is_prose("| a | b | c |\n") and not is_prose("aGVsbG8gd29ybGQ=") and not is_prose("x = f(a); y = g(b);")


def test_the_same_answer_in_three_steps_ends_the_turn() -> None:
    b = Breaker()
    trips = []
    for _ in range(3):
        b.request_start("A", 1)
        trips.append(b.feed(ev.AnswerDelta("A", "I have completed the task. Let me know if you need anything.")))
    assert trips[:2] == [None, None]
    t = trips[2]
    assert t is not None and t.rule == "monologue" and t.action == "abort"


def test_the_same_answer_between_tool_calls_is_not_a_monologue() -> None:
    b = Breaker()
    for k in range(4):
        b.request_start("A", 1)
        assert b.feed(ev.AnswerDelta("A", "Let me run the tests.")) is None
        b.check_tool("A", f"c{k}", "bash", {"command": f"pytest -k t{k}"})
        b.tool_result("A", f"c{k}", "bash", {"command": f"pytest -k t{k}"}, "1 passed", False)


def test_a_plan_restated_in_three_steps_with_nothing_changed_is_cancelled() -> None:
    plan = (
        "My plan: first I will open the configuration loader and check how the defaults are merged, then I "
        "will compare the merged values with the schema, and finally I will run the unit tests for the loader "
        "to confirm that nothing else depends on the old behaviour of the merge step."
    )
    b = Breaker()
    for k in range(3):
        b.request_start("A", 1)
        assert b.feed(ev.ReasoningDelta("A", plan)) is None
        b.check_tool("A", f"c{k}", "read", {"path": "loader.py"})
        b.tool_result("A", f"c{k}", "read", {"path": "loader.py"}, "def load(): ...", False)
    b.request_start("A", 1)
    found = b.pending_cancel("A")
    assert found is not None and found[0] == "restated-plan"


def test_plain_command_output_is_never_capped_by_size() -> None:
    b = Breaker()
    b.request_start("child", 0)
    text = "".join(f"{i}\n" for i in range(1, 60001))
    assert all(b.feed(ev.OutputDelta("child", text[i : i + 4096])) is None for i in range(0, len(text), 4096))
    seed = Breaker(
        BreakerConfig.from_mapping({"engine": {"mode": "seed"}, "thinking": {"max_reasoning_chars": 100000}})
    )
    seed.request_start("child", 0)
    trips = [seed.feed(ev.OutputDelta("child", text[i : i + 4096])) for i in range(0, len(text), 4096)]
    assert any(t is not None and t.rule == "max-reasoning-chars" for t in trips)


def test_program_output_repeating_a_line_is_left_to_lens_a() -> None:
    b = Breaker()
    b.request_start("child", 0)
    line = "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it.\n"
    assert all(b.feed(ev.OutputDelta("child", line)) is None for _ in range(8))
