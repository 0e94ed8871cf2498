"""The rules that let a TUI whose terminal went away end cleanly, one at a time.

The whole path, with a real tmux pane and the real dsh, is in `tests/integration/test_terminal_gone.py`.
"""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.app import App

from tests.conftest import wait_until
from tui.terminal import GuardedWriter, TerminalDriver, TerminalGone
from wrapper import signals


class DeadTerminal:
    """What stdout becomes once the tty hangs up: every write and flush fails with EIO."""

    def __init__(self) -> None:
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        raise OSError(errno.EIO, "Input/output error")

    def flush(self) -> None:
        raise OSError(errno.EIO, "Input/output error")

    def fileno(self) -> int:
        return 2


def test_writes_to_a_dead_terminal_never_block_the_writer() -> None:
    """Textual's writer ends on the first EIO, and its 30-slot queue then blocks the event loop for good."""
    gone: list[str] = []
    out = DeadTerminal()
    writer = GuardedWriter(out, gone.append)  # type: ignore[arg-type]  # a file-like stand-in
    writer.start()
    done = threading.Event()

    def repaint() -> None:
        for n in range(500):  # far more than the queue holds
            writer.write(f"frame {n}")
        done.set()

    painter = threading.Thread(target=repaint, daemon=True)
    painter.start()
    assert done.wait(60), "a write blocked on the dead terminal"
    writer.stop()
    assert not writer.is_alive()
    assert len(gone) == 1 and "EIO" not in gone[0] and "failed" in gone[0]
    assert out.writes == 1, "nothing is written after the first failure"


def test_stop_after_the_writer_ended_returns() -> None:
    writer = GuardedWriter(DeadTerminal(), lambda why: None)  # type: ignore[arg-type]
    writer.start()
    writer.stop()
    writer.stop()  # Textual's `close` may stop it again: nothing waits for a thread that is gone
    assert not writer.is_alive()


@pytest.fixture
async def driver() -> AsyncIterator[TerminalDriver]:
    """A driver for an app that is not running; Textual's SIGTSTP/SIGCONT handlers are put back after."""
    before = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT)}
    d = TerminalDriver(App())
    yield d
    d.close()
    for s, h in before.items():
        signal.signal(s, h)


async def test_a_sigcont_that_no_sigtstp_came_before_resumes_nothing(
    driver: TerminalDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hang-up sends SIGHUP then SIGCONT: Textual started application mode again on the dead tty."""
    resumed: list[bool] = []
    monkeypatch.setattr(driver, "resume_application_mode", lambda: resumed.append(True))
    driver._sigcont_application()
    assert resumed == []
    monkeypatch.setattr(os, "kill", lambda pid, sig: None)  # the SIGSTOP that would suspend this process
    monkeypatch.setattr(driver, "suspend_application_mode", lambda: None)
    driver._sigtstp_application()
    driver._sigcont_application()
    assert resumed == [True], "the SIGCONT after our own SIGTSTP still resumes"
    driver._sigcont_application()
    assert resumed == [True], "once"


async def test_the_watcher_sees_the_tty_hang_up_and_tells_the_app_once(
    driver: TerminalDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    posted: list[Any] = []
    monkeypatch.setattr(driver._app, "post_message", posted.append)
    master, slave = os.openpty()
    try:
        driver.fileno = slave
        driver.start_watch()
        assert not driver.terminal_gone, "a live terminal is not gone"
        os.close(master)  # the terminal emulator (tmux, the ssh daemon) goes away
        master = -1
        await wait_until(lambda: driver.terminal_gone, 30, "the hang-up to be seen")
        await wait_until(lambda: bool(posted), 30, "the app to be told")
        assert len(posted) == 1 and isinstance(posted[0], TerminalGone) and "hung up" in posted[0].why
        assert driver.exit_event.is_set(), "the input thread is told to stop reading the dead tty"
        driver.write("late frame")  # dropped, never queued
    finally:
        if master >= 0:
            os.close(master)
        driver.close()
        os.close(slave)
    assert not any(t.name == "breaker-tty-watch" for t in threading.enumerate()), "the watcher ended"


async def test_close_stops_the_watcher_of_a_live_terminal(driver: TerminalDriver) -> None:
    master, slave = os.openpty()
    try:
        driver.fileno = slave
        driver.start_watch()
        driver.close()
        assert not driver.terminal_gone
        assert not any(t.name == "breaker-tty-watch" for t in threading.enumerate())
    finally:
        os.close(master)
        os.close(slave)


class FakeSession:
    """What `wrapper.signals` calls on a session, counted."""

    def __init__(self) -> None:
        self.shutdowns: list[signal.Signals] = []
        self.now = 0
        self.release = asyncio.Event()

    async def shutdown(self, sig: signal.Signals) -> None:
        self.shutdowns.append(sig)
        await self.release.wait()

    def shutdown_now(self) -> None:
        self.now += 1


async def test_the_kernels_sighup_after_a_hang_up_is_not_a_second_signal() -> None:
    """Seen on the tty first, then told by SIGHUP: one shutdown, with its record, not a kill at once."""
    session = FakeSession()
    after: list[signal.Signals] = []
    handling = signals.install(session, after.append, signals=())  # type: ignore[arg-type]
    handling.hang_up()
    handling.handle(signal.SIGHUP)  # the kernel's, for the same closed terminal
    handling.hang_up()
    await wait_until(lambda: session.shutdowns == [signal.SIGHUP], 10, "the shutdown to start")
    assert session.now == 0 and after == []
    handling.handle(signal.SIGTERM)  # a person (or a supervisor) insists: that one is honoured at once
    assert session.now == 1 and after == [signal.SIGTERM]
    session.release.set()
    await wait_until(lambda: len(after) == 2, 10, "the shutdown to finish")
    assert after == [signal.SIGTERM, signal.SIGHUP]


async def test_a_second_sighup_without_a_hang_up_still_stops_at_once() -> None:
    session = FakeSession()
    handling = signals.install(session, signals=())  # type: ignore[arg-type]
    handling.handle(signal.SIGHUP)
    handling.handle(signal.SIGHUP)
    assert session.now == 1
    session.release.set()
