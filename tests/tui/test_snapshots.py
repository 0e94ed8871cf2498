"""SVG snapshots of the main screen, a trip, the approval modal and a replay (no subprocess, no clock)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.tui import scripts
from tests.tui.conftest import make, settle
from tui.app import create_app
from tui.screens.approval import ApprovalScreen
from tui.sources import ReplaySource
from wrapper.recorder import FORMAT
from wrapper.settings import Settings
from wrapper.sources import load

SIZE = (130, 38)


def _quiet(app: Any) -> None:
    app.clear_notifications()
    app.refresh_view()


def test_main_screen(snap_compare: Any) -> None:
    app, src = make(scripts.tool_loop())

    async def before(pilot: Any) -> None:
        await settle(app, src, pilot)
        _quiet(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_trip(snap_compare: Any) -> None:
    app, src = make(scripts.reasoning_loop())

    async def before(pilot: Any) -> None:
        await settle(app, src, pilot)
        _quiet(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_approval_modal(snap_compare: Any) -> None:
    app, _src = make(scripts.local_loop())

    async def before(pilot: Any) -> None:
        for _ in range(250):
            if isinstance(app.screen, ApprovalScreen):
                break
            await asyncio.sleep(0.02)
        await pilot.pause()
        _quiet(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def _recording(tmp: Path) -> Path:
    path = tmp / "demo.jsonl"
    lines = [{"at": 0, "k": "meta", "format": FORMAT, "version": 1}]
    lines += [{"at": n * 0.05, "k": "in", **m} for n, m in enumerate(scripts.tool_loop())]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def test_replay(snap_compare: Any, tmp_path: Path) -> None:
    settings = Settings()
    src = ReplaySource(load(_recording(tmp_path)), settings, speed=0)
    app = create_app(src, settings)

    async def before(pilot: Any) -> None:
        for _ in range(250):
            if src.done:
                break
            await asyncio.sleep(0.02)
        await pilot.pause()
        _quiet(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)
