"""`breaker-tui demo`: a real dsh, the built-in mock model and a scripted loop, under the monitor.

The demo's world (the agent's check, the mock model, a private home and a workspace in a temporary
folder) is built after the screen's first frame, on a worker thread, with the progress on the status
line (`DemoWorld.build`, run by `LiveSource` as its setup): a person sees the screen at once however
busy the machine is.

The folder is never left behind by a demo stopped while it starts or ends. Its removal is armed before
it exists: it is created only inside `build`, which runs while a signal ends the screen through the
app, and the screen's source closes it (`close`) once the session is closed, while a signal still only
hurries the shutdown (`LiveSource.close`); `run_demo` closes it too, in case the screen never started
the source. `close` holds SIGINT, SIGTERM and SIGHUP until the folder is gone. Without a screen
(`--no-tui`) a signal raises `SystemExit` until the event loop handles it, so `close` runs too. What
nothing can arm against (SIGKILL, a power cut) is swept by the next demo: each folder holds an owner
lock its demo keeps while it runs (`sweep`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NamedTuple

from wrapper.mock.scenarios import SCENARIOS
from wrapper.settings import Settings

if TYPE_CHECKING:
    from wrapper.harness.declaration import Harness
    from wrapper.mock.world import World

OWNER = ".owner"  # the lock file in each demo folder, held (flock) by the demo using it
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Plain(NamedTuple):
    """`demo --no-tui`'s output options, as the main command takes them (`--json`, `--quiet`)."""

    as_json_lines: bool = False
    quiet: bool = False


PLAIN = Plain()


def _dsh() -> Harness:
    """dsh's declaration, looked up when a demo runs (`demo --list` stays clear of the harnesses)."""
    from wrapper.harness.registry import harness

    return harness("dsh")


def installed_agents() -> list[str]:
    """The ACP agents `--agent` can run here (installed by `setup-agent` or found on PATH)."""
    from wrapper.harness.registry import installed_agents as ready

    return ready()


def scenario_list() -> str:
    """`demo --list`: each scenario, what it shows, its prompt, and which kind of agent it needs."""
    from wrapper.mock.scenarios import NEEDS_ACP, NEEDS_DSH, NOT_WITH

    rows = []
    for name, (_, prompt, desc) in SCENARIOS.items():
        mark = " [needs --agent]" if name in NEEDS_ACP else " [dsh only]" if name in NEEDS_DSH else ""
        if name in NOT_WITH:
            mark += f" [not with {', '.join(NOT_WITH[name])}]"
        rows.append(f"{name:22} {desc}{mark}   (prompt: {prompt!r})")
    ready = installed_agents()
    if ready:
        example = f"demo plan-and-edit --agent {ready[0]}"
        rows.append(f"\nwith an ACP agent instead of dsh: --agent {' | '.join(ready)}  (e.g. {example})")
    else:
        rows.append("\n[needs --agent]: install one first, e.g. breaker-tui setup-agent claude")
    return "\n".join(rows)


def demo_problem(scenario: str, agent: str | None) -> str:
    """Why `scenario` cannot run as asked (with what to run instead), or ""."""
    from wrapper.mock.scenarios import NEEDS_ACP, NEEDS_DSH, NOT_WITH

    if agent is not None:
        from wrapper.harness.registry import known_agents

        if agent not in known_agents():
            return f"unknown agent {agent!r}; the known ones: {', '.join(known_agents())} (see `breaker-tui agents`)"
    if agent is None and scenario in NEEDS_ACP:
        ready = installed_agents()
        how = (
            f"run it with one: breaker-tui demo {scenario} --agent {ready[0]}"
            if ready
            else "install one first (breaker-tui setup-agent claude), then add --agent claude"
        )
        return f"{scenario} needs {NEEDS_ACP[scenario]}; {how}"
    if agent is not None and scenario in NEEDS_DSH:
        return f"{scenario} needs {NEEDS_DSH[scenario]}; run it without --agent"
    if agent is not None and agent in NOT_WITH.get(scenario, {}):
        others = [a for a in installed_agents() if a not in NOT_WITH[scenario]]
        how = f"breaker-tui demo {scenario} --agent {others[0]}" if others else f"breaker-tui demo {scenario}"
        return f"{scenario} cannot play with {agent}: {NOT_WITH[scenario][agent]}; run it with another: {how}"
    return ""


def ensure_dsh(say: Callable[[str], None]) -> str:
    """Install dsh on first use, its progress told to `say`; why that failed, or ""."""
    from wrapper.toolchain import ProvisionError

    if _dsh().find() is not None:
        return ""
    say("dsh is not installed yet; setting it up (one time, needs the npm registry) ...")
    try:
        _dsh().setup(say, False)
    except ProvisionError as e:
        return str(e)
    return ""


