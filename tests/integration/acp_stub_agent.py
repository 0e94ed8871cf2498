"""A tiny real ACP agent for the harness's edge cases (no model).

No `loadSession`, a garbage line, a helper that ignores SIGTERM (as Codex's native binary does), and
dying mid-turn. With `STUB_LOAD=1` it loads sessions as Gemini does: it answers `session/load` first
and replays the old turns after the answer (a looping thought, a finished tool call). The prompt `ask`
makes it ask permission for one command, then say the answer and the `STUB_ASKS` it was started with.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator


def send(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def update(sid: str, u: dict[str, object]) -> None:
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": u}})


def ask(sid: str, lines: Iterator[str]) -> None:
    """One command call that asks first: the answer (and the environment's `STUB_ASKS`) go into the reply."""
    call = {"toolCallId": "call-1", "title": "ls", "kind": "execute", "rawInput": {"command": "ls"}}
    update(sid, {"sessionUpdate": "tool_call", "status": "pending", **call})
    options = [
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
    ]
    params = {"sessionId": sid, "toolCall": call, "options": options}
    send({"jsonrpc": "2.0", "id": "ask-1", "method": "session/request_permission", "params": params})
    answer = next(m for m in map(json.loads, lines) if m.get("id") == "ask-1" and "method" not in m)
    outcome = (answer.get("result") or {}).get("outcome") or {}
    chosen = outcome.get("optionId") or outcome.get("outcome")
    status = "completed" if chosen == "allow" else "failed"
    update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": status})
    text = f"answer {chosen} asks {os.environ.get('STUB_ASKS', '')} "
    update(sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})


def main() -> None:
    n = 0
    waiting = None
    lines = iter(sys.stdin)
    for line in lines:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "initialize":
            caps = {"loadSession": True} if os.environ.get("STUB_LOAD") else {}
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": caps}})
        elif method == "session/load" and params.get("sessionId") == "forgotten":  # one it no longer has
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32002, "message": "Resource not found"}})
        elif method == "session/load":
            sid = params["sessionId"]
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
            for i in range(40):  # history, after the answer
                text = "I will check the same field once more, as before.\n"
                update(sid, {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": text}})
                update(
                    sid,
                    {
                        "sessionUpdate": "tool_call",
                        "toolCallId": f"old-{i}",
                        "kind": "execute",
                        "status": "completed",
                        "rawInput": {"command": "cat notes.txt"},
                    },
                )
        elif method == "session/new":
            n += 1
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": f"stub-{os.getpid()}-{n}"}})
        elif method == "session/prompt":
            sid = params["sessionId"]
            text = params["prompt"][0]["text"]
            sys.stdout.write("this is not json\n")
            update(sid, {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "thinking"}})
            if text == "spawn":
                code = (
                    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                    "print('up', flush=True); time.sleep(600)"
                )
                helper = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
                assert helper.stdout is not None
                helper.stdout.readline()
                update(
                    sid,
                    {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": f"helper {helper.pid}"},
                    },
                )
            if text in ("own-session", "own-session-wait"):  # a command in a session of its own, as Codex runs them
                cmd = [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(600)"]
                job = subprocess.Popen(cmd, stdout=subprocess.PIPE, start_new_session=True)
                assert job.stdout is not None
                job.stdout.readline()
                update(
                    sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"job {job.pid}"}}
                )
                if text == "own-session-wait":
                    waiting = rid  # answered `cancelled` when the cancel comes; the job is left running
                    continue
            if text == "ask":
                ask(sid, lines)
            if text == "die":
                sys.exit(3)
            update(sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "done"}})
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        elif method == "session/cancel" and waiting is not None:
            send({"jsonrpc": "2.0", "id": waiting, "result": {"stopReason": "cancelled"}})
            waiting = None
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})


if __name__ == "__main__":
    main()
