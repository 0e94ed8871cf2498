"""Who stopped an ACP agent, and when: the person's stop is never the agent's failure, and a restart starts afresh.

A quit, kill or restart while the agent started (before it answered `initialize`) used to be reported as
"NOT MONITORED: … refused the ACP handshake (initialize: the agent exited before answering)", exit status
3; after a kill and a restart the working session kept that label to its end. The matrix: who stopped it
(the person, or the agent itself) × when (before the handshake's answer, after it), against a real agent
process (`start_agent.py`) whose start each test steers.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.unit.wrapper.harness.acp.test_session import collected
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import deny_all, recording_line
from wrapper.items import Item, StatusItem
from wrapper.records.recorder import Recorder
from wrapper.settings import AcpSettings, Settings, WrapperSettings

AGENT = Path(__file__).with_name("start_agent.py")
AS_ASKED = "stopped before its ACP session opened, as asked"
NOT_MONITORED = "NOT MONITORED"


@dataclass
class Started:
    """A session on the steered agent, and what it said so far."""

    s: AcpSession
    items: list[Item]
    folder: Path

    def said(self) -> str:
        return "\n".join(i.text for i in self.items if isinstance(i, StatusItem))

    def mode(self, mode: str) -> None:
        """What the agent does at its next `initialize`."""
        (self.folder / "mode").write_text(mode)

    def asked(self) -> int:
        """How many `initialize` requests reached the agent (over every launch)."""
        f = self.folder / "asked"
        return len(f.read_text().splitlines()) if f.exists() else 0

    async def handshake_under_way(self, launches: int = 1) -> None:
        await wait_until(lambda: self.asked() == launches, 60, "initialize to reach the agent")

    async def start_ended(self) -> None:
        """Wait until the cut-short start was said one way or the other."""
        await wait_until(lambda: AS_ASKED in self.said() or NOT_MONITORED in self.said(), 60, "the start's end")

    def clean(self) -> None:
        """Nothing says NOT MONITORED: not the stream, not the run's end line."""
        assert NOT_MONITORED not in self.said(), self.said()
        assert self.s.info.run_unmonitored == ""
        assert NOT_MONITORED not in recording_line(self.s)


@contextlib.asynccontextmanager
async def started(tmp_path: Path, mode: str) -> AsyncIterator[Started]:
    """The agent launched with its first `initialize` doing `mode`; the session closed after the test."""
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "mode").write_text(mode)
    settings = Settings(acp=AcpSettings(startup_timeout_s=300), wrapper=WrapperSettings(record=False, kill_grace_s=5))
    recorder = Recorder(tmp_path / "rec.jsonl", {"test": "stops"})
    s = AcpSession([sys.executable, str(AGENT), str(folder)], settings, deny_all, cwd=str(tmp_path), recorder=recorder)
    async with collected(s) as items:
        await s.start()
        yield Started(s, items, folder)


# -- the person stops it ------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["quit", "kill"])
async def test_a_quit_or_kill_before_the_handshake_answer_is_not_the_agents_refusal(how: str, tmp_path: Path) -> None:
    async with started(tmp_path, "hold") as st:
        await st.handshake_under_way()
        await (st.s.quit() if how == "quit" else st.s.kill())
        await st.start_ended()
        assert AS_ASKED in st.said()
        st.clean()


async def test_a_restart_before_the_handshake_answer_gives_a_monitored_session(tmp_path: Path) -> None:
    async with started(tmp_path, "hold") as st:
        await st.handshake_under_way()
        st.mode("answer")
        assert await st.s.restart()
        assert await st.s.wait_ready(60), st.said()
        await st.start_ended()
        assert st.s.info.bridge == "connected" and st.s.info.unmonitored == "", "the status line says ENFORCING"
        st.clean()


async def test_a_kill_before_the_answer_then_a_restart_is_monitored_to_the_end(tmp_path: Path) -> None:
    async with started(tmp_path, "hold") as st:
        await st.handshake_under_way()
        await st.s.kill()
        await st.start_ended()
        st.mode("answer")
        assert await st.s.restart()
        assert await st.s.wait_ready(60), st.said()
        assert st.s.info.bridge == "connected" and st.s.info.unmonitored == ""
        assert await st.s.prompt("hello")
        assert await st.s.wait_turn_end(0, 60)
        await st.s.quit()
        st.clean()


@pytest.mark.parametrize("how", ["quit", "kill", "restart"])
async def test_a_stop_after_the_handshake_is_not_a_failure(how: str, tmp_path: Path) -> None:
    async with started(tmp_path, "answer") as st:
        assert await st.s.wait_ready(60), st.said()
        if how == "restart":
            assert await st.s.restart()
            assert await st.s.wait_ready(60), st.said()
        else:
            await (st.s.quit() if how == "quit" else st.s.kill())
            assert await st.s.wait_exit(30) is not None
        assert AS_ASKED not in st.said()
        st.clean()


# -- the agent stops by itself --------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["exit", "error"])
async def test_an_agent_that_refuses_the_handshake_is_not_monitored(mode: str, tmp_path: Path) -> None:
    async with started(tmp_path, mode) as st:
        await st.start_ended()
        assert f"{NOT_MONITORED}: " in st.said() and "refused the ACP handshake" in st.said()
        assert AS_ASKED not in st.said()
        assert "refused the ACP handshake" in st.s.info.run_unmonitored
        assert f"{NOT_MONITORED}: " in recording_line(st.s), "the end line (and exit status 3) say so"


async def test_after_a_refused_handshake_a_restart_starts_afresh(tmp_path: Path) -> None:
    """The refusing child ran nothing (no session, no prompt): a restart monitored to its end reports clean."""
    async with started(tmp_path, "exit") as st:
        await st.start_ended()
        assert st.s.info.unmonitored
        st.mode("answer")
        assert await st.s.restart()
        assert await st.s.wait_ready(60), st.said()
        assert st.s.info.unmonitored == "" and st.s.info.bridge == "connected", "the status line is the new child's"
        assert st.s.info.run_unmonitored == ""
        assert NOT_MONITORED not in recording_line(st.s)


async def test_an_agent_that_exits_by_itself_after_the_handshake_ends_with_its_own_status(tmp_path: Path) -> None:
    async with started(tmp_path, "answer") as st:
        assert await st.s.wait_ready(60), st.said()
        await st.s.prompt("exit")
        ended = await st.s.wait_exit(30)
        assert ended is not None and ended.code == 5 and ended.sent is None
        st.clean()


async def test_a_channel_closed_mid_session_stays_the_runs_report_after_a_restart(tmp_path: Path) -> None:
    """Once a session was open, the agent may have run calls unseen: the fail-closed report outlives the restart,
    while the status line shows the new child's state.
    """
    async with started(tmp_path, "answer") as st:
        assert await st.s.wait_ready(60), st.said()
        await st.s.prompt("close")
        await wait_until(lambda: NOT_MONITORED in st.said(), 60, "the closed channel to be noticed")
        assert await st.s.wait_exit(30) is not None
        assert await st.s.restart()
        assert await st.s.wait_ready(60), st.said()
        assert st.s.info.unmonitored == "" and st.s.info.bridge == "connected", "the status line is the new child's"
        assert "closed its output" in st.s.info.run_unmonitored
        assert f"{NOT_MONITORED}: " in recording_line(st.s)
