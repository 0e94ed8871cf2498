"""`breaker-tui watch` against a real `breaker-tui serve`, fed by real hook processes.

The server is the one the first hook starts (on a private run folder); the asks reach the real screen
over its watch connection, and the hook process waiting for its verdict gets the person's answer.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable

from tui.watch import WatchApp
from tui.widgets.window import WindowTable
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
    t = app.query_one("#sessions", DataTable)
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
        app.query_one("#sessions", DataTable).move_cursor(row=row)
        await pilot.press("enter")
    assert app.return_value is not None and "hook-claude" in Path(app.return_value).name
    assert Path(app.return_value).exists()


async def test_watch_says_when_no_server_runs(env: dict[str, str]) -> None:
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(120, 12)) as pilot:
        await pilot.pause()
        assert "breaker-tui serve is not running" in str(app.query_one("#state").render())
        assert rows(app) == []


def curl(n: int) -> str:
    return f"curl -s -w 'code-{n}' -o /dev/null http://127.0.0.1:3000/p"


def local(agent: str, n: int) -> dict[str, object]:
    """A call to a local address: its fifth repeat is one the engine asks the person about."""
    if agent == "gemini":
        return {"session_id": "g-9", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                "cwd": "/tmp/gamma", "tool_input": {"command": curl(n)}}  # fmt: skip
    return {"session_id": "x-9", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/tmp/gamma",
            "tool_input": {"command": curl(n)}, "tool_use_id": f"t{n}"}  # fmt: skip


async def until(pilot: object, ok: object, what: str) -> None:
    deadline = time.monotonic() + 60
    while not ok():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        await pilot.pause(0.1)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("agent", "key", "said"), [("gemini", "y", b""), ("codex", "n", b"declined it")])
async def test_an_ask_reaches_watch_and_the_persons_answer_reaches_the_hook(
    env: dict[str, str], agent: str, key: str, said: bytes
) -> None:
    for n in range(4):
        hook(env, agent, local(agent, n))
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link is not None and rows(app), "watch never connected to the server")
        fifth = await asyncio.create_subprocess_exec(
            *I.launcher(), agent, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env
        )
        assert fifth.stdin is not None
        fifth.stdin.write(json.dumps(local(agent, 4)).encode())
        fifth.stdin.close()
        await until(pilot, lambda: bool(app.asks), "the ask never reached watch")
        shown = str(app.query_one("#ask").render())
        assert f"{agent} · /tmp/gamma" in shown and curl(4) in shown and "rule repeat:net" in shown
        await pilot.press(key)
        out, _ = await asyncio.wait_for(fifth.communicate(), 60)
        assert fifth.returncode == 0
        assert said in out if said else out == b""  # an allow is silent
        await until(pilot, lambda: not app.asks, "the answered ask stayed on the screen")


async def test_the_selected_sessions_scores_window_and_timeline_are_shown(env: dict[str, str]) -> None:
    for n in range(6):
        hook(env, "claude", {"session_id": "c-2", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                             "tool_input": {"command": "make test"}, "tool_use_id": f"t{n}"})  # fmt: skip
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(80, 24)) as pilot:
        window = app.query_one("#window", WindowTable)
        await until(pilot, lambda: window.row_count > 0, "the window panel stayed empty")
        cells = [str(window.get_row_at(i)[-1]) for i in range(window.row_count)]
        assert any("make test" in c for c in cells)
        assert str(window.border_title).startswith("window · turn 1 ✓✓✓✓✗✗")
        shown = Console(width=80, record=True, file=io.StringIO())
        shown.print(app.query_one("#misc").render())
        assert "denied 2" in shown.export_text()
