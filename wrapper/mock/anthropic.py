"""Anthropic Messages for the mock model (Claude Code): SSE with `thinking` and `tool_use` blocks.

The same scenarios as the OpenAI-compatible path; requests without tools (titles, summaries, quota
probes) get a short plain answer. Tool inputs stream as `input_json_delta` pieces, as the real API does.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler
from typing import Any

from wrapper.mock.api import ModelCore, start_stream
from wrapper.mock.scenarios import SCENARIOS, Reply, Turn
from wrapper.mock.tools import FOLLOWUP_MARKER, fit_reply


def _blocks_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    out = []
    for b in content or []:
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
            out.append(b["text"])
    return "\n".join(out)


def describe(body: dict[str, Any]) -> Turn:
    """Reduce a Messages request to what a scenario needs."""
    msgs = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    assistants = sum(1 for m in msgs if m.get("role") == "assistant")
    tool_texts: list[str] = []
    if msgs and msgs[-1].get("role") == "user" and isinstance(msgs[-1].get("content"), list):
        for b in msgs[-1]["content"]:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                c = b.get("content")
                tool_texts.append(c if isinstance(c, str) else _blocks_text(c))
    users = []
    for m in msgs:
        if m.get("role") != "user":
            continue
        text = _blocks_text(m.get("content"))
        if text.strip():
            users.append(text)
    thinking = not (users and FOLLOWUP_MARKER in users[-1])
    return Turn(assistants, thinking, tool_texts, users)


def handle(model: ModelCore, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    """Answer one `/v1/messages` request (or its `count_tokens` probe)."""
    if "count_tokens" in h.path:
        model._json(h, 200, {"input_tokens": 100})
        return
    if not body.get("tools"):
        reply = Reply(content="Mock session title")
    else:
        reply = model.once(fit_reply(SCENARIOS[model.scenario][0](describe(body)), body, model.workspace))
        if reply.status != 200:
            model._json(h, reply.status, {"type": "error", "error": {"type": "api_error", "message": reply.error}})
            return
    if not body.get("stream"):
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.content or "ok"}]
        model._json(
            h,
            200,
            {
                "id": f"msg_{uuid.uuid4().hex[:20]}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "mock-model"),
                "content": content,
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 20},
            },
        )
        return
    stream(model, h, reply, body)


def stream(model: ModelCore, h: BaseHTTPRequestHandler, reply: Reply, body: dict[str, Any]) -> None:
    """The SSE event sequence of one streamed message."""
    start_stream(h)

    def send(event: str, data: dict[str, Any]) -> None:
        h.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        h.wfile.flush()
        if reply.delay_ms:
            time.sleep(reply.delay_ms / 1000)

    usage = {"input_tokens": 100 + 10 * len(body.get("messages") or []), "output_tokens": 1}
    try:
        send(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": f"msg_{uuid.uuid4().hex[:20]}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "mock-model"),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        )
        idx = 0
        if reply.reasoning and (describe(body).thinking or reply.force_reasoning or reply.hang):
            send(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": idx,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                },
            )
            for piece in reply.reasoning:
                send(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": idx,
                        "delta": {"type": "thinking_delta", "thinking": piece},
                    },
                )
            if reply.hang:
                ev = threading.Event()
                model._hangs.append(ev)
                ev.wait(600)
                return
            send(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": idx,
                    "delta": {"type": "signature_delta", "signature": "mock-signature"},
                },
            )
            send("content_block_stop", {"type": "content_block_stop", "index": idx})
            idx += 1
        if reply.content:
            send(
                "content_block_start",
                {"type": "content_block_start", "index": idx, "content_block": {"type": "text", "text": ""}},
            )
            for i in range(0, len(reply.content), 24):
                send(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": idx,
                        "delta": {"type": "text_delta", "text": reply.content[i : i + 24]},
                    },
                )
            send("content_block_stop", {"type": "content_block_stop", "index": idx})
            idx += 1
        for call in reply.tool_calls:
            tid = f"toolu_{uuid.uuid4().hex[:20]}"
            send(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": idx,
                    "content_block": {"type": "tool_use", "id": tid, "name": call.name, "input": {}},
                },
            )
            args = json.dumps(call.args)
            for i in range(0, len(args), 32):
                send(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": idx,
                        "delta": {"type": "input_json_delta", "partial_json": args[i : i + 32]},
                    },
                )
            send("content_block_stop", {"type": "content_block_stop", "index": idx})
            idx += 1
        stop = "tool_use" if reply.tool_calls else "end_turn"
        send(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20 + len(reply.content) // 4},
            },
        )
        send("message_stop", {"type": "message_stop"})
    except (BrokenPipeError, ConnectionResetError):
        return
