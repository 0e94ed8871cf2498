"""The OpenAI Responses API for the mock model (Codex): SSE with reasoning, output text and function calls.

Codex speaks only this API. A step's output items are streamed the way the real API does (`added`,
deltas, `done`), then `response.completed` with the usage.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from wrapper.mock.api import ModelCore, start_stream
from wrapper.mock.scenarios import SCENARIOS, Reply, Turn
from wrapper.mock.tools import CUSTOM, FOLLOWUP_MARKER, declared, fit_reply


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(c.get("text", "")) for c in content or [] if isinstance(c, dict))


CALLS = ("function_call", "custom_tool_call")  # a tool call with JSON arguments, and one with raw text (a patch)


def describe(body: dict[str, Any]) -> Turn:
    """Reduce a Responses request to what a scenario needs (one step per call or closing message)."""
    items = [i for i in body.get("input") or [] if isinstance(i, dict)]
    steps = 0
    users: list[str] = []
    for n, it in enumerate(items):
        kind = it.get("type", "message")
        if kind in CALLS:
            steps += 1
        elif kind == "message" and it.get("role") == "assistant":
            following = items[n + 1] if n + 1 < len(items) else {}
            steps += 0 if following.get("type") in CALLS else 1
        elif kind == "message" and it.get("role") == "user":
            text = _text(it.get("content"))
            if text.strip() and not text.lstrip().startswith("<"):  # skip environment/instructions blocks
                users.append(text)
    tool_texts: list[str] = []
    for it in reversed(items):
        if it.get("type") not in ("function_call_output", "custom_tool_call_output"):
            break
        out = it.get("output")
        tool_texts.append(out if isinstance(out, str) else json.dumps(out))
    return Turn(steps, not (users and FOLLOWUP_MARKER in users[-1]), tool_texts, users)


def handle(model: ModelCore, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    """Answer one `/v1/responses` request."""
    if not body.get("tools"):
        reply = Reply(content="Mock session title")
    else:
        reply = model.once(fit_reply(SCENARIOS[model.scenario][0](describe(body)), body, model.workspace))
        if reply.status != 200:
            model._json(h, reply.status, {"error": {"message": reply.error, "type": "server_error"}})
            return
    start_stream(h)
    seq = 0

    def send(kind: str, data: dict[str, Any]) -> None:
        nonlocal seq
        seq += 1
        payload = {"type": kind, "sequence_number": seq, **data}
        h.wfile.write(f"event: {kind}\ndata: {json.dumps(payload)}\n\n".encode())
        h.wfile.flush()
        if reply.delay_ms:
            time.sleep(reply.delay_ms / 1000)

    rid = f"resp_{uuid.uuid4().hex[:20]}"
    base = {"id": rid, "object": "response", "model": body.get("model", "mock-model"), "output": []}
    try:
        send("response.created", {"response": {**base, "status": "in_progress"}})
        idx = 0
        if reply.reasoning and (describe(body).thinking or reply.force_reasoning):
            iid = f"rs_{uuid.uuid4().hex[:16]}"
            send(
                "response.output_item.added",
                {"output_index": idx, "item": {"type": "reasoning", "id": iid, "summary": []}},
            )
            send(
                "response.reasoning_summary_part.added",
                {"item_id": iid, "output_index": idx, "summary_index": 0, "part": {"type": "summary_text", "text": ""}},
            )
            # each piece once, as the summary the API streams (Codex forwards `reasoning_text` and
            # `reasoning_summary_text` deltas alike, so sending both showed and judged every piece twice)
            for piece in reply.reasoning:
                send(
                    "response.reasoning_summary_text.delta",
                    {"item_id": iid, "output_index": idx, "summary_index": 0, "delta": piece},
                )
            text = "".join(reply.reasoning)
            item = {"type": "reasoning", "id": iid, "summary": [{"type": "summary_text", "text": text}]}
            send("response.output_item.done", {"output_index": idx, "item": item})
            idx += 1
        if reply.content:
            iid = f"msg_{uuid.uuid4().hex[:16]}"
            send(
                "response.output_item.added",
                {
                    "output_index": idx,
                    "item": {"type": "message", "id": iid, "role": "assistant", "status": "in_progress", "content": []},
                },
            )
            for i in range(0, len(reply.content), 24):
                send(
                    "response.output_text.delta",
                    {"item_id": iid, "output_index": idx, "content_index": 0, "delta": reply.content[i : i + 24]},
                )
            done = {
                "type": "message",
                "id": iid,
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.content, "annotations": []}],
            }
            send("response.output_item.done", {"output_index": idx, "item": done})
            idx += 1
        freeform = {n for n, schema in declared(body).items() if schema.get(CUSTOM)}
        for call in reply.tool_calls:
            if call.name in freeform:
                _custom_call(send, idx, call.name, str(call.args.get("input", "")))
                idx += 1
                continue
            iid = f"fc_{uuid.uuid4().hex[:16]}"
            cid = f"call_{uuid.uuid4().hex[:16]}"
            args = json.dumps(call.args)
            fc = {
                "type": "function_call",
                "id": iid,
                "call_id": cid,
                "name": call.name,
                "arguments": "",
                "status": "in_progress",
            }
            send("response.output_item.added", {"output_index": idx, "item": fc})
            send("response.function_call_arguments.delta", {"item_id": iid, "output_index": idx, "delta": args})
            send(
                "response.output_item.done",
                {"output_index": idx, "item": {**fc, "arguments": args, "status": "completed"}},
            )
            idx += 1
        n_in = 100 + 10 * len(body.get("input") or [])
        n_out = 20 + len(reply.content) // 4
        usage = {
            "input_tokens": n_in,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": n_out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": n_in + n_out,
        }
        send("response.completed", {"response": {**base, "status": "completed", "usage": usage}})
    except (BrokenPipeError, ConnectionResetError):
        return


def _custom_call(send: Callable[[str, dict[str, Any]], None], idx: int, name: str, text: str) -> None:
    """A call of a freeform tool (Codex's `apply_patch`): its raw text input streamed, as the API does."""
    iid = f"ctc_{uuid.uuid4().hex[:16]}"
    item = {"type": "custom_tool_call", "id": iid, "call_id": f"call_{uuid.uuid4().hex[:16]}", "name": name}
    send("response.output_item.added", {"output_index": idx, "item": {**item, "input": "", "status": "in_progress"}})
    send("response.custom_tool_call_input.delta", {"item_id": iid, "output_index": idx, "delta": text})
    send("response.output_item.done", {"output_index": idx, "item": {**item, "input": text, "status": "completed"}})
