"""What a person types while the monitor starts reaches the prompt: the TUI in a real tmux pane, real dsh.

Before, the keys typed in the first second of `breaker-tui -- dsh --profile dev` (or of the demo)
were lost: the terminal held them, Textual read them before the main screen was mounted and its
prompt focused, and gave them to the screen, which dropped them. Here the pane's shell holds the
monitor back until the keys are in the terminal, so they are surely typed before Textual starts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import wait_until
from tests.integration.conftest import tui_pane

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux)"),
]


def _prompt_row(screen: str) -> str:
    """The prompt box's row: the one with the send hint beside it."""
    return next((row for row in screen.splitlines() if "⏎ send" in row), "")


async def test_keys_typed_while_the_monitor_starts_land_in_the_prompt(
    world_factory: Any, tmp_path: Path, short_tmp: Path, tmux: list[str]
) -> None:
    world = world_factory("tool-loop")
    go = tmp_path / "go"
    pane = tui_pane(tmux, tmp_path, world, short_tmp, ["--", "dsh", "--profile", "dev"], hold_until=go)
    pidfile, screen = pane.pidfile, pane.screen

    def ended() -> bool:
        return subprocess.run([*tmux, "has-session", "-t", "t"], capture_output=True).returncode != 0

    tui = 0
    try:
        subprocess.run([*tmux, "send-keys", "-t", "t", "-l", "fix the flaky test"], check=True)
        await wait_until(lambda: "fix the flaky test" in screen(), 10, "the keys echoed by the waiting terminal")
        go.touch()
        await wait_until(pidfile.exists, 60, "the TUI to start")
        tui = int(pidfile.read_text())
        try:
            await wait_until(lambda: "fix the flaky test" in _prompt_row(screen()), 60, "the early keys in the prompt")
        except AssertionError:
            raise AssertionError(f"the keys typed before the start were lost; the screen:\n{screen()}") from None
        subprocess.run([*tmux, "send-keys", "-t", "t", "-l", " now"], check=True)
        await wait_until(lambda: "fix the flaky test now" in _prompt_row(screen()), 30, "typing goes on after them")
        subprocess.run([*tmux, "send-keys", "-t", "t", "C-q"], check=True)
        await wait_until(ended, 60, "ctrl+q to end the monitor")
    finally:
        if tui and not ended():
            with contextlib.suppress(OSError):
                os.kill(tui, signal.SIGTERM)
    assert list(short_tmp.iterdir()) == [], "nothing left in TMPDIR"
