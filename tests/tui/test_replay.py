"""Replay as a player: the window and the scores are those at the current step, both ways."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import wait_until
from tests.tui.conftest import stream_text, text_of
from tests.tui.test_modes import footer
from tests.tui.test_snapshots import _recording
from tui.app import create_app
from tui.player import ReplaySource
from wrapper.harness.dsh.replay import Replayer
from wrapper.records.sources import load
from wrapper.settings import Settings


def _expected(path: Path, position: int) -> list[tuple[str, int, bool]]:
    """The window a fresh engine holds after `position` steps: what the live monitor showed then."""
    r = Replayer(load(path), Settings())
    it = r.steps()
    for _ in range(position):
        next(it)
    snap = r.monitor.breaker.snapshot()
    return [] if not snap.agents else [(w.fingerprint, w.count, w.hit) for w in snap.agents[0].window]


def _shown(app: Any) -> list[tuple[str, int, bool]]:
    snap = app.source.monitor.breaker.snapshot()
    return [] if not snap.agents else [(w.fingerprint, w.count, w.hit) for w in snap.agents[0].window]


def _table(app: Any) -> list[list[str]]:
    t = app.w_window
    return [[str(c) for c in t.get_row_at(i)] for i in range(t.row_count)]


async def _at(app: Any, src: ReplaySource, pilot: Any, position: int) -> None:
    await wait_until(lambda: src.position == position and not src._wake.is_set(), 5, f"step {position}")
    await pilot.pause()
    app.refresh_view()
    await pilot.pause()


async def test_stepping_moves_the_window_and_scores_both_ways(tmp_path: Path) -> None:
    path = _recording(tmp_path)
    settings = Settings()
    src = ReplaySource(load(path), settings, speed=1.0, paused=True)
    app = create_app(src, settings)
    async with app.run_test(size=(130, 38)) as pilot:
        await wait_until(lambda: src.total > 0 and bool(app.screen.query("#window")), 10, "the player loaded")
        assert src.position == 0 and src.paused
        app.refresh_view()
        assert _table(app) == [], "at the start nothing has happened yet"
        await pilot.press("n")  # the first denial
        first = src.player.marks[0]
        await _at(app, src, pilot, first)
        assert _shown(app) == _expected(path, first)
        assert any(row[2] == "HIT" for row in _table(app)), "the cap is hit at the first denial"
        assert stream_text(app).count("DENIED") == 1
        scores_at_denial = app.source.monitor.breaker.snapshot().agents[0].denials
        assert scores_at_denial == 1
        await pilot.press("left", "left", "left")
        await _at(app, src, pilot, first - 3)
        assert _shown(app) == _expected(path, first - 3)
        assert not any(row[2] == "HIT" for row in _table(app)), "stepping back un-hits the cap"
        assert "DENIED" not in stream_text(app), "the screen started over"
        assert app.source.monitor.breaker.snapshot().agents[0].denials == 0
        await pilot.press("right")
        await _at(app, src, pilot, first - 2)
        assert _shown(app) == _expected(path, first - 2)
        await pilot.press("end")
        await _at(app, src, pilot, src.total)
        assert stream_text(app).count("DENIED") == 2
        await pilot.press("p")
        await _at(app, src, pilot, src.player.marks[-1])
        assert stream_text(app).count("DENIED") == 2, "at the second denial"
        await pilot.press("p")
        await _at(app, src, pilot, src.player.marks[-2])
        assert stream_text(app).count("DENIED") == 1
        await pilot.press("home")
        await _at(app, src, pilot, 0)
        assert _table(app) == []
        assert "REPLAY 0/" in text_of(app.w_status) and "paused" in text_of(app.w_status)


async def test_replay_has_player_keys_not_live_ones(tmp_path: Path) -> None:
    settings = Settings()
    src = ReplaySource(load(_recording(tmp_path)), settings, speed=1.0, paused=True)
    app = create_app(src, settings)
    async with app.run_test(size=(100, 30)) as pilot:
        keys = {"play", "step", "back", "next trip", "help", "quit"}
        await wait_until(lambda: keys <= set(footer(app.screen)), 10, "the player's keys in the footer")
        shown = footer(app.screen)
        assert not {"kill", "restart", "cancel", "pause"} & set(shown), shown
        assert not app.w_prompt.display
        await pilot.press("plus")
        await wait_until(lambda: src.speed == 2.0, 5, "twice the speed")
        await pilot.press("minus", "minus")
        await wait_until(lambda: src.speed == 0.5, 5, "half the speed")
        await pilot.press("space")
        await wait_until(lambda: not src.paused, 5, "playing")
        app.refresh_view()
        assert "ENFORCING" not in text_of(app.w_status)


async def test_replay_runs_to_the_end_at_full_speed(tmp_path: Path) -> None:
    settings = Settings()
    src = ReplaySource(load(_recording(tmp_path)), settings, speed=0)
    app = create_app(src, settings)
    async with app.run_test(size=(130, 38)):
        await wait_until(lambda: src.done)
        assert src.position == src.total > 20


WRITER = """
import sys
import subprocess
import sys
from pathlib import Path
from wrapper.records.recorder import Recorder

r = Recorder(Path(sys.argv[1]), {"argv": ["dsh"], "config": {}})
r.write("in", {"t": "ready", "sessionId": "s1", "provider": "p", "model": "m"})
for i in range(6):
    r.write("in", {"t": "verdict_request", "id": f"v{i}", "sessionId": "s1", "callId": f"c{i}", "name": "bash",
                   "args": {"command": "make test"}})
    r.write("out", {"t": "verdict", "id": f"v{i}", "kind": "deny" if i >= 4 else "allow"})
print("written", flush=True)
sys.stdin.read()  # the session goes on until the test lets it end
r.close()
"""


async def _replayed_to_the_end(path: Path) -> str:
    settings = Settings()
    src = ReplaySource(load(path), settings, speed=0)
    app = create_app(src, settings)
    async with app.run_test(size=(200, 38)):
        await wait_until(lambda: src.done, 60, "the end of the replay")
        await wait_until(lambda: "replay " in stream_text(app), 30, "the closing line")
        app.refresh_view()
        return f"{stream_text(app)}\n{text_of(app.w_status)}"


async def test_a_recording_still_being_written_ends_as_live_naming_its_writer_not_finished(tmp_path: Path) -> None:
    """A real second process holds a real Recorder open, as a live monitor or the hook server does."""
    path = tmp_path / "live.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "written"
        shown = await _replayed_to_the_end(path)
        assert f"LIVE: still being written by python (pid {child.pid})" in shown, shown
        assert "replay finished" not in shown
        assert "REPLAY 7/7 LIVE, at the end so far" in shown, "the status line says it too"
        child.stdin.close()
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
    shown = await _replayed_to_the_end(path)
    assert "replay finished" in shown and "LIVE" not in shown, shown
