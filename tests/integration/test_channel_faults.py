"""The channel against misbehaving peers: real unix sockets, with the real dsh bridge alongside.

Each test attacks the live channel of a running dsh session and then checks that the real bridge
is untouched: a turn still runs and is still judged.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.channel import Channel
from wrapper.items import StatusItem

pytestmark = pytest.mark.integration


async def _connect(path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.wait_for(asyncio.open_unix_connection(path), 5)


def _texts(run: Any, *kinds: str) -> str:
    return " ".join(i.text for i in run.of(StatusItem) if not kinds or i.kind in kinds)


async def test_connection_without_the_token_is_dropped_and_reported(run_factory: Any) -> None:
    run = await run_factory("normal")
    ch = run.session.channel
    reader, writer = await _connect(str(ch.path))
    writer.write(b'{"t":"hello","token":"guess"}\n{"t":"verdict_request","id":"x","name":"bash"}\n')
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b"", "the impostor is disconnected without an answer"
    await run.until(lambda: ch.stats.rejected == 1, what="the rejection")
    assert "did not present the launch token" in _texts(run, "warning")
    await run.turn("Say hello")  # the real bridge is unaffected


async def test_a_second_hello_with_the_token_is_refused_and_the_bridge_keeps_the_channel(run_factory: Any) -> None:
    run = await run_factory("tool-loop")
    ch = run.session.channel
    reader, writer = await _connect(str(ch.path))
    writer.write(json.dumps({"t": "hello", "token": ch.token, "pid": 4242}).encode() + b"\n")
    writer.write(b'{"t":"verdict_request","id":"imp-1","name":"bash","args":{"command":"rm -rf /"}}\n')
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b"", "the second bridge got no answer"
    assert ch.stats.second_hellos == 1 and ch.is_connected
    assert "refused a second bridge (pid 4242)" in _texts(run, "error")
    await run.turn("Read notes.txt")
    kinds = [v.verdict.kind for v in run.verdicts()]
    assert kinds == ["allow"] * 4 + ["deny", "deny"], "the real bridge's calls are still judged"


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_many_idle_connections_are_capped_timed_out_and_reported_once(run_factory: Any) -> None:
    run = await run_factory("normal")
    ch = run.session.channel
    before = _open_fds()
    conns = []
    for _ in range(300):
        conns.append(await _connect(str(ch.path)))
    await run.until(lambda: ch.stats.rejected >= 300 - ch.max_unauthenticated, what="the flood to be refused")
    assert ch.stats.unauthenticated <= ch.max_unauthenticated
    # our side holds at most the capped peers' sockets (the 300 client ends are this test's own)
    assert _open_fds() - before <= 300 + ch.max_unauthenticated + 4
    await run.until(lambda: ch.stats.unauthenticated == 0, timeout=10, what="the hello timeout to drop the rest")
    flood_notices = [i for i in run.of(StatusItem) if "rejected" in i.text or "refused" in i.text]
    assert 1 <= len(flood_notices) <= 4, f"one notice per kind, not a flood: {len(flood_notices)}"
    for _, w in conns:
        w.close()
    await run.turn("Say hello")
    assert ch.stats.accept_errors == 0


async def test_deep_oversized_and_malformed_lines_never_cost_the_channel(tmp_path: Path) -> None:
    got: list[Any] = []
    notices: list[tuple[str, str]] = []

    async def on_message(msg: P.Inbound, raw: dict[str, Any]) -> None:
        got.append(msg)
        if isinstance(msg, P.VerdictRequest):
            await ch.send(P.Verdict(id=msg.id, kind="allow"))

    async def on_bad(e: P.BadMessage) -> None:
        if e.t == "verdict_request" and e.id:
            await ch.send(P.Verdict(id=e.id, kind="deny", message=f"could not read it: {e}"))

    ch = Channel(on_message, lambda k, t: notices.append((k, t)), 65536, directory=tmp_path, on_bad=on_bad)
    await ch.start()
    try:
        reader, writer = await _connect(str(ch.path))
        writer.write(json.dumps({"t": "hello", "token": ch.token}).encode() + b"\n")
        deep = "[" * 1500 + "]" * 1500
        writer.write(b"this is not json\n")
        writer.write(b'{"t":"no-such-message"}\n')
        writer.write(('{"ts":1,"t":"verdict_request","id":"deep-1","name":"bash","args":' + deep + "}\n").encode())
        writer.write(b'{"ts":1,"t":"event","sessionId":"x","oversized":9000000}\n')
        writer.write(b'{"t":"event","sessionId":"x","event":{"type":"x","pad":"' + b"x" * 70000 + b'"}}\n')
        writer.write(b'{"t":"verdict_request","id":"v1","name":"read","args":' + b"[" * 900 + b"]" * 900 + b"}\n")
        await writer.drain()
        first = json.loads(await asyncio.wait_for(reader.readline(), 5))
        second = json.loads(await asyncio.wait_for(reader.readline(), 5))
        assert first["id"] == "deep-1" and first["kind"] == "deny" and "nested too deeply" in first["message"]
        assert second == {"t": "verdict", "id": "v1", "kind": "allow", "message": ""}
        assert ch.stats.bad_lines == 4 and ch.stats.oversized == 2 and ch.is_connected
        text = " ".join(t for _, t in notices)
        assert "malformed line" in text and "unreadable message" in text
        assert "`max_line_bytes` in [wrapper]" in text and "9,000,000 bytes" in text
        writer.close()
    finally:
        await ch.close()
    assert not ch.path.exists()


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def test_running_out_of_descriptors_backs_off_reports_once_and_recovers(tmp_path: Path) -> None:
    script = Path(__file__).with_name("emfile_channel.py")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        str(tmp_path),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=str(Path(__file__).parents[2]),
    )
    assert proc.stdout is not None and proc.stdin is not None
    lines: list[dict[str, Any]] = []

    async def next_line() -> dict[str, Any]:
        raw = await asyncio.wait_for(proc.stdout.readline(), 20)  # type: ignore[union-attr]
        assert raw, "the channel process ended early"
        lines.append(json.loads(raw))
        return lines[-1]

    try:
        ready = await next_line()
        flood = [await _connect(ready["ready"]) for _ in range(40)]
        cpu0 = _cpu_s(proc.pid)
        await asyncio.sleep(3)
        spent = _cpu_s(proc.pid) - cpu0
        assert spent < 0.5, f"the accept loop spun: {spent:.2f} CPU-s in 3 s"
        for _, w in flood:
            w.close()
        await asyncio.sleep(1.5)  # the back-off is at most 1 s
        reader, writer = await _connect(ready["ready"])
        writer.write(json.dumps({"t": "hello", "token": ready["token"]}).encode() + b"\n")
        writer.write(b'{"t":"verdict_request","id":"v1","name":"read"}\n')
        await writer.drain()
        reply = json.loads(await asyncio.wait_for(reader.readline(), 10))
        assert reply["id"] == "v1" and reply["kind"] == "allow", "the channel recovered"
        writer.close()
        proc.stdin.close()
        while "stats" not in (await next_line()):
            pass
    finally:
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    stats = lines[-1]["stats"]
    assert stats["accept_errors"] >= 1, "descriptors really ran out"
    exhausted = [x for x in lines if "cannot accept" in x.get("notice", "")]
    assert 1 <= len(exhausted) <= 2, exhausted
    assert not (tmp_path / "bridge.sock").exists()


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
