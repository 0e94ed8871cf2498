"""A live session opened after the screen's first frame: the screen is up first, the session follows.

`tui.run` draws the monitor before the harnesses are imported and the command is checked. Until the
session is open the status line says what is starting, the keys that act on a session are not
offered, and the prompt box (a guess: dsh and the agents take prompts) keeps what is typed. A plain
command keeps the box for its input (`test_plain_input.py`); one that cannot start ends the screen at
once with exit status 3, nothing recorded.
"""

from __future__ import annotations

import gc
import os
import signal
import threading
from typing import Any

import pytest
from textual.widgets import Footer

from tests.conftest import wait_until
from tests.tui.conftest import text_of
from tui.app import create_app
from tui.sources import LiveSource
from wrapper.settings import Settings


def _footer(app: Any) -> str:
    footer = app.screen.query_one(Footer)
    return " ".join(str(w.render()) for w in footer.children if w.display)


def _source(check_result: str, gate: threading.Event) -> LiveSource:
    def check() -> str:
        gate.wait(60)  # held, so the test sees the screen before the session opens
        return check_result

    return LiveSource(["sh", "-c", "sleep 30"], Settings(), opened=False, check=check)


async def test_the_screen_is_up_before_the_session_opens_then_follows_it() -> None:
    gate = threading.Event()
    src = _source("", gate)
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await wait_until(lambda: "starting sh -c sleep 30" in str(app.w_status.render()), 30, "the starting line")
            assert not src.ready
            assert "quit" in _footer(app), "the way out is on the screen from the start"
            assert app.w_prompt.display, "the box is there for what a person types meanwhile"
            assert app.check_action("kill", ()) is False, "no session to kill yet"
            gate.set()
            await wait_until(lambda: src.ready and src.info.child == "running", 60, "the session to open")
            await pilot.pause()
            assert app.main.has_prompt and "input" in str(app.w_prompt.placeholder), "sh reads its input from the box"
            assert app.check_action("kill", ()) is not False
        finally:
            gate.set()
    assert app.exit_status() == 0


async def test_a_command_that_cannot_start_ends_the_screen_with_status_3() -> None:
    gate = threading.Event()
    gate.set()
    src = _source("sh: pretend it is not installed", gate)
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)):
        await wait_until(lambda: bool(app.start_error), 60, "the start error")
    assert app.exit_status() == 3
    assert app.start_error == "sh: pretend it is not installed"
    assert src.recording == "", "nothing started, nothing recorded"


async def test_a_signal_while_the_session_opens_ends_the_screen_with_its_status() -> None:
    """Before the session's own handling is installed, SIGTERM's default would kill the process outright
    (the terminal left in the screen's modes, a demo's temporary world left behind).
    """
    gate, asked = threading.Event(), threading.Event()

    def check() -> str:
        asked.set()  # the source's handlers are installed before it checks
        gate.wait(60)
        return ""

    src = LiveSource(["sh", "-c", "sleep 30"], Settings(), opened=False, check=check)
    app = create_app(src, src.settings)
    try:
        async with app.run_test(size=(100, 30)):
            await wait_until(asked.is_set, 30, "the session to start opening")
            os.kill(os.getpid(), signal.SIGTERM)
            await wait_until(lambda: src.signalled is not None, 30, "the signal to be handled")
    finally:
        gate.set()
    assert app.exit_status() == 128 + signal.SIGTERM
    assert src.recording == "", "nothing started"


async def test_the_collector_the_command_line_turns_off_for_the_start_is_on_after_the_first_frame() -> None:
    gate = threading.Event()
    src = _source("", gate)
    app = create_app(src, src.settings)
    gc.disable()  # as `tui.cli` does before the screen starts
    try:
        async with app.run_test(size=(100, 30)):
            await wait_until(gc.isenabled, 30, "the collector back on after the first frame")
            gate.set()
    finally:
        gate.set()
        gc.enable()


class _World:
    """A setup (the demo's world) held until the test lets it finish; it gives the command."""

    def __init__(self, gate: threading.Event) -> None:
        self.gate = gate
        self.argv: list[str] = []
        self.env: dict[str, str] | None = None
        self.cwd: str | None = None
        self.closed = False

    def build(self, say: Any) -> str:
        say("starting the mock model")
        self.gate.wait(60)
        self.argv, self.env, self.cwd = ["sh", "-c", "sleep 30"], {**os.environ, "WORLD": "1"}, "/"
        return ""

    def close(self) -> None:
        self.closed = True


