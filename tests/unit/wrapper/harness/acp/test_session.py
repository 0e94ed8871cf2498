"""A message sent before the agent's session opens waits for the start, bounded only by the start's own setting.

The first prompt of `--no-tui --prompt` is sent while the agent is still starting. It used to give up after
a fixed minute of its own, shorter than `startup_timeout_s`, so an agent that took 55 s to answer
`initialize` on a loaded machine failed with "not ready for prompts"; and when the start had already
failed, the prompt still waited out its minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from engine import events as ev
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import allow_all, deny_all
from wrapper.items import EngineItem, Item, StatusItem
from wrapper.settings import AcpSettings, Settings, WrapperSettings


@contextlib.asynccontextmanager
async def collected(s: AcpSession) -> AsyncIterator[list[Item]]:
    """The session's items as they come, in a list; the session closed and its iteration ended after."""
    items: list[Item] = []

    async def pump() -> None:
        async for i in s:
            items.append(i)

    task = asyncio.create_task(pump())
    try:
        yield items
    finally:
        await s.close()
        await asyncio.wait_for(task, 30)  # generous: a busy machine


# An agent that reads its stdin and never answers: its `initialize` never completes.
SILENT = [sys.executable, "-c", "import sys\nfor _ in sys.stdin: pass"]


async def test_a_prompt_before_a_failed_start_answers_with_the_start_not_a_clock_of_its_own(tmp_path: Path) -> None:
    settings = Settings(acp=AcpSettings(startup_timeout_s=1), wrapper=WrapperSettings(record=False, kill_grace_s=1))
    s = AcpSession(SILENT, settings, deny_all, cwd=str(tmp_path))
    async with collected(s) as items:
        await s.start()
        # generous: the start gives up after 1 s and ends the agent; the prompt must answer then
        sent = await asyncio.wait_for(s.prompt("hello"), 30)
        assert sent is False
        said = [i.text for i in items if isinstance(i, StatusItem)]
        assert any("startup_timeout_s" in t for t in said), said


# An agent that, as opencode 1.18 does after an edit it was allowed, proposes the edit's new content
# through the client's file system (advertised or not), then says in its answer how that went.
PROPOSER = """
import json, sys
def send(o): sys.stdout.write(json.dumps(o) + "\\n"); sys.stdout.flush()
def answer_to(rid):
    for line in sys.stdin:
        m = json.loads(line)
        if m.get("id") == rid and "method" not in m:
            return m
for line in sys.stdin:
    m = json.loads(line)
    method, rid, p = m.get("method"), m.get("id"), m.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
    elif method == "session/new":
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
    elif method == "session/prompt":
        path = p["prompt"][0]["text"]
        call = {"toolCallId": "c1", "title": path, "kind": "edit", "rawInput": {"filepath": path, "diff": "-a\\n+b\\n"}}
        opts = [{"optionId": "once", "kind": "allow_once", "name": "Allow once"}]
        send({"jsonrpc": "2.0", "id": 100, "method": "session/request_permission",
              "params": {"sessionId": "s1", "toolCall": call, "options": opts}})
        answer_to(100)
        send({"jsonrpc": "2.0", "id": 101, "method": "fs/write_text_file",
              "params": {"sessionId": "s1", "path": path, "content": "b\\n"}})
        how = "refused" if "error" in answer_to(101) else "acknowledged"
        send({"jsonrpc": "2.0", "id": 102, "method": "fs/read_text_file", "params": {"sessionId": "s1", "path": path}})
        read = "refused" if "error" in answer_to(102) else "answered"
        text = f"write {how}, read {read}"
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
              "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}})
        send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
"""


async def test_an_allowed_edit_proposed_through_the_file_system_is_acknowledged_and_nothing_written(
    tmp_path: Path,
) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("a\n")
    settings = Settings(wrapper=WrapperSettings(record=False, kill_grace_s=1))
    s = AcpSession([sys.executable, "-c", PROPOSER], settings, allow_all, cwd=str(tmp_path))
    async with collected(s) as items:
        await s.start()
        assert await s.prompt(str(target))
        assert await s.wait_turn_end(0, 30)
        said = "".join(i.event.text for i in items if isinstance(i, EngineItem) and isinstance(i.event, ev.AnswerDelta))
        assert said == "write acknowledged, read refused", said
        assert target.read_text() == "a\n"  # breaker-tui writes nothing: the agent writes its own files
