"""dsh session events become the engine's typed events (no dsh needed: the events are written out here)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import events as ev
from wrapper.harness.dsh.normalize import parse_args, text_of, to_engine, unpack
from wrapper.process.child import strip_ansi


def chunk(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": "assistant/chunk", "data": {"turn": 1, "step": 2, "chunk": {"type": kind, **fields}}}


def test_stream_chunks_become_deltas_and_usage() -> None:
    assert to_engine("a", chunk("reasoning-delta", text="hmm")) == [ev.ReasoningDelta("a", "hmm")]
    assert to_engine("a", chunk("text-delta", text="hi")) == [ev.AnswerDelta("a", "hi")]
    usage = chunk("usage", usage={"inputTokens": 10, "outputTokens": 3, "reasoningTokens": 2})
    assert to_engine("a", usage) == [ev.Usage("a", 10, 3, 2)]
    assert to_engine("a", chunk("usage", usage=None)) == [ev.Usage("a", 0, 0, 0)]
    assert to_engine("a", chunk("reasoning-delta", text=None)) == []  # no text: nothing to judge
    assert to_engine("a", chunk("tool-call-delta", text="x")) == []


def test_turns_steps_and_user_messages() -> None:
    assert to_engine("a", {"type": "turn/start", "data": {"turn": 3}}) == [ev.TurnStart("a", 3)]
    end = {"type": "turn/end", "data": {"turn": 3, "reason": {"kind": "completed"}}}
    assert to_engine("a", end) == [ev.TurnEnd("a", 3, "completed")]
    assert to_engine("a", {"type": "turn/end", "data": {}}) == [ev.TurnEnd("a", 0, "?")]
    assert to_engine("a", {"type": "step/start", "data": {"turn": 3, "step": 4}}) == [ev.StepStart("a", 3, 4)]
    for source, kind in (("user", "user"), ("plugin", "plugin"), ("hook", "other"), (None, "other")):
        msg = {
            "type": "user/message",
            "data": {"content": [{"type": "text", "text": "go"}], "source": {"kind": source}},
        }
        assert to_engine("a", msg) == [ev.UserMessage("a", "go", kind)]  # type: ignore[arg-type]


def test_tool_calls_decode_their_arguments_and_results_are_left_to_the_bridge() -> None:
    call = {"type": "tool/call", "data": {"callId": "c1", "name": "bash", "arguments": '{"command": "ls"}'}}
    assert to_engine("a", call) == [ev.ToolCall("a", "c1", "bash", {"command": "ls"})]
    raw = {"type": "tool/call", "data": {"callId": "c2", "name": "bash", "arguments": "{not json"}}
    assert to_engine("a", raw) == [ev.ToolCall("a", "c2", "bash", "{not json")]
    content = [{"type": "tool-result", "isError": True, "content": [{"type": "text", "text": "boom"}]}]
    result = {"type": "tool/result", "data": {"message": {"source": {"callId": "c1"}, "content": content}}}
    assert to_engine("a", result) == []  # the bridge's post-execute report is what counts


def test_unknown_or_malformed_events_carry_nothing() -> None:
    assert to_engine("a", {"type": "session/title", "data": {"title": "x"}}) == []
    assert to_engine("a", {"type": "turn/start", "data": "not a dict"}) == []
    assert to_engine("a", {}) == []


def test_packed_chunk_rows_unpack_into_single_chunks() -> None:
    packed = {"type": "reasoning-chunks", "data": {"turn": 1, "step": 2, "index": 5, "texts": ["a", "b"]}}
    out = list(unpack(packed))
    assert [e["data"]["chunk"] for e in out] == [
        {"type": "reasoning-delta", "index": 5, "text": "a"},
        {"type": "reasoning-delta", "index": 5, "text": "b"},
    ]
    assert [to_engine("x", e) for e in unpack({"type": "text-chunks", "data": {"texts": ["hi"]}})] == [
        [ev.AnswerDelta("x", "hi")]
    ]
    assert list(unpack({"type": "tool-call-chunks", "data": {"texts": ["{"]}})) == []
    plain = {"type": "turn/start", "data": {"turn": 1}}
    assert list(unpack(plain)) == [plain]


def test_text_helpers() -> None:
    assert parse_args('{"a": [1]}') == {"a": [1]} and parse_args("ls -la") == "ls -la" and parse_args(None) is None
    assert text_of([{"text": "a"}, "junk", {"type": "tool-result", "content": [{"text": "b"}]}, {"text": ""}]) == "a\nb"
    assert text_of("plain") == "plain" and text_of(None) == ""
    assert strip_ansi("\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07ok") == "red\nok"


WRONG_TYPES = [
    {"type": "turn/end", "data": {"reason": "x"}},
    {"type": "assistant/chunk", "data": {"chunk": "x"}},
    {"type": "turn/start", "data": {"turn": "abc"}},
    {"type": "user/message", "data": {"source": "s"}},
    {"type": "tool/result", "data": {"message": ["x"]}},
    {"type": ["turn/start"], "data": {"turn": 1}},  # a type that is not a string names no event
    {"type": {"turn/start": 1}, "data": {"turn": 1}},
]


@pytest.mark.parametrize("event", WRONG_TYPES)
def test_wrong_typed_fields_carry_nothing(event: dict[str, Any]) -> None:
    assert to_engine("a", event) == []
