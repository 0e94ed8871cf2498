"""An agent's own log (an ACP agent's stderr) is counted, not opened over the work; a failed exit opens it.

A plain command's or a pty's output is a screen meant for the person and still opens the pane.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import running, text_of
from tui.app import BreakerApp
from wrapper.harness.acp.stream import AGENT_LOG
from wrapper.items import OutputItem, StatusItem

LOG = "phase=register durationMs=3 totalMs=892\n[session/create] sessionId=s1\n[idle-compaction] skip\n"


async def _painted(app: BreakerApp, pilot: Any) -> None:
    """The items received are handled, then the screen painted once."""
    await pilot.pause()
    app.refresh_view()
    await pilot.pause()


async def test_an_agents_log_is_counted_on_the_status_line_not_opened() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "hi")], size=(80, 24)) as (app, _, pilot):
        app._receive(OutputItem(LOG, AGENT_LOG))
        app._receive(OutputItem("[idle-compaction] sk", AGENT_LOG))  # one line in two pieces
        app._receive(OutputItem("ip\n", AGENT_LOG))
        await _painted(app, pilot)
        assert not app.w_output.display, "the agent's log opened the pane"
        assert "agent log 4 · ^o" in text_of(app.w_status)
        await pilot.press("ctrl+o")
        await wait_until(lambda: app.w_output.display, 10, "the pane on ctrl+o")
        assert any("idle-compaction" in line.text for line in app.w_output.lines)
        await _painted(app, pilot)
        assert "agent log" not in text_of(app.w_status), "the count stays while the pane shows the log"


async def test_a_failed_agents_log_opens_the_pane() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "hi")], size=(80, 24)) as (app, _, pilot):
        app._receive(OutputItem("Traceback (most recent call last):\n", AGENT_LOG))
        await _painted(app, pilot)
        assert not app.w_output.display
        app._receive(StatusItem("exited", "agent exited with status 1", {"code": 1}))
        await wait_until(lambda: app.w_output.display, 10, "the pane after the failed exit")
        assert any("Traceback" in line.text for line in app.w_output.lines)


async def test_a_clean_exit_leaves_the_log_folded() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "hi")], size=(80, 24)) as (app, _, pilot):
        app._receive(OutputItem("phase=register\n", AGENT_LOG))
        app._receive(StatusItem("exited", "agent exited with status 0", {"code": 0}))
        await _painted(app, pilot)
        assert not app.w_output.display


async def test_a_terminals_output_still_opens_the_pane() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "hi")], size=(80, 24)) as (app, _, pilot):
        app._receive(OutputItem("$ make\nok\n"))
        await wait_until(lambda: app.w_output.display, 10, "the pane for a screen's output")
        await _painted(app, pilot)
        assert "agent log" not in text_of(app.w_status)