async def test_a_setup_is_built_after_the_first_frame_its_step_on_the_status_line() -> None:
    gate = threading.Event()
    world = _World(gate)
    src = LiveSource([], Settings(), title="demo: tool-loop", opened=False, setup=world)
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)):
        try:
            step = "starting demo: tool-loop… starting the mock model"
            await wait_until(lambda: step in str(app.w_status.render()), 30, "the setup's step on the status line")
            assert not src.ready
            gate.set()
            await wait_until(lambda: src.ready and src.info.child == "running", 60, "the session to open")
            assert src.session.argv[:2] == ["sh", "-c"], "the command is the one the setup gave"
            await wait_until(lambda: "starting" not in str(app.w_status.render()), 30, "the status line to move on")
            assert not world.closed
        finally:
            gate.set()
    assert world.closed, "the source closes what the setup built once the session is closed"


async def test_a_session_that_opens_after_the_quit_touches_no_widget() -> None:
    """A quit while the session opens takes the screen down while the source still finishes opening;
    the source's `on_open` then reaches an app whose widgets are gone (under load: the exit status was
    70, `NoMatches('#prompt')`). The callback corrects nothing once the screen is leaving.
    """
    gate = threading.Event()
    gate.set()
    src = _source("", gate)
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)):
        await wait_until(lambda: src.ready and src.info.child == "running", 60, "the session to open")
    assert not src.capabilities.prompt, "sh takes no prompts: the callback would drop the box"
    app._source_opened()  # as the source calls it when its opening ends after the quit
    assert app.exit_status() == 0


async def test_an_enter_before_the_demos_own_prompt_has_gone_adds_a_line_and_sends_nothing() -> None:
    """A demo sends its scenario's prompt once the agent is ready; an enter pressed in its first second sent
    the person's text first (their text became turn 1). Until the demo's prompt has gone, enter adds a line,
    as for keys typed before the screen was up; a run without a prompt of its own sends at once.
    """
    assert LiveSource(["sh"], Settings(), opened=False).first_pending is False
    gate = threading.Event()
    src = LiveSource([], Settings(), title="demo: normal", opened=False, setup=_World(gate), first_prompt="Say hello.")
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await wait_until(lambda: app.w_prompt.has_focus, 30, "the prompt box")
            assert src.first_pending
            await pilot.press(*"early text", "enter", *"more")
            await wait_until(lambda: app.w_prompt.text == "early text\nmore", 30, "the enter as a new line")
            assert app.prompts_pending == 0, "nothing was sent ahead of the demo's prompt"
            gate.set()
            # sh takes no prompts: the demo's prompt never goes, and the person's enter is theirs again
            await wait_until(lambda: not src.first_pending, 60, "the first prompt settled")
        finally:
            gate.set()


async def test_a_kill_pressed_while_the_session_opens_stops_the_child_once_it_has_started() -> None:
    """ctrl+k in the first second or so after `breaker-tui -- AGENT` started went to the prompt box (its
    delete-to-end-of-line: nothing seen) and the agent ran on. It is said, and acts once the child is there.
    """
    gate = threading.Event()
    src = _source("", gate)
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await wait_until(lambda: app.w_prompt.has_focus, 30, "the prompt box")
            await pilot.press(*"keep this")
            await wait_until(lambda: app.w_prompt.text == "keep this", 30, "the typing")
            app.w_prompt.move_cursor((0, 0))  # ctrl+k in the box would delete to the end of the line
            assert not src.ready
            await pilot.press("ctrl+k")
            await wait_until(lambda: "stopped as soon as it has started" in text_of(app.w_notice), 30, "it is said")
            assert app.w_prompt.text == "keep this", "the key did not go to the box"
            gate.set()
            await wait_until(lambda: src.ready and src.info.child == "exited", 60, "the child stopped once started")
            assert src.info.exit is not None and src.info.exit.sent is not None, "stopped by the kill, not by itself"
        finally:
            gate.set()


@pytest.mark.parametrize(("key", "said"), [("ctrl+r", "restart"), ("f5", "reset"), ("ctrl+e", "pause")])
async def test_the_other_session_keys_pressed_while_it_opens_say_why_they_do_nothing(key: str, said: str) -> None:
    gate = threading.Event()
    src = _source("", gate)
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await wait_until(lambda: app.w_prompt.has_focus, 30, "the prompt box")
            await pilot.press(key)
            await wait_until(lambda: "the session is still opening" in text_of(app.w_notice), 30, f"{key} said")
            assert text_of(app.w_notice).startswith(said), text_of(app.w_notice)
            assert "kill" not in _footer(app), "the footer still offers only what acts now"
        finally:
            gate.set()
