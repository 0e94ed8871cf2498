"""Turns dsh `SessionEvent`s into the engine's typed events (and unpacks dsh's packed chunk rows)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Literal

from engine import events as ev

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[@-Z\\-_]|\r")


def strip_ansi(text: str) -> str:
    """Terminal output without escape sequences and carriage returns."""
    return _ANSI.sub("", text)


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


def to_engine(agent: str, event: dict[str, Any]) -> list[ev.Event]:
    """The engine events one dsh event carries (often none)."""
    t = event.get("type")
    data = event.get("data") or {}
    if not isinstance(data, dict):
        return []
    if t == "assistant/chunk":
        chunk = data.get("chunk") or {}
        kind = chunk.get("type")
        if kind == "reasoning-delta" and isinstance(chunk.get("text"), str):
            return [ev.ReasoningDelta(agent, chunk["text"])]
        if kind == "text-delta" and isinstance(chunk.get("text"), str):
            return [ev.AnswerDelta(agent, chunk["text"])]
        if kind == "usage":
            u = chunk.get("usage") or {}
            return [
                ev.Usage(
                    agent,
                    int(u.get("inputTokens") or 0),
                    int(u.get("outputTokens") or 0),
                    int(u.get("reasoningTokens") or 0),
                )
            ]
        return []
    if t == "turn/start":
        return [ev.TurnStart(agent, int(data.get("turn") or 0))]
    if t == "turn/end":
        reason = data.get("reason") or {}
        return [ev.TurnEnd(agent, int(data.get("turn") or 0), str(reason.get("kind", "?")))]
    if t == "step/start":
        return [ev.StepStart(agent, int(data.get("turn") or 0), int(data.get("step") or 0))]
    if t == "user/message":
        source = (data.get("source") or {}).get("kind", "other")
        source_kind: Literal["user", "plugin", "other"] = (
            "user" if source == "user" else "plugin" if source == "plugin" else "other"
        )
        return [ev.UserMessage(agent, text_of(data.get("content")), source_kind)]
    if t == "tool/call":
        return [
            ev.ToolCall(
                agent, str(data.get("callId", "")), str(data.get("name", "")), parse_args(data.get("arguments"))
            )
        ]
    if t == "tool/result":
        msg = data.get("message") or {}
        content = msg.get("content") or []
        call_id = str((msg.get("source") or {}).get("callId", ""))
        is_error = any(isinstance(b, dict) and b.get("isError") for b in content)
        return [ev.ToolResult(agent, call_id, "", text_of(content), is_error)]
    return []
