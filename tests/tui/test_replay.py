"""Replay drives the same screen: play, pause, step, speed and jump to the next trip."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.conftest import wait_until
from tests.tui.conftest import stream_text
from tests.tui.test_snapshots import _recording
from tui.app import create_app
from tui.sources import ReplaySource
from wrapper.items import VerdictItem
from wrapper.settings import Settings
from wrapper.sources import load


async def test_paused_replay_steps_and_jumps_to_the_next_denial(tmp_path: Path) -> None:
    settings = Settings()
    src = ReplaySource(load(_recording(tmp_path)), settings, speed=1.0, paused=True)
    app = create_app(src, settings)
    async with app.run_test(size=(130, 38)) as pilot:
        await asyncio.sleep(0.2)
        assert src.position == 0 and src.paused
        await pilot.press("full_stop")
        await wait_until(lambda: src.position == 1)
        await asyncio.sleep(0.1)
        assert src.position == 1 and src.paused, "one step, then paused again"
        await pilot.press("n")
        await wait_until(lambda: src.paused and src.position > 1)
        denied = [v for v in (s.item for s in src.replayer.steps()) if isinstance(v, VerdictItem)]
        assert denied  # the recording has verdicts
        app.refresh_view()
        await pilot.pause()
        assert "DENIED" in stream_text(app)
        assert "DENIED" not in stream_text(app).split("DENIED", 1)[1], "stopped at the first denial"
        await pilot.press("plus")
        assert src.speed == 2.0
        await pilot.press("minus", "minus")
        assert src.speed == 0.5
        await pilot.press("space")
        assert not src.paused


async def test_replay_runs_to_the_end_at_full_speed(tmp_path: Path) -> None:
    settings = Settings()
    src = ReplaySource(load(_recording(tmp_path)), settings, speed=0)
    app = create_app(src, settings)
    async with app.run_test(size=(130, 38)):
        await wait_until(lambda: src.done)
        assert src.position == src.total > 20
