"""The ACP harness with a tiny real agent process: no session loading, garbage, stubborn helpers, sudden death."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine import events as ev
from tests.conftest import wait_until
from tests.integration.acp_helpers import group_gone
from tests.integration.runs import started
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import deny_all
from wrapper.items import EngineItem, Item, StatusItem, VerdictItem
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]
STUB = [sys.executable, str(Path(__file__).with_name("acp_stub_agent.py"))]
_STUB_SETTINGS = Settings(wrapper=WrapperSettings(record=False, kill_grace_s=1))


@pytest.fixture
async def stub(tmp_path: Path) -> AsyncIterator[tuple[AcpSession, list[Item]]]:
    run = await started(AcpSession(STUB, _STUB_SETTINGS, deny_all, cwd=str(tmp_path)), 30)
    yield run.session, run.items
    await run.close()


def answers(items: list[Item]) -> str:
    return "".join(i.event.text for i in items if isinstance(i, EngineItem) and isinstance(i.event, ev.AnswerDelta))


async def test_garbage_from_the_agent_is_shown_not_fatal(stub: tuple[AcpSession, list[Item]]) -> None:
    s, items = stub
    assert await s.prompt("hello")
    assert await s.wait_turn_end(0, 30)
    assert "done" in answers(items)
    assert s.proc is not None and s.proc.bad_lines >= 1


async def test_restart_without_load_session_opens_a_new_session_and_says_so(
    stub: tuple[AcpSession, list[Item]],
) -> None:
    s, items = stub
    first = s.info.session_id
    assert await s.restart()
    assert await s.wait_ready(30)
    assert s.info.session_id != first
    assert any(isinstance(i, StatusItem) and "cannot load a session" in i.text for i in items)
    assert any(isinstance(i, StatusItem) and i.text == "restarting with a new session" for i in items)


async def test_a_helper_that_ignores_sigterm_is_ended_with_the_group(stub: tuple[AcpSession, list[Item]]) -> None:
    s, items = stub
    assert await s.prompt("spawn")
    assert await s.wait_turn_end(0, 30)
    helper = int(answers(items).split("helper ")[1].split("done")[0])
    pgid = s.proc.pgid if s.proc else None
    assert pgid is not None and os.getpgid(helper) == pgid
    await s.kill()
    assert group_gone(pgid), "the stubborn helper outlived the kill"


async def test_an_agent_dying_mid_turn_ends_the_turn_and_reports_the_exit(stub: tuple[AcpSession, list[Item]]) -> None:
    s, items = stub
    assert await s.prompt("die")
    info = await s.wait_exit(30)
    assert info is not None and info.code == 3
    ends = [i.event.reason for i in items if isinstance(i, EngineItem) and isinstance(i.event, ev.TurnEnd)]
    assert ends == ["error"]
    assert any(isinstance(i, StatusItem) and i.kind == "exited" for i in items)


async def test_history_replayed_after_session_load_is_history_never_judged(tmp_path: Path) -> None:
    env = {**os.environ, "STUB_LOAD": "1"}
    run = await started(AcpSession(STUB, _STUB_SETTINGS, deny_all, str(tmp_path), env), 30)
    s, items = run.session, run.items
    try:
        assert await s.restart()
        assert await s.wait_ready(30)
        restarted = len(items)
        assert await s.prompt("hello")
        assert await s.wait_turn_end(0, 30)
        later = items[restarted:]
        said = [i.text for i in later if isinstance(i, StatusItem) and "replayed" in i.text]
        assert said and "80 updates" in said[0], [i for i in later if not isinstance(i, EngineItem)][:12]
        judged = [i for i in later if isinstance(i, VerdictItem)]
        assert judged == [], "a replayed call was judged again"
        thoughts = [i.event.text for i in later if isinstance(i, EngineItem) and isinstance(i.event, ev.ReasoningDelta)]
        assert thoughts == ["thinking"], "the replayed reasoning fed the lenses as a new stream"
    finally:
        await run.close()


def job_of(items: list[Item]) -> int:
    return int(answers(items).split("job ")[1].split("done")[0])


def running(pid: int) -> bool:
    """Whether `pid` is a live process in the process table (a zombie is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


async def test_a_command_in_its_own_session_is_ended_on_kill(stub: tuple[AcpSession, list[Item]]) -> None:
    s, items = stub
    assert await s.prompt("own-session")
    assert await s.wait_turn_end(0, 30)
    job = job_of(items)
    assert s.proc is not None and os.getpgid(job) != s.proc.pgid, "the job is not in the agent's group"
    await wait_until(
        lambda: s.proc is not None and s.proc.descent is not None and any(p[0] == job for p in s.proc.descent.seen),
        10,
        "the job to be seen",
    )
    await s.kill()
    await wait_until(lambda: not running(job), 10, "the job to end with the agent")


async def test_a_command_a_cancelled_turn_left_running_is_ended(stub: tuple[AcpSession, list[Item]]) -> None:
    s, items = stub
    assert await s.prompt("own-session-wait")
    await wait_until(lambda: "job " in answers(items), 30, "the job to start")
    job = job_of(items)
    await wait_until(
        lambda: s.proc is not None and s.proc.descent is not None and any(p[0] == job for p in s.proc.descent.seen),
        10,
        "the job to be seen",
    )
    assert await s.cancel()
    assert await s.wait_turn_end(0, 30)
    await wait_until(lambda: not running(job), 10, "the cancelled turn's job to end")
    assert s.proc is not None and s.proc.running, "the agent itself keeps running"
    assert any(isinstance(i, StatusItem) and "left running" in i.text for i in items)
