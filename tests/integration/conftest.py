"""Real dsh (installed by `breaker-tui setup-dsh`) against the mock model, one private world per test."""

from __future__ import annotations

import asyncio
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, wait_until
from wrapper.harness.dsh.provision import find_dsh
from wrapper.harness.dsh.session import Session
from wrapper.harness.dsh.world import make_world
from wrapper.items import Answer, Item, Question, StatusItem, VerdictItem
from wrapper.mock.world import World
from wrapper.records.recorder import Recorder
from wrapper.settings import Settings, WrapperSettings

DSH_ARGV = ["dsh", "--profile", "dev"]


@pytest.fixture(scope="session", autouse=True)
def _dsh_installed() -> None:
    if find_dsh() is None:
        pytest.fail("dsh is not installed: run `make dsh` (breaker-tui setup-dsh) before the integration tests")


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


@dataclass
class Run:
    """A live session and everything it produced."""

    session: Session
    world: World
    items: list[Item] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    def verdicts(self) -> list[VerdictItem]:
        return [i for i in self.items if isinstance(i, VerdictItem)]

    def of(self, kind: type) -> list[Any]:
        return [i for i in self.items if isinstance(i, kind)]

    def status(self, kind: str) -> list[StatusItem]:
        return [i for i in self.items if isinstance(i, StatusItem) and i.kind == kind]

    async def until(self, pred: Callable[[], bool], timeout: float = 30, what: str = "condition") -> None:
        """Wait for a condition on what arrived so far (every wait has a timeout)."""
        await wait_until(pred, timeout, what)

    async def turn(self, prompt: str, timeout: float = 60) -> None:
        before = self.session.turns_done
        assert await self.session.prompt(prompt), "the prompt was not accepted"
        assert await self.session.wait_turn_end(before, timeout), f"turn for {prompt!r} did not end in {timeout}s"


def settings(**wrapper: Any) -> Settings:
    return Settings(wrapper=WrapperSettings(**wrapper))


@pytest.fixture
async def run_factory(world_factory: Any, tmp_path: Path) -> AsyncIterator[Any]:
    runs: list[Run] = []
    pumps: list[asyncio.Task[None]] = []

    async def start(
        scenario: str,
        answers: list[Answer] | None = None,
        cfg: Settings | None = None,
        session_cls: type[Session] = Session,
    ) -> Run:
        world = world_factory(scenario)
        queue = list(answers or [])
        run: Run

        async def approver(q: Question) -> Answer:
            run.questions.append(q)
            return queue.pop(0) if queue else "deny"

        rec = Recorder(tmp_path / f"rec-{len(runs)}.jsonl", {"scenario": scenario})
        s = session_cls(DSH_ARGV, cfg or settings(), approver, cwd=str(world.workspace), env=world.env, recorder=rec)
        run = Run(s, world)
        runs.append(run)
        await s.start()

        async def pump() -> None:
            async for item in s:
                run.items.append(item)

        pumps.append(asyncio.create_task(pump()))
        assert await s.wait_ready(60), f"dsh runner never became ready: {run.items[-5:]}"
        return run

    yield start
    for r in runs:
        await r.session.close()
    for p in pumps:
        try:
            await asyncio.wait_for(p, 10)
        except (TimeoutError, asyncio.CancelledError):
            p.cancel()
