"""Cancel, kill, restart on the same session, and what happens when either side goes away."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from engine import events as ev
from tests.integration.conftest import settings
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.session import Session
from wrapper.items import EngineItem, VerdictItem

pytestmark = pytest.mark.integration


def _ends(run: Any) -> list[str]:
    return [i.event.reason for i in run.of(EngineItem) if isinstance(i.event, ev.TurnEnd)]


async def test_cancel_ends_the_turn_and_the_session_takes_a_new_prompt(run_factory: Any) -> None:
    run = await run_factory("hang")
    before = run.session.turns_done
    assert await run.session.prompt("Think hard")
    await run.until(lambda: any(isinstance(i.event, ev.ReasoningDelta) for i in run.of(EngineItem)), what="reasoning")
    assert await run.session.cancel()
    assert await run.session.wait_turn_end(before, 30)
    assert _ends(run) == ["aborted"]
    await run.turn("Say hello")
    assert _ends(run) == ["aborted", "completed"]


async def test_kill_then_restart_resumes_the_same_session(run_factory: Any) -> None:
    run = await run_factory("normal")
    await run.turn("First question")
    sid = run.session.info.session_id
    info = await run.session.kill()
    assert info is not None and info.code == 130 and info.sent == "SIGINT"
    assert run.status("exited")
    assert await run.session.restart()
    assert await run.session.wait_ready(60)
    ready = run.status("ready")[-1]
    assert ready.data["resumed"] and run.session.info.session_id == sid
    await run.turn("Second question")
    history = run.world.mock.main_requests()[-1]["body"]["messages"]
    users = [str(m.get("content")) for m in history if m.get("role") == "user"]
    assert any("First question" in u for u in users), "the resumed session carries the earlier turn"


class SilentSession(Session):
    """A wrapper that stops answering verdict requests (the bridge must not wait forever)."""

    async def _on_message(self, msg: P.Inbound, raw: dict[str, Any]) -> None:
        if isinstance(msg, P.VerdictRequest):
            return
        await super()._on_message(msg, raw)


async def test_a_silent_wrapper_never_leaves_a_tool_call_hanging(run_factory: Any) -> None:
    run = await run_factory("tool-loop", cfg=settings(verdict_timeout_s=1.0), session_cls=SilentSession)
    await run.turn("Read notes.txt", timeout=90)
    texts = [
        str(m.get("content")) for m in run.world.mock.main_requests()[-1]["body"]["messages"] if m.get("role") == "tool"
    ]
    assert texts and all("no verdict from the monitor" in t and "fail closed" in t for t in texts)
    assert not (run.world.workspace / "calls.log").exists(), "nothing ran without a verdict"


async def test_a_dead_wrapper_channel_makes_dsh_exit_instead_of_lingering(run_factory: Any) -> None:
    run = await run_factory("normal")
    assert run.session.channel is not None
    await run.session.channel.close()  # the wrapper side of the socket goes away
    info = await run.session.wait_exit(20)
    assert info is not None, "dsh kept running with nobody to drive it"


async def test_child_dying_mid_turn_is_reported_and_the_recording_keeps_everything(run_factory: Any) -> None:
    run = await run_factory("hang")
    assert await run.session.prompt("Think hard")
    await run.until(lambda: any(isinstance(i.event, ev.ReasoningDelta) for i in run.of(EngineItem)), what="reasoning")
    pid = run.session.child.pid
    os.killpg(pid, signal.SIGKILL)
    info = await run.session.wait_exit(20)
    assert info is not None and info.signal == signal.SIGKILL and info.sent is None
    assert "killed by signal 9" in run.status("exited")[-1].text
    rec = run.session.recorder.path.read_text()
    assert '"reasoning-delta"' in rec and '"what": "exit"' in rec


async def test_provider_http_500_is_reported(run_factory: Any) -> None:
    run = await run_factory("http-500")
    await run.turn("Say hello")
    assert _ends(run) == ["error"]
    texts = " ".join(i.text for i in run.items if hasattr(i, "kind") and i.kind in ("warning", "error"))
    assert "mock boom" in texts


async def test_the_recording_replays_to_the_same_verdicts(run_factory: Any) -> None:
    from wrapper.harness.dsh.replay import Replayer
    from wrapper.records.sources import load

    run = await run_factory("tool-loop")
    await run.turn("Read notes.txt")
    live = [(v.call_id, v.verdict.kind, [h.fp for h in v.verdict.hits]) for v in run.verdicts()]
    await run.session.quit()
    r = Replayer(load(run.session.recorder.path))
    replayed = [
        (s.item.call_id, s.item.verdict.kind, [h.fp for h in s.item.verdict.hits])
        for s in r.steps()
        if isinstance(s.item, VerdictItem)
    ]
    assert replayed == live and not r.mismatches


class ClosingSession(Session):
    """A wrapper whose side of the channel dies while a tool call waits for its verdict."""

    async def _on_message(self, msg: P.Inbound, raw: dict[str, Any]) -> None:
        if isinstance(msg, P.VerdictRequest) and self.channel is not None:
            await self.channel.close()
            return
        await super()._on_message(msg, raw)


async def test_a_wrapper_dying_mid_call_fails_the_call_closed(run_factory: Any) -> None:
    run = await run_factory("tool-loop", session_cls=ClosingSession)
    assert await run.session.prompt("Read notes.txt")
    info = await run.session.wait_exit(30)
    assert info is not None, "dsh did not hang on the pending verdict"
    assert not (run.world.workspace / "calls.log").exists(), "the waiting call never ran"
