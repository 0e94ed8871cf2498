"""The app with a real Claude Code (ACP) and the mock model: refusals, the approval modal, trips on screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.integration.acp_helpers import need
from tests.tui.conftest import stream_text
from tui.app import BreakerApp, create_app
from tui.screens.approval import ApprovalScreen
from tui.sources import LiveSource
from wrapper.harness.acp.world import make_acp_world
from wrapper.mock.world import World
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
AGENT = "claude"  # starts in seconds; opencode is covered at the wrapper level


def _app(tmp_path: Path, scenario: str, prompt: str) -> tuple[BreakerApp, LiveSource, World]:
    need(AGENT)
    world = make_acp_world(AGENT, scenario, tmp_path)
    s = Settings(wrapper=WrapperSettings(recordings_dir=str(tmp_path / "rec")))
    src = LiveSource([AGENT], s, env=world.env, cwd=str(world.workspace), first_prompt=prompt)
    return create_app(src, s), src, world


async def test_agent_asks_go_to_the_modal_and_the_repeat_is_refused_on_screen(tmp_path: Path) -> None:
    app, src, world = _app(tmp_path, "tool-loop", "Read notes.txt.")
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            seen: list[object] = []

            def new_modal() -> bool:
                screen = app.screen
                return isinstance(screen, ApprovalScreen) and all(screen is not s for s in seen)

            for _ in range(4):  # the agent's own asks: allow each once in the modal
                await wait_until(new_modal, 90, "a new approval modal")
                await pilot.pause()
                seen.append(app.screen)
                assert "claude asks permission" in app.screen.question.reason  # type: ignore[attr-defined]
                await pilot.press("tab")  # the modal opens unarmed: tab arms it, then `a` answers
                await pilot.press("a")
            await wait_until(lambda: src.session.turns_done >= 1, 90, "the turn to end")
            await pilot.pause()
            app.refresh_view()
            text = stream_text(app)
            assert "REPEAT_TOOL_BLOCKED" in text or "DENIED" in text, text[-2000:]
            assert "reject_once" in text
    finally:
        world.close()


async def test_reasoning_trip_and_followup_show_in_the_stream(tmp_path: Path) -> None:
    app, src, world = _app(tmp_path, "reasoning-loop", "Check the adapter.")
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await wait_until(lambda: src.session.turns_done >= 1, 90, "the turn to end")
            await pilot.pause()
            app.refresh_view()
            text = stream_text(app)
            assert "⚡ TRIP" in text and "follow-up prompt" in text
            assert "Answering directly" in text, "the open line is the log's last rows"
    finally:
        world.close()
