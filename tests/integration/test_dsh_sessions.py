"""Real dsh against the mock model: a past session resumed from the list (ctrl+l) and with `--resume ID`.

dsh's runner resumes with `--resume <id>` on its command line; nothing of the old session is replayed
through the bridge, so nothing old is judged: the window stays empty until the person prompts again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.integration.conftest import DSH_ARGV
from tests.integration.runs import Run, started
from tests.tui.conftest import session_list, stream_text
from tui.app import create_app
from tui.screens.sessions import SessionsScreen
from tui.sources import LiveSource
from wrapper.harness.dsh.session import Session
from wrapper.harness.dsh.world import make_world
from wrapper.harness.registry import open_session
from wrapper.items import Answer, Question, StatusItem, VerdictItem
from wrapper.mock.world import World
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


async def _deny(_: Question) -> Answer:
    return "deny"


async def _session(settings: Settings, world: World, prompt: str | None, resume: str | None = None) -> Run[Session]:
    """A dsh session in the world (resuming `resume`), its first turn run when `prompt` is given."""
    s = open_session(DSH_ARGV, settings, _deny, cwd=str(world.workspace), env=world.env, resume=resume)
    assert isinstance(s, Session)
    run = await started(s, 60)
    if prompt:
        assert await s.prompt(prompt)
        assert await s.wait_turn_end(0, 90), run.items[-5:]
    return run


async def test_resume_id_gives_dsh_the_old_session(tmp_path: Path) -> None:
    world = make_world("normal", tmp_path / "w")
    settings = Settings(wrapper=WrapperSettings(recordings_dir=str(tmp_path / "rec")))
    try:
        first = await _session(settings, world, "First question")
        sid = first.session.info.session_id
        await first.close()
        run = await _session(settings, world, None, resume=sid)
        s = run.session
        try:
            ready = [i for i in run.items if isinstance(i, StatusItem) and i.kind == "ready"][-1]
            assert ready.data["resumed"] and s.info.session_id == sid
            assert s.argv[-2:] == ["--resume", sid]
            assert await s.prompt("Second question")
            assert await s.wait_turn_end(0, 90)
            history = world.mock.main_requests()[-1]["body"]["messages"]
            assert any("First question" in str(m.get("content")) for m in history if m.get("role") == "user")
        finally:
            await run.close()
    finally:
        world.close()


async def test_a_dsh_session_resumed_from_the_list_is_not_judged_again(tmp_path: Path) -> None:
    world = make_world("tool-loop", tmp_path / "w")
    settings = Settings(wrapper=WrapperSettings(recordings_dir=str(tmp_path / "rec")))
    try:
        first = await _session(settings, world, "Read notes.txt.")
        sid = first.session.info.session_id
        assert any(isinstance(i, VerdictItem) for i in first.items), "the first session's calls were judged"
        await first.close()
        src = LiveSource(DSH_ARGV, settings, env=world.env, cwd=str(world.workspace))
        app = create_app(src, settings)
        async with app.run_test(size=(120, 40)) as pilot:
            assert await src.session.wait_ready(60)
            screen = await session_list(app, pilot, 30)
            assert isinstance(screen, SessionsScreen)
            ids = [p.session_id for p in screen.sessions]
            assert sid in ids and screen.sessions[ids.index(sid)].title == "Read notes.txt.", ids
            for _ in range(ids.index(sid)):
                await pilot.press("down")
            await pilot.press("enter", "enter")  # the list asks first
            await wait_until(lambda: src.info.session_id == sid and src.info.bridge == "connected", 60, "resumed")
            await wait_until(lambda: f"session {sid} resumed" in stream_text(app), 30, "the ready line")
            snap = src.monitor.breaker.snapshot()
            assert sum(a.window_calls for a in snap.agents) == 0, "nothing old entered the window"
    finally:
        world.close()
