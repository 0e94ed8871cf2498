"""The server's pending asks: a local repeat the engine asks about waits for a watch's answer, or is refused.

A real `serve` (in this process, on a temporary unix socket) with real sessions; the hook side speaks the
socket's protocol, the watch side is `AskLink`, the connection `breaker-tui watch` keeps open.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from wrapper.hooks import health
from wrapper.hooks.asks import Ask, Asks
from wrapper.hooks.metrics import Metrics
from wrapper.hooks.server import serve
from wrapper.hooks.sessions import Sessions
from wrapper.hooks.watching import AskLink
from wrapper.settings import Settings

WAIT = 60.0  # a bound for conditions, never reached when things work


def curl(n: int) -> str:
    return f"curl -s -w 'code-{n}' -o /dev/null http://127.0.0.1:3000/p"


def pre(agent: str, n: int) -> dict[str, Any]:
    tool = "run_shell_command" if agent == "gemini" else "Bash"
    event = "BeforeTool" if agent == "gemini" else "PreToolUse"
    p = {"session_id": "s-1", "hook_event_name": event, "tool_name": tool, "tool_input": {"command": curl(n)}}
    return p if agent == "gemini" else {**p, "tool_use_id": f"t{n}"}


class Served:
    """A server on a short temporary socket, and the hook's side of its protocol."""

    def __init__(self, sock: Path, asks: Asks) -> None:
        self.sock = sock
        self.asks = asks

    async def hook(self, agent: str, payload: dict[str, Any]) -> dict[str, Any]:
        reader, writer = await asyncio.open_unix_connection(str(self.sock))
        writer.write(json.dumps({"agent": agent}).encode() + b"\n" + json.dumps(payload).encode())
        writer.write_eof()
        line = await asyncio.wait_for(reader.readline(), WAIT)
        writer.close()
        reply: dict[str, Any] = json.loads(line)
        return reply

    async def four_then_ask(self, agent: str) -> asyncio.Task[dict[str, Any]]:
        """Four local calls run; the fifth (a local repeat) is sent and left waiting for its verdict."""
        for n in range(4):
            assert (await self.hook(agent, pre(agent, n)))["kind"] == "allow"
        return asyncio.create_task(self.hook(agent, pre(agent, 4)))


@pytest.fixture
async def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Served]:
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path / "state"))
    sock = Path(tempfile.mkdtemp(prefix="bka-", dir="/tmp")) / "serve.sock"
    monkeypatch.setenv("BREAKER_TUI_RUN_DIR", str(sock.parent))  # where `hooks status` looks for the server
    asks = Asks(wait_s=WAIT)
    task = asyncio.create_task(serve(Sessions(Settings()), sock, 3600.0, asks=asks))
    while not sock.exists():
        assert not task.done(), task.exception()
        await asyncio.sleep(0.01)
    try:
        yield Served(sock, asks)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        shutil.rmtree(sock.parent, ignore_errors=True)


async def watch(sock: Path) -> tuple[AskLink, AsyncIterator[list[dict[str, Any]]]]:
    """A watch connected and counted by the server (its first list of asks, empty, has come)."""
    link = AskLink(str(sock))
    await link.open()
    updates = link.updates()
    assert await next_asks(updates, 0) == []
    return link, updates


async def next_asks(updates: AsyncIterator[list[dict[str, Any]]], want: int) -> list[dict[str, Any]]:
    while True:
        asks = await asyncio.wait_for(anext(updates), WAIT)
        if len(asks) == want:
            return asks


@pytest.mark.parametrize("agent", ["gemini", "codex", "claude"])
async def test_a_watch_that_allows_an_ask_lets_the_call_run(served: Served, agent: str) -> None:
    link, updates = await watch(served.sock)
    fifth = await served.four_then_ask(agent)
    (ask,) = await next_asks(updates, 1)
    assert ask["agent"] == agent and ask["session"] == "s-1" and ask["tool"] == "bash"
    assert ask["args"] == {"command": curl(4)} and "LOCAL address" in ask["reason"] and ask["rule"] == "repeat:net"
    assert await link.answer(ask["id"], "allow-once")
    assert (await fifth)["kind"] == "allow"
    assert await next_asks(updates, 0) == []
    link.close()


async def test_a_watch_that_declines_refuses_the_call_and_says_the_user_declined(served: Served) -> None:
    link, updates = await watch(served.sock)
    fifth = await served.four_then_ask("gemini")
    (ask,) = await next_asks(updates, 1)
    await link.answer(ask["id"], "deny")
    got = await fifth
    assert got["kind"] == "deny" and "declined it in breaker-tui watch" in got["reason"]
    link.close()


@pytest.mark.parametrize("agent", ["gemini", "codex"])
async def test_no_answer_within_the_bound_refuses_with_a_reason(served: Served, agent: str) -> None:
    served.asks.wait_s = 0.2
    link, _ = await watch(served.sock)
    got = await (await served.four_then_ask(agent))
    assert got["kind"] == "deny"
    assert "no one answered in 0.2 s; start `breaker-tui watch` to answer asks" in got["reason"]
    assert "rule repeat:net" in got["reason"]
    link.close()


async def test_claude_unanswered_gets_its_own_prompt(served: Served) -> None:
    served.asks.wait_s = 0.2
    link, _ = await watch(served.sock)
    got = await (await served.four_then_ask("claude"))
    assert got["kind"] == "ask" and "no one answered" in got["reason"]
    link.close()


