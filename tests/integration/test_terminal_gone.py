"""A closed terminal ends the monitor: the TUI in a real tmux pane, a tool running, then the session killed.

Before, the TUI stayed for good, attached to the deleted terminal. Textual's writer thread
died on the first EIO, and its full queue then blocked the event loop, so even SIGTERM went
unhandled. Its child and the running tool stayed with it. Two ways the terminal goes:

* `leader`: the TUI owns the pane, as a person's would, and gets the kernel's SIGHUP;
* `detached`: the TUI runs under `setsid -w` with the pane as its stdio but not its controlling
  terminal, so no SIGHUP reaches it. Only the tty's hang-up is left to tell it (`tui.terminal`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import wait_until
from tests.integration.conftest import tui_pane
from wrapper.mock import scenarios
from wrapper.mock.scenarios import Reply, ToolCallSpec, Turn
from wrapper.process import proc

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux)"),
]


def _alive(pid: int) -> bool:
    """Running, not just a zombie waiting for whoever adopted it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _sleepers(tag: str) -> list[int]:
    return [s.pid for s in proc.all_stats() if tag in proc.cmdline(s.pid) and s.state != "Z"]


def _descendants(pid: int) -> list[int]:
    kids = [s.pid for s in proc.all_stats() if s.ppid == pid]
    return kids + [d for k in kids for d in _descendants(k)]


@pytest.mark.parametrize("how", ["leader", "detached"])
async def test_a_closed_terminal_ends_the_monitor_its_child_and_the_running_tool(
    world_factory: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    short_tmp: Path,
    tmux: list[str],
    how: str,
) -> None:
    tag = f"600.{uuid.uuid4().int % 10**6:06d}"  # `sleep 600.NNNNNN`: this test's own running tool

    def one_long_tool(turn: Turn) -> Reply:
        if turn.index == 0:
            return Reply(reasoning=["A long step."], tool_calls=[ToolCallSpec("bash", {"command": f"sleep {tag}"})])
        return Reply(content="done")

    monkeypatch.setitem(scenarios.SCENARIOS, "long-tool", (one_long_tool, "go", "test only"))
    world = world_factory("long-tool")
    wrap = ("setsid", "-w") if how == "detached" else ()
    pane = tui_pane(tmux, tmp_path, world, short_tmp, ["--", "dsh", "--profile", "dev"], wrap)
    pidfile, state, screen = pane.pidfile, pane.state, pane.screen

    def connected() -> bool:
        for r in state.glob("recordings/*.jsonl"):  # renamed once the session id is known: read what is there
            with contextlib.suppress(FileNotFoundError):
                if '"hello"' in r.read_text():
                    return True
        return False

    tui = 0
    tree: list[int] = []
    try:
        await wait_until(pidfile.exists, 60, "the TUI to start")
        tui = int(pidfile.read_text())
        await wait_until(connected, 90, "the bridge to connect")
        subprocess.run([*tmux, "send-keys", "-t", "t", "go", "Enter"], check=True)
        try:
            await wait_until(lambda: bool(_sleepers(tag)), 90, "the tool to run")
        except AssertionError:
            raise AssertionError(f"the tool never ran; the screen:\n{screen()}") from None
        tree = _descendants(tui)
        assert tree and all(p in tree for p in _sleepers(tag)), "the tool runs under the monitor"
        assert any(short_tmp.glob("breaker-tui-*")), "the run directory exists while the session runs"

        subprocess.run([*tmux, "kill-session", "-t", "t"], check=True)  # the terminal goes away

        await wait_until(lambda: not _alive(tui), 30, "the monitor to exit after its terminal closed")
        await wait_until(lambda: not any(_alive(p) for p in tree), 10, "dsh and the tool to be gone")
    finally:
        # whatever outlived a failure is ended here, so a failed run leaves nothing behind either
        for pid in {*([tui, *_descendants(tui)] if tui else []), *tree, *_sleepers(tag)}:
            if _alive(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    assert not _sleepers(tag)
    assert list(short_tmp.iterdir()) == [], "no run directory, no TMPDIR, no spill folders left"
    (rec,) = (state / "recordings").iterdir()
    records = [json.loads(line) for line in rec.read_text().splitlines() if line.strip()]
    assert records[-1]["k"] == "end", "the recording was closed"
    assert any(r.get("signal") == "SIGHUP" for r in records), "recorded as ended by the terminal (SIGHUP)"
