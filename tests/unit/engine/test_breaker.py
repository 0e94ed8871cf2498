"""The `Breaker` facade: recovery flow, asks, steering, pause, reset and live scores."""

from __future__ import annotations

from engine import events as ev
from engine.breaker import Breaker
from engine.config import BreakerConfig

LOOP = "The user asked about the configuration file. I should check the file. "
SEED = BreakerConfig.from_mapping({"engine": {"mode": "seed"}})  # the seeds' rules, unchanged


def _loop_until_trip(b: Breaker, agent: str = "A", turn: int = 1):  # type: ignore[no-untyped-def]
    b.request_start(agent, turn)
    for _ in range(200):
        t = b.feed(ev.ReasoningDelta(agent, LOOP))
        if t is not None:
            return t
    raise AssertionError("no trip")


def test_first_trip_retries_with_thinking_off_and_second_is_terminal() -> None:
    b = Breaker(SEED)
    b.feed(ev.TurnStart("A", 1))
    t1 = _loop_until_trip(b)
    assert t1.action == "abort_retry" and t1.rule == "low-novelty"
    assert "thinking-breaker aborted a runaway reasoning stream (low-novelty" in t1.failure_message
    assert b.request_error("A", t1.failure_message, "ABORTED") is True
    assert b.request_start("A", 1) is True  # the retried step runs with thinking off
    t2 = _loop_until_trip(b)
    assert t2.action == "abort"
    assert b.request_error("A", t2.failure_message, "ABORTED") is False
    # the next turn starts clean
    assert b.request_start("A", 2) is False
    assert _loop_until_trip(b, turn=2).action == "abort_retry"


def test_foreign_errors_are_not_retried() -> None:
    b = Breaker()
    _loop_until_trip(b)
    assert b.request_error("A", "DeepSeek API request failed", "TRANSPORT") is False


def test_seed_mode_does_not_watch_side_requests() -> None:
    b = Breaker(SEED)
    b.request_start("A", 1, purpose="session-title")
    assert all(b.feed(ev.ReasoningDelta("A", LOOP)) is None for _ in range(100))


def test_star_flood_trips_the_degeneracy_lens() -> None:
    b = Breaker()
    b.request_start("A", 1)
    trips = [b.feed(ev.ReasoningDelta("A", "*** " * 10)) for _ in range(20)]
    t = next(t for t in trips if t)
    assert t.rule == "symbol-flood" and "meaningless" in t.descriptor["evidence"]
    assert "evidence=meaningless+noisy" in t.evidence()


def test_post_trip_hint_is_prepended_once() -> None:
    b = Breaker()
    b.feed(ev.TurnStart("A", 1))
    _loop_until_trip(b)
    r = b.tool_result("A", "c1", "read", {"path": "x"}, "file contents", False)
    assert r is not None and r.mode == "prepend" and "kept repeating itself" in r.text
    assert b.tool_result("A", "c2", "read", {"path": "y"}, "more", False) is None


def test_failing_call_is_steered_then_denied_before_dispatch() -> None:
    b = Breaker(SEED)
    b.feed(ev.TurnStart("A", 1))
    args = {"code": "print(1)"}
    assert b.check_tool("A", "1", "python", args).kind == "allow"
    assert b.tool_result("A", "1", "python", args, "TypeError", True) is None
    b.check_tool("A", "2", "python", {"code": "print(2)"})
    r = b.tool_result("A", "2", "python", {"code": "print(2)"}, "TypeError: bad", True)
    assert r is not None and r.reason == "steer" and "failed 2 time(s)" in r.text and "TypeError: bad" in r.text
    b.check_tool("A", "3", "python", args)
    b.tool_result("A", "3", "python", args, "TypeError", True)
    v = b.check_tool("A", "4", "python", {"code": "print(3)"})
    assert v.kind == "deny" and v.source == "failure" and "Blocked by thinking-breaker" in v.message
    # a new turn clears it
    b.feed(ev.TurnStart("A", 2))
    assert b.check_tool("A", "5", "python", args).kind == "allow"


def _curl(b: Breaker, i: int, host: str = "http://127.0.0.1:3000/p"):  # type: ignore[no-untyped-def]
    return b.check_tool("A", f"c{i}", "bash", {"command": f"curl -s -w 'code-{i}' -o /dev/null {host}"})


def test_local_only_repeat_asks_and_allow_turn_exempts_its_url_for_the_turn() -> None:
    b = Breaker()
    verdicts = [_curl(b, i) for i in range(5)]
    assert [v.kind for v in verdicts[:4]] == ["allow"] * 4
    ask = verdicts[4]
    assert ask.kind == "ask" and "LOCAL address" in ask.message and "Allow once runs this call only" in ask.message
    assert b.resolve_ask("A", "c4", True, "turn").kind == "allow"
    assert all(_curl(b, i).kind == "allow" for i in range(5, 9))
    assert b.snapshot().get("A").local_exempt  # type: ignore[union-attr]


def test_declined_ask_refuses_local_repeats_until_the_next_human_message() -> None:
    b = Breaker()
    for i in range(4):
        _curl(b, i)
    assert _curl(b, 4).kind == "ask"
    b.resolve_ask("A", "c4", False)
    v = _curl(b, 5)
    assert v.kind == "deny" and v.note == "refused" and v.message.startswith("REPEAT_TOOL_BLOCKED:")
    b.feed(ev.UserMessage("A", "go on"))
    assert _curl(b, 6).kind == "allow"


def test_pause_enforcement_observes_without_blocking() -> None:
    b = Breaker()
    b.set_enforcing(False)
    args = {"command": "curl -s https://a.com/x -o f"}
    vs = [b.check_tool("A", str(i), "bash", args) for i in range(6)]
    assert all(v.kind == "allow" for v in vs)
    assert vs[4].would == "deny" and vs[4].source == "observe"
    assert _loop_until_trip(b).action == "observe"


def test_snapshot_shows_window_counts_caps_and_hits() -> None:
    b = Breaker()
    args = {"command": "curl -s https://a.com/x -o f"}
    for i in range(5):
        v = b.check_tool("A", str(i), "bash", args)
    assert v.kind == "deny"
    rows = {r.fingerprint: r for r in b.snapshot().get("A").window}  # type: ignore[union-attr]
    assert rows["net:a.com/x"].count == 5 and rows["net:a.com/x"].cap == 5 and rows["net:a.com/x"].hit
    assert not rows["site:a.com"].hit
    b.reset_windows("A")
    assert b.snapshot().get("A").window == ()  # type: ignore[union-attr]


def test_scores_are_continuous() -> None:
    b = Breaker()
    b.request_start("A", 1)
    for _ in range(8):
        b.feed(ev.ReasoningDelta("A", LOOP))
    s = b.snapshot().get("A")
    assert s is not None and 0.5 < s.overlap <= 1.0 and s.novelty_streak >= 1 and len(s.overlap_history) >= 4


def test_config_knobs_reach_the_detectors() -> None:
    cfg = BreakerConfig.from_mapping(
        {"thinking": {"novelty_streak": 3}, "repeat": {"limits": {"exact": 2}}, "engine": {"mode": "seed"}}
    )
    b = Breaker(cfg)
    t = _loop_until_trip(b)
    assert t.descriptor["streak"] == 3
    args = {"path": "x"}
    assert b.check_tool("A", "1", "read", args).kind == "allow"
    assert b.check_tool("A", "2", "read", args).kind == "deny"