def sweep(tmp: Path | None = None) -> list[Path]:
    """Remove the folders of demos that ended without removing theirs; the ones removed.

    A folder is stale when nobody holds its owner lock (the kernel drops a lock with its process,
    however that ended). A folder without the lock file is skipped: a demo may be creating it.
    """
    gone = []
    for d in Path(tmp or tempfile.gettempdir()).glob(
        "breaker-*"
    ):  # dsh's `breaker-demo-*`, an agent's `breaker-NAME-*`
        try:
            fd = os.open(d / OWNER, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its demo runs
            continue
        else:
            shutil.rmtree(d, ignore_errors=True)
            gone.append(d)
        finally:
            os.close(fd)
    return gone


@contextlib.contextmanager
def held_signals() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP wait until the block is done, then end the process (`SystemExit`, 128 + n).

    Handlers, not a signal mask: a mask covers one thread, and the mock model's threads would take
    the signal with its default action, which ends the process at once. Off the main thread (the
    screen's worker) nothing changes: the event loop has the signals there.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []

    def note(sig: int, _: FrameType | None) -> None:
        came.append(sig)

    with _stopping_signals_to(note):
        yield
    if came:
        raise SystemExit(128 + came[0])


@contextlib.contextmanager
def exiting_on_signals() -> Iterator[None]:
    """Until an event loop handles them, SIGINT, SIGTERM and SIGHUP raise `SystemExit` (so `finally` runs)."""

    def end(sig: int, _: FrameType | None) -> None:
        raise SystemExit(128 + sig)

    with _stopping_signals_to(end):
        yield


@contextlib.contextmanager
def _stopping_signals_to(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP go to `handler` within the block; the handlers before are put back after."""
    before = {sig: signal.signal(sig, handler) for sig in STOPPING}
    try:
        yield
    finally:
        for sig, was in before.items():
            signal.signal(sig, was)


class DemoWorld:
    """The scenario's world for dsh or an ACP agent, built by `build`, removed by `close` (see the module).

    `argv`, `env` and `cwd` are the command's once `build` has succeeded. `build` runs on a worker
    thread and `close` on the main one: the lock keeps `close` from removing the folder while `build`
    is filling it, and `build` from starting once `close` has run.
    """

    def __init__(self, scenario: str, agent: str | None = None) -> None:
        self.scenario, self.agent = scenario, agent
        self.argv: list[str] = [agent] if agent else []
        self.env: dict[str, str] | None = None
        self.cwd: str | None = None
        self.world: World | None = None
        self._owner = -1
        self._lock = threading.Lock()
        self._closed = False

    def build(self, say: Callable[[str], None]) -> str:
        """Check the agent, start the mock model and lay the folder out; why it cannot run, or ""."""
        if self.agent is not None:
            say(f"checking {self.agent}")
            if self.agent not in installed_agents():
                return f"{self.agent} is not installed: run `breaker-tui setup-agent {self.agent}`"
        else:
            say("checking dsh")
            if why := ensure_dsh(say):
                return why
            self.argv = list(_dsh().demo_argv)
        sweep()
        say("starting the mock model")
        # on the main thread (`--no-tui`) a signal waits until the world is held, so `close` removes it
        with self._lock, held_signals():
            if self._closed:
                return "stopped while starting"
            world = self.world = self._make()
            self._own(world.root)
        self.env, self.cwd = world.env, str(world.workspace)
        return ""

    def _make(self) -> World:
        if self.agent is not None:
            from wrapper.harness.registry import agent_world

            return agent_world(self.agent, self.scenario)
        return _dsh().demo_world(self.scenario)

    def _own(self, root: Path) -> None:
        """Take the folder's owner lock (non-inheritable: the agent and its tools never hold it)."""
        self._owner = os.open(root / OWNER, os.O_WRONLY | os.O_CREAT, 0o600)
        fcntl.flock(self._owner, fcntl.LOCK_EX)

    def close(self) -> None:
        """Stop the mock model and remove the folder (once; again does nothing), the stopping signals held
        until it is gone. The screen's source calls it as it closes; `run_demo` again, in case it never did.
        """
        with held_signals(), self._lock:
            self._closed = True
            if self.world is not None:
                self.world.close()
                self.world = None
            if self._owner >= 0:
                os.close(self._owner)
                self._owner = -1


def run_demo(
    scenario: str,
    settings: Settings,
    headless: bool = False,
    theme: str | None = None,
    agent: str | None = None,
    plain: Plain = PLAIN,
) -> int:
    """Run one scenario with dsh, or with an installed ACP agent (`agent`); returns the exit status."""
    world = DemoWorld(scenario, agent)
    prompt = SCENARIOS[scenario][1]
    if headless:
        return _run_plain(world, settings, prompt, plain)
    from tui.run import run_app

    try:
        return run_app(
            world.argv,
            settings,
            theme=theme,
            first_prompt=prompt,
            title=f"demo: {scenario}" + (f" · {agent}" if agent else ""),
            setup=world,
        )
    finally:
        world.close()


def _run_plain(world: DemoWorld, settings: Settings, prompt: str, plain: Plain) -> int:
    """`demo --no-tui`: the world built first, progress on stderr, then the headless run."""
    from wrapper.exits import Exit
    from wrapper.headless import run

    with exiting_on_signals():  # until `run`'s event loop handles them
        try:
            if why := world.build(lambda s: print(f"breaker-tui demo: {s}", file=sys.stderr, flush=True)):
                print(f"breaker-tui demo: {why}", file=sys.stderr)
                return Exit.CANNOT_START
            json_lines, quiet = plain
            return asyncio.run(
                run(world.argv, settings, [prompt], json_lines, env=world.env, cwd=world.cwd, quiet=quiet)
            )
        finally:
            world.close()
