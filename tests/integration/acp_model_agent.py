"""A small real ACP agent that asks the mock model what to do: the dummy agent of the declaration test.

It speaks ACP on stdin and stdout (initialize, session/new, session/prompt, session/cancel), sends each
step of a turn to an OpenAI-compatible chat-completions endpoint (`DUMMY_MODEL_URL`, the mock model) with
one `bash` tool, streams the model's reasoning and text back as session updates, and runs the tool calls
it gets in the session's folder. With `DUMMY_ASKS` in its environment (what its declaration's `ask_setup`
puts there) it asks permission before each call and runs only what was allowed; without it, it runs
everything, as an agent in a mode that never asks. Standard library only: it runs with any Python 3.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from typing import Any

URL = os.environ.get("DUMMY_MODEL_URL", "http://127.0.0.1:9/v1")
MODEL = os.environ.get("DUMMY_MODEL", "mock-model")
MAX_STEPS = 20  # a model that never stops calling tools still ends the turn
BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a shell command in the session's folder",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
            "required": ["command"],
        },
    },
}
OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]
# the mock model is on 127.0.0.1: a proxy from the environment must not be asked for it
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def send(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def update(sid: str, u: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": u}})


def stream(messages: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The deltas of one streamed chat completion."""
    body = {"model": MODEL, "stream": True, "messages": messages, "tools": [BASH]}
    req = urllib.request.Request(
        f"{URL}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer sk-mock"},
    )
    with OPENER.open(req, timeout=120) as resp:
        for raw in resp:
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith("data: ") and line != "data: [DONE]":
                for choice in json.loads(line[6:]).get("choices") or []:
                    yield choice.get("delta") or {}


class Agent:
    """One agent process: its sessions' conversations, and the messages that arrived while it waited."""

    def __init__(self) -> None:
        self.lines = iter(sys.stdin)
        self.backlog: list[dict[str, Any]] = []
        self.sessions: dict[str, tuple[str, list[dict[str, Any]]]] = {}  # id -> (folder, messages)
        self.cancelled = False
        self.asked = 0

    def incoming(self) -> Iterator[dict[str, Any]]:
        while True:
            if self.backlog:
                yield self.backlog.pop(0)
                continue
            line = next(self.lines, None)
            if line is None:
                return
            if line.strip():
                yield json.loads(line)

    def ask(self, params: dict[str, Any]) -> dict[str, Any]:
        """A request to the client, and its answer; what arrives meanwhile waits in the backlog."""
        self.asked += 1
        rid = f"ask-{self.asked}"
        send({"jsonrpc": "2.0", "id": rid, "method": "session/request_permission", "params": params})
        for line in self.lines:
            if not line.strip():
                continue
            msg = json.loads(line)
            if msg.get("id") == rid and "method" not in msg:
                return dict(msg.get("result") or {})
            if msg.get("method") == "session/cancel":
                self.cancelled = True
            else:
                self.backlog.append(msg)
        return {}

    def serve(self) -> None:
        for msg in self.incoming():
            method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
            if method == "session/cancel":
                self.cancelled = True
            elif method == "initialize":
                send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
            elif method == "session/new":
                sid = f"dummy-session-{len(self.sessions) + 1}"
                self.sessions[sid] = (str(params.get("cwd") or os.getcwd()), [])
                send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": sid}})
            elif method == "session/prompt":
                stop = self.turn(str(params.get("sessionId")), params.get("prompt") or [])
                send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": stop}})
            elif rid is not None and method is not None:
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})

    def turn(self, sid: str, prompt: list[dict[str, Any]]) -> str:
        """Model steps until it answers without a tool call; every call it makes is run (or refused)."""
        cwd, messages = self.sessions[sid]
        text = "\n".join(str(b.get("text", "")) for b in prompt if isinstance(b, dict))
        messages.append({"role": "user", "content": text})
        self.cancelled = False
        for _ in range(MAX_STEPS):
            said, calls = self.step(sid, messages)
            messages.append({"role": "assistant", "content": said, **({"tool_calls": calls} if calls else {})})
            if not calls:
                return "end_turn"
            for call in calls:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": self.run(sid, cwd, call)})
            if self.cancelled:
                return "cancelled"
        return "max_turn_requests"

    def step(self, sid: str, messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
        """One streamed completion: its text and its tool calls, the text and reasoning shown as they come."""
        said: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        for delta in stream(messages):
            if delta.get("reasoning_content"):
                content = {"type": "text", "text": delta["reasoning_content"]}
                update(sid, {"sessionUpdate": "agent_thought_chunk", "content": content})
            if delta.get("content"):
                said.append(delta["content"])
                update(sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": said[-1]}})
            for tc in delta.get("tool_calls") or []:
                call = calls.setdefault(int(tc.get("index", 0)), {"type": "function", "function": {"arguments": ""}})
                call["id"] = tc.get("id") or call.get("id")
                fn = tc.get("function") or {}
                call["function"]["name"] = fn.get("name") or call["function"].get("name")
                call["function"]["arguments"] += fn.get("arguments") or ""
        return "".join(said), [calls[i] for i in sorted(calls)]

    def run(self, sid: str, cwd: str, call: dict[str, Any]) -> str:
        """Run one tool call (after asking, when told to ask); what the model reads as its result."""
        args = json.loads(call["function"]["arguments"] or "{}")
        command = str(args.get("command", ""))
        shown = {"toolCallId": call["id"], "title": command, "kind": "execute", "rawInput": args}
        update(sid, {"sessionUpdate": "tool_call", "status": "pending", **shown})
        if os.environ.get("DUMMY_ASKS"):
            answer = self.ask({"sessionId": sid, "toolCall": shown, "options": OPTIONS})
            if (answer.get("outcome") or {}).get("optionId") != "allow":
                update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": call["id"], "status": "failed"})
                return "The user refused to run this command."
        update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": call["id"], "status": "in_progress"})
        done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=60)
        out = done.stdout + done.stderr
        update(
            sid,
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call["id"],
                "status": "completed" if done.returncode == 0 else "failed",
                "content": [{"type": "content", "content": {"type": "text", "text": out}}],
                "rawOutput": {"output": out, "exit_code": done.returncode},
            },
        )
        return out


if __name__ == "__main__":
    Agent().serve()
