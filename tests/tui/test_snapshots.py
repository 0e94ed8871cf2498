"""SVG snapshots of the main screen, a trip, the approval modal and a replay (no subprocess, no clock)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import make
from tui.app import create_app
from tui.screens.approval import ApprovalScreen
from tui.sources import ReplaySource
from wrapper.recorder import FORMAT
from wrapper.settings import Settings
from wrapper.sources import load

SIZE = (130, 38)


def _before(app: Any, ready: Any) -> Any:
    """Wait (bounded) for `ready()`, then drop toasts and paint once: no clock in the picture."""

    async def before(pilot: Any) -> None:
        await wait_until(ready, 10, "the scripted feed")
        app.refresh_view()  # adds the agent tab if the 20 Hz repaint has not yet
        # a new tab's underline is placed after a later refresh: picture it settled, not in between
        await wait_until(lambda: app.w_tabs.query_one("Underline").highlight_end > 0, 10, "the tab underline")
        await pilot.pause()
        app.clear_notifications()
        app.refresh_view()
        await pilot.pause()

    return before


def test_main_screen(snap_compare: Any) -> None:
    app, src = make(scripts.tool_loop())
    assert snap_compare(app, terminal_size=SIZE, run_before=_before(app, src.drained.is_set))


def test_trip(snap_compare: Any) -> None:
    app, src = make(scripts.reasoning_loop())
    assert snap_compare(app, terminal_size=SIZE, run_before=_before(app, src.drained.is_set))


def test_approval_modal(snap_compare: Any) -> None:
    app, _ = make(scripts.local_loop())
    assert snap_compare(
        app, terminal_size=SIZE, run_before=_before(app, lambda: isinstance(app.screen, ApprovalScreen))
    )


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
    assert snap_compare(app, terminal_size=SIZE, run_before=_before(app, lambda: src.done))
