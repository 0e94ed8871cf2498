"""The channel against misbehaving peers: real socketpairs, with the real dsh bridge alongside.

There is no socket path any more (the bridge inherits its end of a socketpair), so nobody can
connect from outside; what is left to attack is the line stream itself and the hello, which must
come from the pid the monitor launched, holding the other end.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest

from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.channel import Channel
from wrapper.items import StatusItem

pytestmark = pytest.mark.integration


def _texts(run: Any, *kinds: str) -> str:
    return " ".join(i.text for i in run.of(StatusItem) if not kinds or i.kind in kinds)


async def _as_bridge(ch: Channel, pid: int | None = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Play the launched child: keep a copy of its end, then tell the channel the child is `pid` (us)."""
    launch = ch.new_launch()
    mine = launch.child_end.dup()
    ch.launched(launch, os.getpid() if pid is None else pid)
    return await asyncio.open_unix_connection(sock=mine)


async def test_the_run_directory_holds_no_socket_and_the_child_holds_its_end(run_factory: Any) -> None:
    run = await run_factory("normal")
    s = run.session
    assert s.rundir is not None and not list(s.rundir.path.rglob("*.sock")), "nothing to connect to"
    assert s.channel is not None and s.channel.launch is not None
    assert s.channel.launch.child_end.fileno() == -1, "the monitor closed its copy of the child's end"
    hello = [i for i in run.of(StatusItem) if i.kind == "bridge"]
    assert hello and f"dsh pid {s.child.pid}" in hello[0].text
    await run.turn("Say hello")


async def test_a_hello_from_another_pid_is_refused_and_reported() -> None:
    notices: list[tuple[str, str]] = []

    async def on_message(msg: P.Inbound, raw: dict[str, Any]) -> None:
        raise AssertionError(f"nothing may be delivered: {msg}")

    ch = Channel(on_message, lambda k, t: notices.append((k, t)))
    try:
        reader, writer = await _as_bridge(ch, pid=os.getpid() + 100000)
        writer.write(json.dumps({"t": "hello", "pid": os.getpid()}).encode() + b"\n")
        writer.write(b'{"t":"verdict_request","id":"imp-1","name":"bash"}\n')
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 5) == b"", "dropped without an answer"
        assert ch.stats.rejected == 1 and not ch.is_connected
        assert any(k == "error" and "not the dsh breaker-tui started" in t for k, t in notices), notices
        writer.close()
    finally:
        await ch.close()


async def test_deep_oversized_malformed_lines_and_a_second_hello_never_cost_the_channel() -> None:
    got: list[Any] = []
    notices: list[tuple[str, str]] = []

    async def on_message(msg: P.Inbound, raw: dict[str, Any]) -> None:
        got.append(msg)
        if isinstance(msg, P.VerdictRequest):
            await ch.send(P.Verdict(id=msg.id, kind="allow"))

    async def on_bad(e: P.BadMessage) -> None:
        if e.t == "verdict_request" and e.id:
            await ch.send(P.Verdict(id=e.id, kind="deny", message=f"could not read it: {e}"))

    ch = Channel(on_message, lambda k, t: notices.append((k, t)), 65536, on_bad=on_bad)
    try:
        reader, writer = await _as_bridge(ch)
        writer.write(json.dumps({"t": "hello", "pid": os.getpid()}).encode() + b"\n")
        deep = "[" * 1500 + "]" * 1500
        writer.write(b"this is not json\n")
        writer.write(b'{"t":"no-such-message"}\n')
        writer.write(('{"ts":1,"t":"verdict_request","id":"deep-1","name":"bash","args":' + deep + "}\n").encode())
        writer.write(b'{"ts":1,"t":"event","sessionId":"x","oversized":9000000}\n')
        writer.write(b'{"t":"event","sessionId":"x","event":{"type":"x","pad":"' + b"x" * 70000 + b'"}}\n')
        writer.write(json.dumps({"t": "hello", "pid": 4242}).encode() + b"\n")
        writer.write(b'{"t":"verdict_request","id":"v1","name":"read","args":' + b"[" * 900 + b"]" * 900 + b"}\n")
        await writer.drain()
        first = json.loads(await asyncio.wait_for(reader.readline(), 5))
        second = json.loads(await asyncio.wait_for(reader.readline(), 5))
        assert first["id"] == "deep-1" and first["kind"] == "deny" and "nested too deeply" in first["message"]
        assert second == {"t": "verdict", "id": "v1", "kind": "allow", "message": ""}
        assert ch.stats.bad_lines == 4 and ch.stats.oversized == 2 and ch.is_connected
        assert ch.stats.second_hellos == 1
        text = " ".join(t for _, t in notices)
        assert "malformed line" in text and "unreadable message" in text and "second hello" in text
        assert "`max_line_bytes` in [wrapper]" in text and "9,000,000 bytes" in text
        writer.close()
    finally:
        await ch.close()


class _RawArgs(dict[str, Any]):
    """Tool-call arguments the mock sends as this exact JSON text (Python's encoder stops near 1,000 deep)."""

    raw = '{"command": "echo deep", "description": "Deep", "context": ' + "[" * 1500 + "1" + "]" * 1500 + "}"


class _JsonShim:
    """The mock model's `json`, except that `_RawArgs` are written as their raw text."""

    loads = staticmethod(json.loads)

    @staticmethod
    def dumps(obj: Any, **kw: Any) -> str:
        return obj.raw if isinstance(obj, _RawArgs) else json.dumps(obj, **kw)


def _deep_then_normal(turn: Any) -> Any:
    from wrapper.mock.scenarios import Reply, ToolCallSpec

    if turn.index == 0:
        # the dict view holds the raw text's top-level keys, so the mock sends the call as written
        deep = _RawArgs(command="echo deep", description="Deep", context=[])
        return Reply(reasoning=["Nesting."], tool_calls=[ToolCallSpec("bash", deep)])
    if turn.index == 1:
        args = {"command": "echo after >> after.log", "description": "After"}
        return Reply(reasoning=["Again."], tool_calls=[ToolCallSpec("bash", args)])
    return Reply(content="done")


async def test_a_1500_deep_argument_from_the_model_does_not_drop_the_bridge(
    run_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wrapper.mock import scenarios
    from wrapper.mock import server as mockllm

    monkeypatch.setitem(scenarios.SCENARIOS, "deep", (_deep_then_normal, "Go.", "test only"))
    monkeypatch.setattr(mockllm, "json", _JsonShim)
    monkeypatch.setattr(mockllm, "fit_reply", lambda reply, body, workspace="": reply)  # send it as written
    run = await run_factory("deep")
    ch = run.session.channel
    await run.turn("Go", timeout=60)
    assert "denied a tool call breaker-tui could not read" in _texts(run, "warning")
    assert [v.verdict.kind for v in run.verdicts()] == ["allow"], "the call after it is judged as usual"
    assert (run.world.workspace / "after.log").read_text() == "after\n"
    assert ch.is_connected and ch.stats.connections == 1 and ch.stats.bad_lines >= 1
    texts = [
        str(m.get("content")) for m in run.world.mock.main_requests()[-1]["body"]["messages"] if m.get("role") == "tool"
    ]
    assert "could not read this tool call" in texts[0] and "fail closed" in texts[0]
