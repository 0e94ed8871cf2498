"""The trace format's parser and its live-like replay through the engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from engine.trace import Intervention, TraceError, TraceEvent, TraceMeta, parse_line, simulate


def _events(rows: Sequence[Mapping[str, object]]) -> tuple[TraceMeta | None, list[TraceEvent]]:
    meta: TraceMeta | None = None
    out: list[TraceEvent] = []
    for n, row in enumerate(rows, 1):
        item = parse_line(row, n, len(out))
        if isinstance(item, TraceMeta):
            meta = item
        else:
            out.append(item)
    return meta, out


def test_parse_meta_and_events() -> None:
    meta = parse_line({"t": "meta", "name": "x", "expected": "loop", "judge_from": 3}, 1, 0)
    assert meta == TraceMeta("x", "loop", "", None, 3)
    call = parse_line({"t": "call", "tool": "bash", "args": {"command": "ls"}, "exit": 2, "agent": "sub"}, 2, 0)
    assert isinstance(call, TraceEvent)
    assert (call.kind, call.agent, call.exit, call.line, call.index) == ("call", "sub", 2, 2, 0)


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ([], "JSON object"),
        ({"t": "nope"}, "`t` must be one of"),
        ({"t": "call"}, "needs `tool`"),
        ({"t": "call", "tool": "x", "exit": "1"}, "`exit` must be an integer"),
        ({"t": "call", "tool": "x", "error": 1}, "`error` must be true or false"),
        ({"t": "think", "text": 3}, "`text` must be a string"),
        ({"t": "meta", "expected": "maybe"}, "`expected`"),
        ({"t": "meta", "judge_from": -1}, "`judge_from`"),
    ],
)
def test_bad_lines_name_the_problem(obj: object, needle: str) -> None:
    with pytest.raises(TraceError) as e:
        parse_line(obj, 7, 0)
    assert needle in str(e.value)
    assert e.value.line == 7


def test_meta_only_first() -> None:
    with pytest.raises(TraceError, match="first line"):
        parse_line({"t": "meta"}, 4, 2)


def test_denied_call_did_not_run() -> None:
    row = {"t": "call", "tool": "read", "args": {"path": "a.py"}, "output": "same"}
    meta, events = _events([row] * 6)
    found = simulate(meta, events)
    assert [i.action for i in found] == ["deny", "deny"]
    assert all(isinstance(i, Intervention) and i.line in (5, 6) for i in found)


def test_meta_config_overrides() -> None:
    row = {"t": "call", "tool": "read", "args": {"path": "a.py"}, "output": "same"}
    meta, events = _events([{"t": "meta", "config": {"repeat": {"limits": {"exact": 3}}}}] + [row] * 3)
    found = simulate(meta, events)
    assert [(i.action, i.line) for i in found] == [("deny", 4)]


def test_bad_meta_config_is_a_trace_error() -> None:
    meta, events = _events([{"t": "meta", "config": {"repeat": {"window": 1}}}])
    with pytest.raises(TraceError, match="window"):
        simulate(meta, events)


def test_meta_config_takes_either_spelling_of_a_key_over_any_base() -> None:
    from engine.config import BreakerConfig
    from engine.trace import config_for

    base = BreakerConfig.from_mapping({"thinking": {"novelty_streak": 7}, "repeat": {"local_hosts": "allow"}})
    for own in (
        {"thinking": {"noveltyStreak": 3}, "repeat": {"localHosts": "deny"}, "engine": {"cycleWindow": 8}},
        {"thinking": {"novelty_streak": 3}, "repeat": {"local_hosts": "deny"}, "engine": {"cycle_window": 8}},
    ):
        meta, _ = _events([{"t": "meta", "config": own}])
        cfg = config_for(meta, base)
        assert (cfg.thinking.novelty_streak, cfg.repeat.local_hosts, cfg.engine.cycle_window) == (3, "deny", 8)
    meta, _ = _events([{"t": "meta", "config": {"thinking": {"degStreak": 3}}}])
    assert config_for(meta, base).thinking.novelty_streak == 7  # the base's own keys stay
    meta, _ = _events([{"t": "meta", "config": {"thinking": {"degStreak": 3, "deg_streak": 4}}}])
    with pytest.raises(TraceError, match="both `deg_streak` and `degStreak`"):
        config_for(meta, base)


def test_trip_drops_the_rest_of_the_request() -> None:
    flood = "✦✧" * 400
    meta, events = _events([{"t": "request"}, {"t": "think", "text": flood}, {"t": "think", "text": flood}])
    found = simulate(meta, events)
    assert [i.action for i in found] == ["abort"]


def test_an_ask_refused_under_deny_did_not_run_and_allow_lets_it_run() -> None:
    rows: list[dict[str, object]] = [
        {"t": "call", "tool": "bash", "args": {"command": f"curl -s -w 'c{k}' http://127.0.0.1:3000/p"}, "output": "x"}
        for k in range(6)
    ]
    meta, events = _events(rows)
    denied = simulate(meta, events, "deny")
    assert [i.action for i in denied][:2] == ["ask", "deny"]
    allowed = simulate(meta, events, "allow")
    assert [i.action for i in allowed] == ["ask", "ask"], "the policy allows once: the next repeat asks again"


def test_monologue_is_a_cancel_and_ends_the_turn() -> None:
    answer = {"t": "answer", "text": "I have completed the task."}
    meta, events = _events([{"t": "request"}, answer] * 3 + [{"t": "call", "tool": "read", "args": {"p": 1}}] * 6)
    found = simulate(meta, events)
    assert [(i.action, i.rule) for i in found] == [("cancel", "monologue")]
