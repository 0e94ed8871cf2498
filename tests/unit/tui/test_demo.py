"""A demo stopped while it starts leaves no folder and no process behind.

The demo lays out a temporary world (the mock model's log, the agent's home, a workspace). It used
to be built before the screen, while a signal still had its default action, so a demo stopped in its
first second left `breaker-demo-*` behind: a resource created before its cleanup was armed. Here the
real demo runs in a tmux pane and is stopped at each point of its start, found by a condition.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, wait_until
from tui.demo import OWNER, sweep
from wrapper.process import proc


def test_sweep_removes_the_folders_no_demo_holds(tmp_path: Path) -> None:
    stale, held, bare, other = (tmp_path / n for n in ("breaker-demo-a", "breaker-opencode-b", "breaker-demo-c", "x"))
    for d in (stale, held, bare, other):
        d.mkdir()
    for d in (stale, held, other):
        (d / OWNER).touch()
    fd = os.open(held / OWNER, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert sweep(tmp_path) == [stale]
    finally:
        os.close(fd)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["breaker-demo-c", "breaker-opencode-b", "x"]


class Demo:
    """`breaker-tui demo` in a tmux pane of its own server, its TMPDIR and state private, tagged in its environment."""

    def __init__(self, tmp_path: Path, args: tuple[str, ...] = ("demo",)) -> None:
        self.tmux = ["tmux", "-L", f"bt-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]
        self.tmp, self.pidfile = tmp_path / "tmp", tmp_path / "demo.pid"
        self.tmp.mkdir()
        self.tag = f"BT_DEMO_TEST={uuid.uuid4().hex}"
        part = f"{self.pidfile}.part"
        save_pid = f"open({part!r}, 'w').write(str(os.getpid())); os.replace({part!r}, {str(self.pidfile)!r})"
        code = f"import os, sys; {save_pid}; from tui.cli import main; sys.exit(main())"
        env = {"TMPDIR": str(self.tmp), "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
        argv = ["env", self.tag, *(f"{k}={v}" for k, v in env.items()), "TERM=xterm-256color"]
        script = tmp_path / "pane.sh"
        script.write_text(
            f"cd {shlex.quote(str(ROOT))}\nexec {shlex.join([*argv, sys.executable, '-c', code, *args])}\n"
        )
        subprocess.run(
            [*self.tmux, "new-session", "-d", "-s", "d", "-x", "100", "-y", "30", f"sh {script}"], check=True
        )
        self.pid = 0

    def screen(self) -> str:
        p = subprocess.run([*self.tmux, "capture-pane", "-p", "-t", "d"], capture_output=True, text=True, check=False)
        return p.stdout

    def ours(self) -> list[int]:
        """The demo and every process it started (they inherit its environment), zombies aside."""
        entry = self.tag.encode()
        return [s.pid for s in proc.all_stats() if s.state != "Z" and proc.environ_has(s.pid, entry)]

    def folders(self) -> list[str]:
        return sorted(p.name for p in self.tmp.iterdir())

    def close(self) -> None:
        for pid in self.ours():  # whatever outlived a failure, so a failed run leaves nothing either
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        subprocess.run([*self.tmux, "kill-server"], capture_output=True, check=False)


@pytest.fixture
def demo(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Demo]:
    d = Demo(tmp_path, getattr(request, "param", ("demo",)))
    yield d
    d.close()


def _started(d: Demo) -> bool:
    return d.pidfile.exists()


def _first_frame(d: Demo) -> bool:
    return "starting demo: tool-loop" in d.screen()


def _world(d: Demo) -> bool:
    return any(n.startswith("breaker-demo-") for n in d.folders())


def _agent(d: Demo) -> bool:
    return any("dsh" in proc.cmdline(p) or "node" in proc.cmdline(p) for p in d.ours())


POINTS: dict[str, Callable[[Demo], bool]] = {
    "started": _started,  # Python is importing the command line
    "first-frame": _first_frame,  # the screen is up, the world not yet built
    "world": _world,  # the world's folder exists
    "agent": _agent,  # dsh runs against the mock model
}


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux)")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
@pytest.mark.parametrize("point", list(POINTS))
async def test_a_demo_stopped_while_it_starts_leaves_nothing(demo: Demo, point: str, sig: signal.Signals) -> None:
    await wait_until(lambda: POINTS[point](demo), 90, f"the demo to reach {point!r}")
    pid = demo.pid = int(demo.pidfile.read_text())
    os.kill(pid, sig)
    await wait_until(lambda: not demo.ours(), 60, f"the demo and its processes to end after {sig.name}")
    assert demo.folders() == [], f"left behind after {sig.name} at {point!r}"


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux)")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
async def test_a_demo_stopped_while_it_quits_leaves_nothing(demo: Demo, sig: signal.Signals) -> None:
    """ctrl+q, then the terminal closes (or a SIGTERM) while the monitor quits: the session's signal
    handling is gone by then, and the default action used to kill it before the world was removed.
    """
    await wait_until(lambda: _agent(demo), 90, "dsh to run")
    pid = int(demo.pidfile.read_text())
    subprocess.run([*demo.tmux, "send-keys", "-t", "d", "C-q"], check=True)
    await wait_until(lambda: not _agent(demo) or not proc.alive(pid), 60, "dsh to have quit")
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
    await wait_until(lambda: not demo.ours(), 60, f"the demo and its processes to end after {sig.name}")
    assert demo.folders() == [], f"left behind after {sig.name} while quitting"


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux)")
@pytest.mark.parametrize("demo", [("demo", "--no-tui")], indirect=True)
@pytest.mark.parametrize("point", ["world", "agent"])
async def test_a_demo_without_a_screen_stopped_while_it_starts_leaves_nothing(demo: Demo, point: str) -> None:
    await wait_until(lambda: POINTS[point](demo), 90, f"the demo to reach {point!r}")
    os.kill(int(demo.pidfile.read_text()), signal.SIGTERM)
    await wait_until(lambda: not demo.ours(), 60, "the demo and its processes to end after SIGTERM")
    assert demo.folders() == [], f"left behind after SIGTERM at {point!r}"


def test_the_demo_opens_the_screen_before_its_world_and_the_harnesses(tmp_path: Path) -> None:
    """The registry, the dsh check and the world were built before the first frame: 2-3 s of a blank
    terminal on a busy machine. The screen (`run_app`) must be reached with none of them.
    """
    probe = (
        "import sys, json, os\n"
        "import tui.demo, tui.run\n"
        "from wrapper.settings import Settings\n"
        "def screen(argv, settings, **kw):\n"
        "    harness = sorted(m for m in sys.modules if m.startswith('wrapper.harness.') and 'capabilities' not in m)\n"
        "    print(json.dumps({'harness': harness, 'folders': os.listdir(os.environ['TMPDIR']),"
        " 'setup': kw.get('setup') is not None}))\n"
        "    return 0\n"
        "tui.run.run_app = screen\n"
        "tui.demo.run_demo('tool-loop', Settings())\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    p = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    seen = json.loads(p.stdout.splitlines()[-1])
    assert seen == {"harness": [], "folders": [], "setup": True}
