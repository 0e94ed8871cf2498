"""Real dsh (installed by `breaker-tui setup-dsh`) against the mock model, one private world per test."""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.integration.runs import Run, open_run, scripted
from tests.integration.runs import start as start_run
from wrapper.harness.dsh.provision import find_dsh
from wrapper.harness.dsh.session import Session
from wrapper.harness.dsh.world import make_world
from wrapper.items import Answer
from wrapper.mock.world import World
from wrapper.settings import Settings, WrapperSettings

DSH_ARGV = ["dsh", "--profile", "dev"]


@pytest.fixture(scope="session", autouse=True)
def _dsh_installed() -> None:
    if find_dsh() is None:
        pytest.fail("dsh is not installed: run `make dsh` (breaker-tui setup-dsh) before the integration tests")


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """Folder `name`, filled by `make` once for the whole run and shared by every xdist worker.

    For an expensive setup that the tests only read (a person's npm prefix with four agents installed):
    each worker's session fixture used to install its own copy. The first worker to get here fills it
    while holding a lock; the others wait on the lock (bounded by `make`'s own timeouts) and find it made.
    A `make` that raises (or skips) leaves no mark, so the next worker tries again.
    """
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    where, done = root / name, root / f"{name}.made"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir()
            make(where)
            done.touch()
    return where


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A private TMPDIR, short enough for the run directory's paths (a test checks it is left empty)."""
    d = Path(tempfile.mkdtemp(prefix="bt-", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def tmux() -> Iterator[list[str]]:
    """A tmux server of this test's own (its own socket, no user config), killed at the end."""
    cmd = ["tmux", "-L", f"bt-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]
    yield cmd
    subprocess.run([*cmd, "kill-server"], capture_output=True, check=False)


@dataclass(frozen=True)
class Pane:
    """The TUI in tmux pane `t` of the test's own tmux server: where its pid and its state appear."""

    tmux: list[str]
    pidfile: Path
    state: Path  # its BREAKER_TUI_STATE_DIR

    def screen(self) -> str:
        """What the pane shows now, as text."""
        return subprocess.run([*self.tmux, "capture-pane", "-p", "-t", "t"], capture_output=True, text=True).stdout


def tui_pane(
    tmux: list[str],
    tmp_path: Path,
    world: World,
    tmpdir: Path,
    args: list[str],
    wrap: tuple[str, ...] = (),
    hold_until: Path | None = None,
) -> Pane:
    """Start `breaker-tui ARGS` in a 100x30 tmux pane, in `world`'s workspace, as a person's shell would.

    Its state goes under `tmp_path/state`, its TMPDIR is `tmpdir`. `wrap` goes before the command
    (`setsid -w`); with `hold_until`, the shell waits, reading nothing, until that file exists (what the
    test types meanwhile waits in the terminal). The pid file is written beside and renamed, so it
    appears only with its number in it (a reader polling for it once found it created and still empty).
    """
    state = tmp_path / "state"
    env = {
        **world.env,
        "TMPDIR": str(tmpdir),
        "BREAKER_TUI_STATE_DIR": str(state),
        "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT),
    }
    pidfile = tmp_path / "tui.pid"
    part = str(pidfile) + ".part"
    save_pid = f"open({part!r}, 'w').write(str(os.getpid())); os.replace({part!r}, {str(pidfile)!r})"
    code = f"import os, sys; {save_pid}; from tui.cli import main; sys.exit(main())"
    argv = [*wrap, sys.executable, "-c", code, *args]
    exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items() if k.isidentifier())
    hold = f"while [ ! -e {shlex.quote(str(hold_until))} ]; do sleep 0.05; done\n" if hold_until else ""
    script = tmp_path / "pane.sh"
    script.write_text(f"{exports}cd {shlex.quote(str(world.workspace))}\n{hold}exec {shlex.join(argv)}\n")
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "-x", "100", "-y", "30", f"sh {script}"], check=True)
    return Pane(tmux, pidfile, state)


@pytest.fixture
def world_factory(tmp_path: Path) -> Any:
    worlds: list[World] = []

    def make(scenario: str) -> World:
        w = make_world(scenario, tmp_path / f"world-{len(worlds)}")
        worlds.append(w)
        return w

    yield make
    for w in worlds:
        w.close()


def settings(**wrapper: Any) -> Settings:
    return Settings(wrapper=WrapperSettings(**wrapper))


@pytest.fixture
async def run_factory(world_factory: Any, tmp_path: Path) -> AsyncIterator[Any]:
    """Start the real dsh on a scenario: `await run_factory("tool-loop", answers=["deny"])`.

    The person answers from `answers`, then denies; `session_cls` puts a fault of the test's own into the
    dsh session. Every run is closed when the test ends.
    """
    runs: list[Run[Session]] = []

    async def start(
        scenario: str,
        answers: list[Answer] | None = None,
        cfg: Settings | None = None,
        session_cls: type[Session] = Session,
    ) -> Run[Session]:
        world = world_factory(scenario)
        rec = tmp_path / f"rec-{len(runs)}.jsonl"
        make = None if session_cls is Session else session_cls
        run = open_run(DSH_ARGV, world, cfg or settings(), scripted(answers, "deny"), rec, {"scenario": scenario}, make)
        runs.append(run)
        return await start_run(run, 60)

    yield start
    for r in runs:
        await r.close()
