"""The app with a real dsh and the mock model: the modal for a local loop, trips and retries, cancel/kill/restart."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import wait_until
from tests.tui.conftest import stream_text
from tui.app import create_app
from tui.screens.approval import ApprovalScreen
from tui.sources import LiveSource
from wrapper.settings import Settings

pytestmark = pytest.mark.integration
ARGV = ["dsh", "--profile", "dev"]


def _app(world: Any, prompt: str) -> tuple[Any, LiveSource]:
    s = Settings()
    src = LiveSource(ARGV, s, env=world.env, cwd=str(world.workspace), first_prompt=prompt)
    return create_app(src, s), src


@pytest.mark.parametrize(("key", "outcome"), [("t", "allowed-once"), ("d", "rejected")])
async def test_local_loop_opens_the_modal_and_the_answer_takes_effect(
    world_factory: Any, key: str, outcome: str
) -> None:
    world = world_factory("dev-server-loop")
    app, src = _app(world, "Wait for the dev server")
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), what="the approval modal")
        await pilot.pause()
        assert "net:127.0.0.1:18999/health" in str([h.fp for h in app.screen.question.hits])
        await pilot.press("tab")  # the modal opens unarmed: typing never answers it; tab arms it
        await pilot.press(key)
        await wait_until(lambda: src.session.turns_done >= 1, what="the turn to end")
        snap = src.monitor.breaker.snapshot().agents[0]
        if outcome == "allowed-once":
            assert snap.local_exempt and snap.denials == 0
        else:
            assert snap.local_refused and snap.denials == 2
        app.refresh_view()
        assert f"approval: {'allow-turn' if key == 't' else 'deny'}" in stream_text(app)


async def test_reasoning_loop_shows_the_trip_and_the_retry(world_factory: Any) -> None:
    world = world_factory("reasoning-loop")
    app, src = _app(world, "Check the adapter")
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(lambda: src.session.turns_done >= 1, what="the turn to end")
        await pilot.pause()
        app.refresh_view()
        text = stream_text(app)
        assert "⚡ TRIP" in text and "abort, then retry with thinking off" in text
        assert "Answering directly" in text, "the open line is the log's last rows"
        assert not app.w_banner.has_class("tripped"), "the trip banner ends with its turn"


async def test_cancel_kill_and_restart_from_the_keyboard(world_factory: Any) -> None:
    world = world_factory("hang")
    app, src = _app(world, "Think hard")
    async with app.run_test(size=(140, 40)) as pilot:
        s = src.session

        def streaming() -> bool:
            snap = src.monitor.breaker.snapshot()
            return bool(snap.agents) and snap.agents[0].reasoning_chars > 0

        await wait_until(streaming, 60, "the model to start streaming")
        await pilot.press("escape")
        await wait_until(lambda: s.turns_done >= 1, what="the cancelled turn to end")
        sid = s.info.session_id
        await pilot.press("ctrl+k")
        await wait_until(lambda: s.info.child == "exited", what="the child to exit")
        await pilot.press("ctrl+r")
        await wait_until(lambda: s.info.child == "running" and s.info.bridge == "connected", what="the restart")
        assert await s.wait_ready(60)
        assert s.info.session_id == sid
        app.refresh_view()
        assert "turn 1 ended: aborted" in stream_text(app)
        assert app.exit_status() == 0, "a kill and a restart are not failures"
        await pilot.press("ctrl+q")
    assert app.exit_status() == 0, "quitting after a kill and a restart exits 0"


async def test_prompt_is_focused_and_kill_works_while_typing(world_factory: Any) -> None:
    world = world_factory("hang")
    app, src = _app(world, "Think hard")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(lambda: src.session.info.child == "running", 60, "the child")
        await pilot.press(*"half typed")
        assert app.w_prompt.value == "half typed", "the prompt has the focus from the start"
        await pilot.press("ctrl+k")
        await wait_until(lambda: src.session.info.child == "exited", 30, "the kill")
        assert app.w_prompt.value == "half typed"
    assert app.exit_status() == 0
