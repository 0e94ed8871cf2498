"""Turns dsh `SessionEvent`s into the engine's typed events (and unpacks dsh's packed chunk rows)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, Literal

from engine import events as ev


def parse_args(raw: Any) -> Any:
    """Tool arguments arrive as a JSON string in dsh events; decode it when we can."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def text_of(content: Any) -> str:
    """Join the text blocks of a content list (nested tool-result blocks included)."""
    if isinstance(content, str):
        return content
    out: list[str] = []
    if isinstance(content, list):
        for b in content:
            if not isinstance(b, dict):
                continue
            if isinstance(b.get("text"), str) and b["text"]:
                out.append(b["text"])
            elif b.get("type") == "tool-result":
                inner = text_of(b.get("content"))
                if inner:
                    out.append(inner)
    return "\n".join(out)


def unpack(event: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Expand `reasoning-chunks` / `text-chunks` / `tool-call-chunks` rows into single chunk events."""
    t = event.get("type")
    data = event.get("data") or {}
    kinds = {"reasoning-chunks": "reasoning-delta", "text-chunks": "text-delta"}
    if t in kinds:
        for text in data.get("texts") or []:
            yield {
                "type": "assistant/chunk",
                "data": {
                    "turn": data.get("turn"),
                    "step": data.get("step"),
                    "chunk": {"type": kinds[t], "index": data.get("index", 0), "text": text},
                },
            }
        return
    if t == "tool-call-chunks":
        return
    yield event


def _obj(x: Any) -> dict[str, Any] | None:
    """`x` when it is an object; a missing field reads as an empty one, a wrong-typed field as None."""
    if x is None:
        return {}
    return x if isinstance(x, dict) else None


def _count(x: Any) -> int | None:
    """A non-negative count (turn, step, tokens); a missing field reads as 0, a wrong-typed one as None."""
    if x is None:
        return 0
    if isinstance(x, bool) or not isinstance(x, int) or x < 0:
        return None
    return x


def to_engine(agent: str, event: dict[str, Any]) -> list[ev.Event]:
    """The engine events one dsh event carries (often none).

    An event whose fields have the wrong types carries nothing: the reader never raises on what the
    child writes, and a half-understood event is not turned into a made-up one. A `tool/result` carries
    nothing for the engine: the bridge's post-execute report is what the breaker counts (it has the exit
    status and the verdict), so the event stream's copy is ignored.
    """
    t = event.get("type")
    data = _obj(event.get("data"))
    decode = _EVENTS.get(t) if isinstance(t, str) else None  # a list or object as the type is no type
    if data is None or decode is None:
        return []
    return decode(agent, data)


def _chunk(agent: str, data: dict[str, Any]) -> list[ev.Event]:
    chunk = _obj(data.get("chunk"))
    kind = chunk.get("type") if chunk is not None else None
    if chunk is None or not isinstance(kind, str):
        return []
    if kind == "reasoning-delta" and isinstance(chunk.get("text"), str):
        return [ev.ReasoningDelta(agent, chunk["text"])]
    if kind == "text-delta" and isinstance(chunk.get("text"), str):
        return [ev.AnswerDelta(agent, chunk["text"])]
    if kind == "usage":
        return _usage(agent, _obj(chunk.get("usage")))
    return []


def _usage(agent: str, u: dict[str, Any] | None) -> list[ev.Event]:
    counts = [_count(u.get(k)) for k in ("inputTokens", "outputTokens", "reasoningTokens")] if u is not None else []
    if len(counts) != 3 or None in counts:
        return []
    return [ev.Usage(agent, counts[0] or 0, counts[1] or 0, counts[2] or 0)]


def _turn_start(agent: str, data: dict[str, Any]) -> list[ev.Event]:
    turn = _count(data.get("turn"))
    return [ev.TurnStart(agent, turn)] if turn is not None else []


def _turn_end(agent: str, data: dict[str, Any]) -> list[ev.Event]:
    turn, reason = _count(data.get("turn")), _obj(data.get("reason"))
    if turn is None or reason is None:
        return []
    return [ev.TurnEnd(agent, turn, str(reason.get("kind", "?")))]


def _step_start(agent: str, data: dict[str, Any]) -> list[ev.Event]:
    turn, step = _count(data.get("turn")), _count(data.get("step"))
    return [ev.StepStart(agent, turn, step)] if turn is not None and step is not None else []


def _user_message(agent: str, data: dict[str, Any]) -> list[ev.Event]:
    source = _obj(data.get("source"))
    if source is None:
        return []
    kind = source.get("kind", "other")
    source_kind: Literal["user", "plugin", "other"] = (
        "user" if kind == "user" else "plugin" if kind == "plugin" else "other"
    )
    return [ev.UserMessage(agent, text_of(data.get("content")), source_kind)]


def _tool_call(agent: str, data: dict[str, Any]) -> list[ev.Event]:
    return [
        ev.ToolCall(agent, str(data.get("callId", "")), str(data.get("name", "")), parse_args(data.get("arguments")))
    ]


_EVENTS: dict[str, Callable[[str, dict[str, Any]], list[ev.Event]]] = {
    "assistant/chunk": _chunk,
    "turn/start": _turn_start,
    "turn/end": _turn_end,
    "step/start": _step_start,
    "user/message": _user_message,
    "tool/call": _tool_call,
}
