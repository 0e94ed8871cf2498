"""`breaker-tui watch` against a real `breaker-tui serve`, fed by real hook processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable

from tui.watch import WatchApp
from wrapper.hooks import install as I

pytestmark = [pytest.mark.tui, pytest.mark.slow]


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A private state and run folder for the server the first hook starts; the server stopped after."""
    run = tempfile.mkdtemp(prefix="bkw-", dir="/tmp")
    values = {
        "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"),
        "BREAKER_TUI_RUN_DIR": os.path.join(run, "run"),
        "BREAKER_TUI_CONFIG": str(tmp_path / "none.toml"),
    }
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    try:
        yield {**os.environ, **values}
    finally:
        pid = Path(values["BREAKER_TUI_RUN_DIR"]) / "serve.pid"
        if pid.exists():
            os.kill(int(pid.read_text()), signal.SIGTERM)
            deadline = time.monotonic() + 60
            while pid.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        subprocess.run(["rm", "-rf", run], check=False)


def hook(env: dict[str, str], agent: str, payload: dict[str, object]) -> None:
    p = subprocess.run(
        [*I.launcher(), agent], input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=120
    )
    assert p.returncode == 0, p.stderr


def rows(app: WatchApp) -> list[list[str]]:
    t = app.query_one(DataTable)
    return [[str(c) for c in t.get_row_at(i)] for i in range(t.row_count)]


async def test_watch_lists_every_live_session_and_enter_opens_its_recording(env: dict[str, str]) -> None:
    claude = {"session_id": "c-1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/tmp/alpha"}
    for n in range(6):  # the same call six times: some are refused
        hook(env, "claude", {**claude, "tool_input": {"command": "make test"}, "tool_use_id": f"t{n}"})
    gemini = {"session_id": "g-1", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}
    hook(env, "gemini", {**gemini, "cwd": "/tmp/beta", "tool_input": {"command": "ls"}})
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(140, 20)) as pilot:
        deadline = time.monotonic() + 60
        while len(rows(app)) < 2:
            assert time.monotonic() < deadline, f"watch never listed both sessions: {rows(app)}"
            await pilot.pause(0.1)
        got = {r[0]: r for r in rows(app)}
        assert got["gemini"][1:6] == ["/tmp/beta", "g-1", "1", "0", "allow"]
        assert got["claude"][1:3] == ["/tmp/alpha", "c-1"] and got["claude"][3] == "6"
        assert int(got["claude"][4]) >= 1 and got["claude"][5].startswith("deny (")
        row = [r[0] for r in rows(app)].index("claude")
        app.query_one(DataTable).move_cursor(row=row)
        await pilot.press("enter")
    assert app.return_value is not None and "hook-claude" in Path(app.return_value).name
    assert Path(app.return_value).exists()


async def test_watch_says_when_no_server_runs(env: dict[str, str]) -> None:
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(120, 12)) as pilot:
        await pilot.pause()
        assert "breaker-tui serve is not running" in str(app.query_one("#state").render())
        assert rows(app) == []