@pytest.mark.parametrize(("agent", "kind"), [("gemini", "deny"), ("codex", "deny"), ("claude", "ask")])
async def test_with_no_watch_running_nothing_waits(served: Served, agent: str, kind: str) -> None:
    got = await (await served.four_then_ask(agent))
    assert got["kind"] == kind and "no `breaker-tui watch` was running" in got["reason"]
    assert not served.asks.pending


async def test_an_answer_comes_only_once_and_only_for_a_pending_ask() -> None:
    asks = Asks(wait_s=WAIT)
    held = asyncio.create_task(asks.hold(Ask("codex", "s", "c1", "bash", {}, "why", "repeat:net")))
    while not asks.pending:
        await asyncio.sleep(0)
    (ask_id,) = asks.pending
    assert not asks.answer(ask_id, "maybe")  # not an answer
    assert not asks.answer("a-unknown", "allow-once")
    assert asks.answer(ask_id, "allow-turn")
    assert not asks.answer(ask_id, "deny")  # the first answer won
    assert await held == "allow-turn" and not asks.pending


async def test_a_timed_out_ask_is_gone_and_a_late_answer_is_refused() -> None:
    asks = Asks(wait_s=0.05)
    assert await asks.hold(Ask("gemini", "s", "c1", "bash", {}, "why", "repeat:net")) is None
    assert not asks.pending and not asks.answer("a1", "allow-once")


async def test_the_time_a_person_takes_is_not_counted_as_the_servers_latency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path / "state"))
    sock = Path(tempfile.mkdtemp(prefix="bka-", dir="/tmp")) / "s.sock"
    metrics = Metrics()
    asks = Asks(wait_s=6.0)  # past the 5 s bucket: the wait, counted, would land above it
    task = asyncio.create_task(serve(Sessions(Settings()), sock, 3600.0, metrics, asks))
    try:
        while not sock.exists():
            await asyncio.sleep(0.01)
        link, _ = await watch(sock)  # connected, never answering: the ask waits its whole bound
        got = await (await Served(sock, asks).four_then_ask("codex"))
        assert got["kind"] == "deny" and "no one answered in 6 s" in got["reason"]
        link.close()
        total = metrics.registry.get_sample_value("breaker_tui_hook_latency_seconds_count", {"agent": "codex"})
        within = metrics.registry.get_sample_value(
            "breaker_tui_hook_latency_seconds_bucket", {"agent": "codex", "le": "5.0"}
        )
        assert total == 5 and within == 5
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        shutil.rmtree(sock.parent, ignore_errors=True)


async def test_hooks_status_says_whether_a_watch_answers_the_asks(served: Served) -> None:
    _, said = await asyncio.to_thread(health.server)  # a blocking client: not on the server's own loop
    assert said.startswith("running") and "no `breaker-tui watch` runs, so asks are refused" in said
    link, _ = await watch(served.sock)
    _, said = await asyncio.to_thread(health.server)
    assert "a `breaker-tui watch` answers asks (0 waiting)" in said
    link.close()


@pytest.mark.parametrize(("agent", "kind"), [("gemini", "deny"), ("codex", "deny"), ("claude", "ask")])
async def test_an_ask_left_by_the_last_watch_is_settled_then_not_at_its_bound(
    served: Served, agent: str, kind: str
) -> None:
    """No one can answer once the last watch quits: the call gets its answer then, saying so (the bound is 60 s)."""
    link, updates = await watch(served.sock)
    fifth = await served.four_then_ask(agent)
    await next_asks(updates, 1)
    link.close()
    got = await asyncio.wait_for(fifth, WAIT)
    assert got["kind"] == kind and "closed before anyone answered" in got["reason"], got


async def test_an_ask_stays_while_another_watch_is_there_to_answer_it(served: Served) -> None:
    first, updates = await watch(served.sock)
    second, more = await watch(served.sock)
    fifth = await served.four_then_ask("codex")
    await next_asks(updates, 1)
    (ask,) = await next_asks(more, 1)
    first.close()  # the second watch is still there: the ask waits for it
    assert await second.answer(ask["id"], "allow-once")
    assert (await fifth)["kind"] == "allow"
    second.close()


@pytest.mark.parametrize("agent", ["gemini", "codex", "claude"])
async def test_an_ask_whose_hook_is_gone_leaves_the_watch_and_is_recorded_unrun(
    served: Served, tmp_path: Path, agent: str
) -> None:
    """The person interrupts the agent while its call waits (the hook process is killed): nobody waits for the
    answer any more, so the ask is not left in the watch for its whole bound (here longer than the test waits).
    """
    served.asks.wait_s = 10 * WAIT
    link, updates = await watch(served.sock)
    for n in range(4):
        assert (await served.hook(agent, pre(agent, n)))["kind"] == "allow"
    _, writer = await asyncio.open_unix_connection(str(served.sock))
    writer.write(json.dumps({"agent": agent}).encode() + b"\n" + json.dumps(pre(agent, 4)).encode())
    writer.write_eof()
    await next_asks(updates, 1)
    writer.close()  # the hook is gone: its end of the connection closes
    assert await next_asks(updates, 0) == []
    link.close()
    (rec,) = (tmp_path / "state").glob("**/*hook-*.jsonl")
    said = [json.loads(line) for line in rec.read_text().splitlines()]
    (answer,) = [r for r in said if r.get("t") == "approval_response"]
    assert answer["by"] == "nobody" and "stopped waiting" in answer["why"], answer
