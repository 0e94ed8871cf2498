"""Each agent's hook payloads read into the engine's terms: the call about to run, or its result.

Pure functions, no engine import; the server uses them (the hook process does not parse payloads).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from wrapper.hooks.agents import AFTER, BEFORE, MAX_PAYLOAD, SHELL_TOOL, BadPayload, check_agent

_CLAUDE_EXIT = re.compile(r"\AExit code (-?\d+)")
_GEMINI_EXIT = re.compile(r"^Exit Code: (-?\d+)\s*$", re.M)


@dataclass(frozen=True)
class Call:
    """One hook payload in the engine's terms: a call about to run (`before`) or its result (`after`)."""

    agent: str
    phase: Literal["before", "after"]
    session: str
    call_id: str  # the agent's tool-use id; "" when it gives none (Gemini): the server pairs by content
    tool: str  # the engine's name: "bash" for each agent's shell tool
    args: Any
    text: str = ""
    exit: int | None = None
    turn: str = ""  # the person's prompt this call answers (Claude `prompt_id`, Codex `turn_id`); "" unknown
    cwd: str = ""  # the agent's project folder, as its payload says it (for `watch`)


def parse(agent: str, raw: bytes) -> Call:
    """A payload read from the agent's hook stdin, as a Call; BadPayload says what is wrong with it."""
    check_agent(agent)
    if len(raw) > MAX_PAYLOAD:
        raise BadPayload(f"the payload is {len(raw):,} bytes, over the {MAX_PAYLOAD:,}-byte limit")
    try:
        p = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise BadPayload(f"the payload is not JSON ({type(e).__name__}: {str(e)[:120]})") from None
    if not isinstance(p, dict):
        raise BadPayload(f"the payload is a JSON {type(p).__name__}, not an object")
    event = p.get("hook_event_name")
    if event in BEFORE[agent]:
        phase: Literal["before", "after"] = "before"
    elif event in AFTER[agent]:
        phase = "after"
    else:
        known = ", ".join(BEFORE[agent] + AFTER[agent])
        raise BadPayload(f"hook_event_name {event!r} is not one breaker handles for {agent} ({known})")
    name = p.get("tool_name")
    if not isinstance(name, str) or not name:
        raise BadPayload(f"the {event} payload has no tool_name")
    tool, args = engine_call(agent, name, p.get("tool_input"))
    session = p.get("session_id")
    call_id = p.get("tool_use_id")
    turn = p.get("prompt_id") or p.get("turn_id") or ""
    cwd = str(p["cwd"]) if isinstance(p.get("cwd"), str) else ""
    call = Call(agent, phase, str(session or "default"), str(call_id or ""), tool, args, turn=str(turn), cwd=cwd)
    if phase == "before":
        return call
    text, code = result_of(agent, event, p)
    return Call(call.agent, "after", call.session, call.call_id, tool, args, text, code, call.turn, cwd)


def engine_call(agent: str, name: str, tool_input: Any) -> tuple[str, Any]:
    """The engine's tool name and arguments: a shell call is ("bash", {"command": ...}) as for every harness.

    The model's own `description` is left out: it is not what runs, and a reworded description must
    not hide a repeat.
    """
    if name == SHELL_TOOL[agent] and isinstance(tool_input, dict) and isinstance(tool_input.get("command"), str):
        return "bash", {"command": tool_input["command"]}
    return name, tool_input if tool_input is not None else {}


def result_of(agent: str, event: str, p: dict[str, Any]) -> tuple[str, int | None]:
    """What the call gave back as text, and its exit status when the agent says it (each says it its own way)."""
    if agent == "claude" and event == "PostToolUseFailure":
        err = str(p.get("error") or "")
        m = _CLAUDE_EXIT.match(err)
        return (err[m.end() :].lstrip("\n") if m else err), (int(m.group(1)) if m else 1)
    r = p.get("tool_response")
    if agent == "claude":
        if isinstance(r, dict):
            parts = [str(r.get(k) or "") for k in ("stdout", "stderr")]
            return "\n".join(s for s in parts if s), 0
        return _text(r), 0
    if agent == "gemini" and isinstance(r, dict):
        content = _text(r.get("llmContent"))
        m = _GEMINI_EXIT.search(content)
        code = int(m.group(1)) if m else (1 if r.get("error") else None)
        return content, code
    return _text(r), None  # Codex: one output string, no exit status


def _text(v: Any) -> str:
    if v is None:
        return ""
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
