"""Gemini `generateContent` / `streamGenerateContent` for the mock model (Gemini CLI).

The same scenarios as the other APIs; thoughts are parts with `thought: true`, tool calls are whole
`functionCall` parts. Gemini CLI also makes JSON-mode side calls (routing, next-speaker checks) and
retries for minutes unless the answer fits their schema, so those get a minimal schema-valid object
(an enum offering `user` picks it, so the CLI hands the turn back instead of continuing on its own).
"""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from wrapper.mock.api import ModelCore, obj, start_stream
from wrapper.mock.scenarios import SCENARIOS, Reply, Turn
from wrapper.mock.tools import FOLLOWUP_MARKER, fit_reply


def describe(body: dict[str, Any]) -> Turn:
    """Reduce a Gemini request to what a scenario needs."""
    contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
    models = sum(1 for c in contents if c.get("role") == "model")
    users: list[str] = []
    tool_texts: list[str] = []
    for i, c in enumerate(contents):
        if c.get("role") != "user":
            continue
        parts = [p for p in c.get("parts") or [] if isinstance(p, dict)]
        text = "\n".join(str(p["text"]) for p in parts if isinstance(p.get("text"), str))
        if text.strip():
            users.append(text)
        if i == len(contents) - 1:
            tool_texts = [
                json.dumps(p["functionResponse"].get("response"))
                for p in parts
                if isinstance(p.get("functionResponse"), dict)
            ]
    return Turn(models, not (users and FOLLOWUP_MARKER in users[-1]), tool_texts, users)


def sample(schema: Any) -> Any:
    """A minimal object valid for a JSON schema (the shapes Gemini CLI's side calls use)."""
    if not isinstance(schema, dict):
        return {}
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    t = str(schema.get("type", "object")).lower()
    if t == "object":
        props = obj(schema, "properties")
        return {k: sample(v) for k, v in props.items()}
    if t == "array":
        return []
    if t in ("number", "integer"):
        # 1, not 0: Gemini CLI's router asks for a score "from 1-100" in the description alone and
        # rejects 0 (a ZodError stack trace on its stderr at every prompt)
        low = schema.get("minimum")
        return low if isinstance(low, (int, float)) else 1
    if t == "boolean":
        return False
    return "mock"


def handle(model: ModelCore, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    """Answer one Gemini request."""
    gen = obj(body, "generationConfig")
    if gen.get("responseMimeType") == "application/json":
        schema = gen.get("responseJsonSchema") or gen.get("responseSchema") or {}
        text = json.dumps(sample(schema))
        reply = Reply(content=text)
    elif not body.get("tools"):
        reply = Reply(content="Mock session title")
    else:
        reply = model.once(fit_reply(SCENARIOS[model.scenario][0](describe(body)), body, model.workspace))
        if reply.status != 200:
            model._json(
                h, reply.status, {"error": {"code": reply.status, "message": reply.error, "status": "INTERNAL"}}
            )
            return
    if ":streamGenerateContent" not in h.path:
        model._json(
            h,
            200,
            {
                "candidates": [_candidate([{"text": reply.content or "ok"}], "STOP")],
                "usageMetadata": _usage(body, reply),
            },
        )
        return
    start_stream(h)

    def send(parts: list[dict[str, Any]], finish: str | None = None, usage: bool = False) -> None:
        chunk: dict[str, Any] = {"candidates": [_candidate(parts, finish)]}
        if usage:
            chunk["usageMetadata"] = _usage(body, reply)
        h.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n")
        h.wfile.flush()
        if reply.delay_ms:
            time.sleep(reply.delay_ms / 1000)

    try:
        if describe(body).thinking or reply.force_reasoning:
            for thought in thoughts(reply.reasoning):
                send([{"text": thought, "thought": True}])
        for i in range(0, len(reply.content), 24):
            send([{"text": reply.content[i : i + 24]}])
        for call in reply.tool_calls:
            send([{"functionCall": {"name": call.name, "args": call.args}}])
        send([{"text": ""}] if not reply.tool_calls else [], "STOP", usage=True)
    except (BrokenPipeError, ConnectionResetError):
        return


THOUGHT_SUBJECT = "Thinking it over"
THOUGHT_CHARS = 160  # a thought part ends at a sentence's end, or at this length (a flood has no sentences)


def thoughts(reasoning: list[str]) -> list[str]:
    """The reasoning as Gemini streams it: whole thoughts, each a bold subject and then its text.

    Gemini CLI reads each thought part on its own (`**subject**` then the description, trimmed) and sends
    ACP `**subject**` + newline + description, so a 40-character piece cut mid-word showed as `****`
    (no subject) and lost the spaces at its ends. The pieces are joined up to a sentence's end.
    """
    out: list[str] = []
    part = ""
    for piece in reasoning:
        part += piece
        if part.rstrip().endswith((".", "!", "?", ":")) or "\n" in piece or len(part) >= THOUGHT_CHARS:
            out.append(f"**{THOUGHT_SUBJECT}**\n\n{part.strip()}")
            part = ""
    if part.strip():
        out.append(f"**{THOUGHT_SUBJECT}**\n\n{part.strip()}")
    return out


def _candidate(parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
    c: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        c["finishReason"] = finish
    return c


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, int]:
    prompt = 100 + 10 * len(body.get("contents") or [])
    out = 20 + len(reply.content) // 4
    return {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}
