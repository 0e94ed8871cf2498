"""Scripted bridge feeds for Pilot and snapshot tests: the messages a real bridge would send."""

from __future__ import annotations

import json
from typing import Any

SID = "session-0000-aaaa-bbbb-demo"
SUB = "session-1111-cccc-dddd-sub"
_seq = [0]


def event(kind: str, data: dict[str, Any], sid: str = SID) -> dict[str, Any]:
    _seq[0] += 1
    return {"t": "event", "sessionId": sid, "event": {"type": kind, "seq": _seq[0], "time": 0, "data": data}}


def ready() -> dict[str, Any]:
    return {"t": "ready", "sessionId": SID, "provider": "mock", "model": "mock-model"}


def turn(n: int, prompt: str, sid: str = SID) -> list[dict[str, Any]]:
    return [
        event("turn/start", {"turn": n}, sid),
        event("step/start", {"turn": n, "step": 1}, sid),
        event("user/message", {"content": [{"type": "text", "text": prompt}], "source": {"kind": "user"}}, sid),
        {"t": "request_start", "sessionId": sid, "turn": n, "step": 1},
    ]


def reasoning(text: str, sid: str = SID, turn: int = 1) -> dict[str, Any]:
    return event(
        "assistant/chunk",
        {"turn": turn, "step": 1, "chunk": {"type": "reasoning-delta", "index": 0, "text": text}},
        sid,
    )


def answer(text: str, sid: str = SID) -> dict[str, Any]:
    return event(
        "assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 1, "text": text}}, sid
    )


def call(
    n: int, name: str, args: dict[str, Any], result: str = "ok", sid: str = SID, is_error: bool = False
) -> list[dict[str, Any]]:
    cid = f"call_{n}"
    return [
        event("tool/call", {"turn": 1, "step": 1, "callId": cid, "name": name, "arguments": json.dumps(args)}, sid),
        {"t": "verdict_request", "id": f"v{n}", "sessionId": sid, "callId": cid, "name": name, "args": args},
        {
            "t": "result_request",
            "id": f"r{n}",
            "sessionId": sid,
            "callId": cid,
            "name": name,
            "args": args,
            "isError": is_error,
            "text": result,
        },
    ]


def call_asked(n: int, name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    cid = f"call_{n}"
    return [
        event("tool/call", {"turn": 1, "step": 1, "callId": cid, "name": name, "arguments": json.dumps(args)}),
        {"t": "verdict_request", "id": f"v{n}", "sessionId": SID, "callId": cid, "name": name, "args": args},
        {
            "t": "approval_request",
            "id": f"a{n}",
            "sessionId": SID,
            "toolName": name,
            "callId": cid,
            "reason": "breaker asks",
        },
    ]


def end(n: int = 1, reason: str = "completed", sid: str = SID) -> dict[str, Any]:
    return event("turn/end", {"turn": n, "reason": {"kind": reason}}, sid)


def tool_loop() -> list[dict[str, Any]]:
    """Four reads allowed, the fifth and sixth denied, then an answer."""
    msgs = [ready(), *turn(1, "Read notes.txt")]
    for i in range(6):
        msgs.append(reasoning(f"I should read notes.txt again (attempt {i + 1}).\n"))
        # what dsh reports for a call the breaker refused: the refusal, as an error (it never ran)
        result, refused = ("The release is Friday.", False) if i < 4 else ("Error: REPEAT_TOOL_BLOCKED", True)
        msgs += call(i, "bash", {"command": "cat notes.txt", "description": f"read {i}"}, result, is_error=refused)
    msgs += [answer("I was stopped from re-reading notes.txt."), end()]
    return msgs


def tool_loop_working() -> list[dict[str, Any]]:
    """The tool loop with its turn still running (no turn end): cancel can act."""
    return tool_loop()[:-1]


LOOP = "I need to verify the adapter accepts this reasoning effort value. Checking it once more.\n"


def reasoning_loop() -> list[dict[str, Any]]:
    """A looping reasoning stream that trips lens A."""
    return [ready(), *turn(1, "Check the adapter"), *[reasoning(LOOP) for _ in range(40)]]


def local_loop(calls: int = 5) -> list[dict[str, Any]]:
    """Four local polls, then a fifth that asks the operator."""
    msgs = [ready(), *turn(1, "Wait for the dev server")]
    for i in range(calls - 1):
        msgs += call(i, "bash", {"command": f"curl -s -w 'code-{i}' -o /dev/null http://127.0.0.1:3000/health"})
    msgs += call_asked(
        calls - 1, "bash", {"command": f"curl -s -w 'code-{calls - 1}' -o /dev/null http://127.0.0.1:3000/health"}
    )
    return msgs


def two_agents() -> list[dict[str, Any]]:
    """A main agent and a subagent, each with its own window."""
    msgs = [ready(), *turn(1, "Delegate")]
    msgs += call(0, "read", {"path": "a.txt"})
    msgs += [{"t": "agent_created", "sessionId": SUB, "depth": 1}, *turn(1, "sub task", SUB)]
    msgs += call(1, "bash", {"command": "ls src"}, sid=SUB)
    return msgs


def view_cycle(passes: int = 6) -> list[dict[str, Any]]:
    """The same four ranges of one file viewed again and again, identical each time (a period-4 cycle)."""
    msgs = [ready(), *turn(1, "Find the bug in a.py")]
    n = 0
    for _ in range(passes):
        for start in (1, 41, 81, 121):
            args = {"file_path": "src/a.py", "offset": start, "limit": 40}
            msgs += call(n, "read", args, f"lines {start}-{start + 39} of a.py: def f{start}(): ...")
            n += 1
    msgs += [answer("I kept looking at the same code."), end()]
    return msgs
