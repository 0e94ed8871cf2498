"""Who stopped dsh, and when: the person's stop is never dsh's failure, and a restart starts the state afresh.

The matrix: who stopped it (the person, or dsh itself) × when (before the bridge's hello, while its runner
starts, once it is ready), with a stand-in dsh (`fake_dsh.py`) under the real pty that speaks the bridge's
side of the real inherited channel, so each start is steered exactly. A kill while the runner started was
shown as an error blaming the profile ("the bridge runner failed: the agents service is not available in
this profile"); a dsh stopped as NOT MONITORED left the session stopping, so after a restart the new dsh
was not held to the hello bound at all, and the status line kept the old child's NOT MONITORED.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.integration.runs import Run, start
from wrapper.harness.base import deny_all, recording_line
from wrapper.harness.dsh.session import Session
from wrapper.items import StatusItem
from wrapper.records.recorder import Recorder
from wrapper.settings import Settings, WrapperSettings

pytestmark = pytest.mark.integration

FAKE = Path(__file__).with_name("fake_dsh.py")
AS_ASKED = "dsh was stopped before its runner was ready, as asked"
BLAMED = "the bridge runner failed"
NOT_MONITORED = "NOT MONITORED"


class Steered:
    """The session on the stand-in dsh, and its folder (`mode` steers the next start)."""

    def __init__(self, run: Run[Session], folder: Path) -> None:
        self.run = run
        self.s = run.session
        self.folder = folder

    def said(self, *kinds: str) -> str:
        return "\n".join(i.text for i in self.run.of(StatusItem) if not kinds or i.kind in kinds)

    def mode(self, mode: str) -> None:
        (self.folder / "mode").write_text(mode)

    def starts(self) -> int:
        f = self.folder / "started"
        return len(f.read_text().splitlines()) if f.exists() else 0

    def clean(self) -> None:
        assert NOT_MONITORED not in self.said(), self.said()
        assert self.s.info.run_unmonitored == ""
        assert NOT_MONITORED not in recording_line(self.s)


@contextlib.asynccontextmanager
async def steered(tmp_path: Path, mode: str, bound: float = 120) -> AsyncIterator[Steered]:
    """The stand-in dsh started as `dsh --profile dev` (a runner), its first start doing `mode`."""
    folder = tmp_path / "dsh"
    folder.mkdir()
    (folder / "mode").write_text(mode)
    launcher = tmp_path / "fake-dsh"
    launcher.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} {folder} "$@"\n')
    launcher.chmod(0o755)
    env = {**os.environ, "BREAKER_TUI_DSH": str(launcher)}
    settings = Settings(wrapper=WrapperSettings(bridge_connect_timeout_s=bound, kill_grace_s=5))
    recorder = Recorder(tmp_path / "rec.jsonl", {"test": "dsh-stops"})
    s = Session(
        ["dsh", "--profile", "dev"], settings, deny_all, cwd=str(tmp_path), env=env, recorder=recorder, runner=True
    )
    run = await start(Run(s), None)
    try:
        yield Steered(run, folder)
    finally:
        await run.close()


# -- the person stops it ------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["kill", "quit"])
async def test_a_stop_while_the_runner_starts_is_said_as_the_persons_not_blamed_on_the_profile(
    how: str, tmp_path: Path
) -> None:
    async with steered(tmp_path, "hello") as st:
        await wait_until(lambda: st.s.info.bridge == "connected", 60, "the hello")
        await (st.s.kill() if how == "kill" else st.s.quit())
        await wait_until(lambda: AS_ASKED in st.said() or BLAMED in st.said(), 60, "the runner's end")
        assert BLAMED not in st.said(), st.said()
        assert AS_ASKED in st.said("notice")
        st.clean()


async def test_a_kill_before_the_hello_is_not_a_failure(tmp_path: Path) -> None:
    async with steered(tmp_path, "silent") as st:
        await wait_until(lambda: st.starts() == 1, 60, "dsh to start")
        await st.s.kill()
        ended = await st.s.wait_exit(30)
        assert ended is not None and ended.sent == "SIGINT"
        st.clean()


async def test_a_kill_once_ready_is_not_a_failure(tmp_path: Path) -> None:
    async with steered(tmp_path, "ready") as st:
        assert await st.s.wait_ready(60), st.said()
        await st.s.kill()
        ended = await st.s.wait_exit(30)
        assert ended is not None and ended.sent == "SIGINT"
        assert AS_ASKED not in st.said() and BLAMED not in st.said()
        st.clean()


# -- dsh stops by itself ----------------------------------------------------------------------------


async def test_dsh_exiting_by_itself_before_its_hello_ends_with_its_own_status(tmp_path: Path) -> None:
    """A runner's agent is started by the bridge: a dsh gone before its hello ran nothing, and says how it ended."""
    async with steered(tmp_path, "exit") as st:
        ended = await st.s.wait_exit(60)
        assert ended is not None and ended.code == 1 and ended.sent is None
        st.clean()


async def test_dsh_exiting_by_itself_once_ready_ends_with_its_own_status(tmp_path: Path) -> None:
    async with steered(tmp_path, "ready") as st:
        assert await st.s.wait_ready(60), st.said()
        assert await st.s.prompt("exit")
        ended = await st.s.wait_exit(60)
        assert ended is not None and ended.code == 7 and ended.sent is None
        st.clean()


async def test_after_a_dsh_that_never_said_hello_a_restarted_one_is_held_to_the_bound_too(tmp_path: Path) -> None:
    async with steered(tmp_path, "silent", bound=2) as st:
        await wait_until(lambda: bool(st.s.info.unmonitored), 60, "the first dsh to be stopped unheard")
        assert await st.s.wait_exit(30) is not None
        assert await st.s.restart()
        assert st.s.info.unmonitored == "", "the status line is the new child's"
        await wait_until(lambda: st.s.info.child == "exited" and st.starts() == 2, 60, "the second dsh stopped")
        assert "did not say hello" in st.s.info.unmonitored
        assert f"{NOT_MONITORED}: " in recording_line(st.s), "the last child was not monitored: exit status 3"


async def test_after_a_dsh_that_never_said_hello_a_restart_that_connects_is_monitored_to_the_end(
    tmp_path: Path,
) -> None:
    async with steered(tmp_path, "silent", bound=2) as st:
        await wait_until(lambda: bool(st.s.info.unmonitored), 60, "the first dsh to be stopped unheard")
        assert await st.s.wait_exit(30) is not None
        st.mode("ready")
        assert await st.s.restart()
        assert await st.s.wait_ready(60), st.said()
        assert st.s.info.unmonitored == "" and st.s.info.bridge == "connected", "the status line says ENFORCING"
        # a runner's agent is started by the bridge: the first dsh, never heard, ran nothing
        assert st.s.info.run_unmonitored == ""
        assert NOT_MONITORED not in recording_line(st.s)


async def test_a_turn_the_quit_cuts_short_is_counted_on_the_end_line(tmp_path: Path) -> None:
    """Quitting while turn 1 ran (the approval modal open, 4 calls run) printed `0 turn(s)`."""
    async with steered(tmp_path, "ready") as st:
        assert await st.s.wait_ready(60)
        assert await st.s.prompt("work")
        await wait_until(lambda: st.s.info.turn == 1, 60, "turn 1 under way")
        await st.s.quit()
        assert "1 turn(s) (1 cut short), " in recording_line(st.s), recording_line(st.s)
