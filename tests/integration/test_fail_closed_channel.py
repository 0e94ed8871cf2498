"""No verdict, no run: every way the verdict path can be absent or forged, against the real dsh.

One table, one row per door. Each row sets up its fault with real parts (the pinned dsh, the mock
model, the inherited socketpair, a real tmux server, a real ACP process), lets the agent try the
call the monitor would refuse (a loop whose side effect is a marker file), and returns what must
not exist afterwards. The test then asserts, the same for every row, that the side effect did not
happen and that the person was told, on the status stream (stderr / the screen) and in the
recording. A door found later fits a row, or adds one.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import functools
import os
import shlex
import signal
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import wait_until
from tests.integration.runs import Run, open_run, scripted, start
from wrapper.harness.base import recording_line
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.pinned import install_dir, pinned_entry, verify
from wrapper.harness.dsh.session import Session
from wrapper.harness.dsh.world import make_world
from wrapper.harness.registry import open_session
from wrapper.items import Answer, ApprovalItem, Item, Question, ResultItem, StatusItem
from wrapper.mock import scenarios
from wrapper.mock.scenarios import Reply, ToolCallSpec, Turn, dev_server_loop, tool_loop
from wrapper.records.recorder import Recorder
from wrapper.settings import AcpSettings, Settings, WrapperSettings
from wrapper.toolchain import node

pytestmark = pytest.mark.integration

BOUND_S = 5.0  # the hello / liveness bound in these tests: the faults never answer, so any bound is reached


@dataclass
class Ctx:
    """One row's world: where it writes, what it started, and what it saw."""

    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    tmux: list[str]
    items: list[Item] = field(default_factory=list)
    session: Any = None
    recording: Path | None = None
    cleanups: list[Callable[[], object]] = field(default_factory=list)

    def texts(self) -> str:
        """What the person reads: status lines (stderr, the screen) and the tool results the stream shows."""
        return "\n".join(i.text for i in self.items if isinstance(i, (StatusItem, ResultItem)))

    async def saw(self, text: str, timeout: float = 60) -> None:
        await wait_until(lambda: text in self.texts(), timeout, repr(text))


@dataclass(frozen=True)
class Outcome:
    """What the row's agent would have done had the door been open, and what the person must read."""

    ran: Callable[[], bool]  # whether the refused side effect happened
    told: str  # what the person reads (a status line or the refused call's result)
    recorded: str = "NOT MONITORED"  # what the recording says


def _settings(**wrapper: Any) -> Settings:
    return Settings(wrapper=WrapperSettings(bridge_connect_timeout_s=BOUND_S, **wrapper))


async def _dsh(
    ctx: Ctx,
    scenario: str,
    env: dict[str, str] | None = None,
    cls: type[Session] = Session,
    answers: list[Answer] | None = None,
    ready: bool = True,
    approver: Callable[[Question], Awaitable[Answer]] | None = None,
    runner: bool | None = None,
) -> Path:
    """Start the real dsh on `scenario` (the `dev` runner profile); the workspace, where markers appear."""
    world = make_world(scenario, ctx.tmp / "world")
    ctx.cleanups.append(world.close)
    world.env.update(env or {})
    ctx.recording = ctx.tmp / "rec.jsonl"
    answer = approver or scripted(answers, "deny")
    make = functools.partial(cls, runner=runner)
    run = open_run(["dsh", "--profile", "dev"], world, _settings(), answer, ctx.recording, {"row": scenario}, make)
    await _start(ctx, run, 90 if ready else None)
    return world.workspace


async def _start(ctx: Ctx, run: Run[Any], ready_s: float | None) -> None:
    """Start the row's session (waiting until it is ready unless `ready_s` is None), its items the row's."""
    run.items = ctx.items
    ctx.session = run.session
    await start(run, ready_s)
    if run.task is not None:
        ctx.cleanups.append(run.task.cancel)


def _calls(ws: Path) -> int:
    log = ws / "calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


async def _prompt_loop(ctx: Ctx) -> None:
    """Ask for the loop; the prompt may land on a dsh that is already being stopped."""
    with contextlib.suppress(Exception):
        await ctx.session.prompt("Read notes.txt", timeout=5)


def _take_channel(pid: int) -> socket.socket:
    """The channel's end in dsh (fd 3), taken from outside with pidfd_getfd, as a same-user process can."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    try:
        fd = libc.syscall(438, pidfd, 3, 0)  # SYS_pidfd_getfd
        if fd < 0:
            pytest.skip(f"pidfd_getfd is not permitted here (errno {ctypes.get_errno()})")
    finally:
        os.close(pidfd)
    return socket.socket(fileno=fd)


# -- the rows -------------------------------------------------------------------------------------


async def no_hello(ctx: Ctx) -> Outcome:
    """A dsh that never loads the bridge (here: a launcher that drops `--patch`) is stopped unheard."""
    drop = (
        'for a in "$@"; do shift; if [ "$skip" = 1 ]; then skip=0; continue; fi\n'
        'if [ "$a" = --patch ]; then skip=1; continue; fi; set -- "$@" "$a"; done\n'
        f'exec {shlex.quote(str(node()))} {shlex.quote(str(pinned_entry()))} "$@"\n'
    )
    launcher = _script(ctx.tmp / "dsh-without-bridge", drop)
    ws = await _dsh(ctx, "tool-loop", {"BREAKER_TUI_DSH": launcher}, ready=False)
    await _prompt_loop(ctx)
    await ctx.saw("did not say hello")
    return Outcome(lambda: _calls(ws) > 0, "NOT MONITORED: dsh's bridge did not say hello")


async def late_hello(ctx: Ctx) -> Outcome:
    """A dsh that would say hello only after the bound: stopped first; its hello never counts."""
    go = ctx.tmp / "go"
    # waits in one process (no `sleep` children: a process under dsh before its hello is a door of its own)
    wait = (
        "import os, sys, time\n"
        f"while not os.path.exists({str(go)!r}): time.sleep(0.05)\n"
        f"os.execv({str(node())!r}, [{str(node())!r}, {str(pinned_entry())!r}, *sys.argv[1:]])\n"
    )
    body = f'exec {shlex.quote(sys.executable)} -c {shlex.quote(wait)} "$@"\n'
    launcher = _script(ctx.tmp / "slow-dsh", body)
    ws = await _dsh(ctx, "tool-loop", {"BREAKER_TUI_DSH": launcher}, ready=False)
    await ctx.saw("did not say hello")
    go.touch()  # the hello would come now
    assert await ctx.session.wait_exit(30) is not None
    assert "bridge connected" not in ctx.texts()
    return Outcome(lambda: _calls(ws) > 0, "NOT MONITORED")


async def process_before_hello(ctx: Ctx) -> Outcome:
    """A process under a one-shot dsh before its bridge said hello (a tool ran, nobody asked): stopped at once."""
    # the "tool": a child process that would write the marker half a second later
    body = (
        f'sleep 0.5; echo ran >> calls.log\nexec {shlex.quote(str(node()))} {shlex.quote(str(pinned_entry()))} "$@"\n'
    )
    launcher = _script(ctx.tmp / "busy-dsh", body)
    # a one-shot launch (its task would come from the command line, not through the bridge)
    ws = await _dsh(ctx, "tool-loop", {"BREAKER_TUI_DSH": launcher}, ready=False, runner=False)
    await ctx.saw("before its bridge said hello")
    return Outcome(lambda: _calls(ws) > 0, "NOT MONITORED: dsh started pid")


async def hello_then_silence(ctx: Ctx) -> Outcome:
    """A bridge that said hello and then stops answering (dsh frozen) is not monitoring: stopped."""
    ws = await _dsh(ctx, "tool-loop")
    os.kill(ctx.session.child.pid, signal.SIGSTOP)
    await _prompt_loop(ctx)
    await ctx.saw("stopped answering", 90)
    return Outcome(lambda: _calls(ws) > 0, "NOT MONITORED: dsh's bridge stopped answering")


async def channel_closed(ctx: Ctx) -> Outcome:
    """The channel shut from outside mid-session (both directions): stopped."""
    ws = await _dsh(ctx, "tool-loop")
    with _take_channel(ctx.session.child.pid) as ch:
        ch.shutdown(socket.SHUT_RDWR)
    await _prompt_loop(ctx)
    await ctx.saw("NOT MONITORED")
    return Outcome(lambda: _calls(ws) > 0, "NOT MONITORED: dsh's bridge channel was closed")


async def bridge_killed(ctx: Ctx) -> Outcome:
    """The bridge's own side of the channel ends (its writes are cut) while dsh lives on: stopped."""
    ws = await _dsh(ctx, "tool-loop")
    with _take_channel(ctx.session.child.pid) as ch:
        ch.shutdown(socket.SHUT_WR)
    await _prompt_loop(ctx)
    await ctx.saw("NOT MONITORED")
    return Outcome(lambda: _calls(ws) > 0, "NOT MONITORED")


class GarbleSession(Session):
    """Every verdict reaches the bridge as an answer it cannot read (a kind no bridge knows)."""

    async def _send(self, out: P.Out, extra: dict[str, Any] | None = None) -> bool:
        if isinstance(out, P.Verdict) and self.channel is not None and self.channel._writer is not None:
            self.channel._writer.write(b'{"t":"verdict","id":"' + out.id.encode() + b'","kind":"yes, sure"}\n')
            self._record("out", {"t": "verdict", "id": out.id, "garbled": True})
            return True
        return await super()._send(out, extra)


def _listens(pid: int) -> bool:
    """Whether the process holds a listening TCP socket (Node's inspector, once opened)."""
    mine = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    mine.add(link[8:-1])
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                cols = row.split()
                if cols[3] == "0A" and cols[9] in mine:  # 0A: LISTEN
                    return True
    return False


async def inspector_by_signal(ctx: Ctx) -> Outcome:
    """SIGUSR1 from any process of the user opens Node's inspector in dsh (code evaluated inside the
    harness, bridge included): the pinned dsh never opens it, and the loop is still refused.
    """
    ws = await _dsh(ctx, "tool-loop")
    pid = ctx.session.child.pid
    os.kill(pid, signal.SIGUSR1)
    before = ctx.session.turns_done
    assert await ctx.session.prompt("Read notes.txt")
    assert await ctx.session.wait_turn_end(before, 120)  # the inspector, when enabled, is up long before
    return Outcome(lambda: _listens(pid) or _calls(ws) > 4, "REPEAT_TOOL_BLOCKED", "REPEAT_TOOL_BLOCKED")


async def garbage_answers(ctx: Ctx) -> Outcome:
    """An answer the bridge cannot read never runs the call."""
    ws = await _dsh(ctx, "tool-loop", cls=GarbleSession)
    before = ctx.session.turns_done
    assert await ctx.session.prompt("Read notes.txt")
    await ctx.session.wait_turn_end(before, 120)  # (a bridge that ran the calls may never end its turn)
    return Outcome(lambda: _calls(ws) > 0, "the monitor sent an answer the bridge cannot read", "cannot read")


def _env_then_loop(first: str) -> Callable[[Turn], Reply]:
    def scenario(turn: Turn) -> Reply:
        if turn.index == 0:
            return Reply(reasoning=["First, look around."], tool_calls=[ToolCallSpec("bash", {"command": first})])
        return tool_loop(dataclasses.replace(turn, index=turn.index - 1))

    return scenario


async def _loader(ctx: Ctx, name: str, value: str, marker: Path) -> Outcome:
    """Set one loader / multiplexer variable for the session; a first tool dumps its environment."""
    first = "env > env.txt; bash -c true"
    ctx.monkeypatch.setitem(scenarios.SCENARIOS, "env-loop", (_env_then_loop(first), "Read notes.txt.", "test"))
    ws = await _dsh(ctx, "env-loop", {name: value})
    before = ctx.session.turns_done
    assert await ctx.session.prompt("Read notes.txt")
    assert await ctx.session.wait_turn_end(before, 120)

    def ran() -> bool:
        seen = (ws / "env.txt").read_text() if (ws / "env.txt").exists() else ""
        return marker.exists() or f"{name}=" in seen or _calls(ws) > 4

    return Outcome(ran, "removed from the agent's environment (they load code into it or drive your terminal)", name)


async def node_options(ctx: Ctx) -> Outcome:
    """NODE_OPTIONS=--require X, where X drops the bridge's `--patch`: X never runs in dsh."""
    marker = ctx.tmp / "preload-ran"
    preload = ctx.tmp / "drop-patch.cjs"
    preload.write_text(
        f"require('fs').writeFileSync({str(marker)!r}, 'ran');\n"
        "const i = process.argv.indexOf('--patch'); if (i > 0) process.argv.splice(i, 2);\n"
    )
    return await _loader(ctx, "NODE_OPTIONS", f"--require {preload}", marker)


async def bash_env(ctx: Ctx) -> Outcome:
    """BASH_ENV makes every non-interactive bash a tool runs source a file first: it never reaches them."""
    marker = ctx.tmp / "bash-env-ran"
    rc = ctx.tmp / "rc.sh"
    rc.write_text(f"echo ran > {shlex.quote(str(marker))}\n")
    return await _loader(ctx, "BASH_ENV", str(rc), marker)


async def ld_preload(ctx: Ctx) -> Outcome:
    """LD_PRELOAD never reaches dsh or its tools."""
    return await _loader(ctx, "LD_PRELOAD", str(ctx.tmp / "inject.so"), ctx.tmp / "never")


async def tmux_env(ctx: Ctx) -> Outcome:
    """TMUX (where the person's terminal is) never reaches a tool."""
    return await _loader(ctx, "TMUX", "/tmp/tmux-0/default,1,0", ctx.tmp / "never")


async def install_changed(ctx: Ctx) -> Outcome:
    """A file outside `@deepseek-ai` changed (commander, which dsh loads first): the launch is refused."""
    data = ctx.tmp / "data"
    data.mkdir()
    subprocess.run(["cp", "-al", str(install_dir()), str(data / "dsh")], check=True)  # hard links: no copy
    ctx.monkeypatch.setenv("BREAKER_TUI_DATA_DIR", str(data))
    assert verify() == [], "the copy matches its manifest before the change"
    target = data / "dsh" / "node_modules" / "commander" / "index.js"
    marker = ctx.tmp / "commander-ran"
    text = target.read_text()
    target.unlink()  # a new file: the shared install's hard-linked original is untouched
    target.write_text(f"require('fs').writeFileSync({str(marker)!r}, 'ran');\n" + text)
    with pytest.raises(OSError, match=r"commander/index\.js"):
        await _dsh(ctx, "tool-loop", ready=False)
    assert any("changed: node_modules/commander/index.js" in p for p in verify(full=True)), "doctor names it"
    await ctx.saw("breaker-tui setup-dsh --force")
    return Outcome(marker.exists, "NOT MONITORED: the pinned dsh install differs from what was installed")


def _holder_then_ask(sock: str) -> Callable[[Turn], Reply]:
    """A tool plants a helper connected to the multiplexer's socket; then a local-only repeat asks the person."""
    code = f"import socket, time; s = socket.socket(socket.AF_UNIX); s.connect({sock!r}); time.sleep(300)"
    hold = f"nohup python3 -c {shlex.quote(code)} > /dev/null 2>&1 &"

    def scenario(turn: Turn) -> Reply:
        if turn.index == 0:
            return Reply(reasoning=["Start a helper."], tool_calls=[ToolCallSpec("bash", {"command": hold})])
        return dev_server_loop(dataclasses.replace(turn, index=turn.index - 1))

    return scenario


async def multiplexer_answer(ctx: Ctx) -> Outcome:
    """An "allow" that arrives while a tool holds a connection to the terminal multiplexer is refused."""
    subprocess.run([*ctx.tmux, "new-session", "-d", "-s", "t", "sleep 300"], check=True)
    sock = subprocess.run(
        [*ctx.tmux, "display-message", "-p", "-t", "t", "#{socket_path}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    ctx.monkeypatch.setitem(scenarios.SCENARIOS, "mux", (_holder_then_ask(sock), "Poll.", "test"))
    await _dsh(ctx, "mux", answers=["allow-once"] * 8)  # as if typed: `tmux send-keys Tab a`
    before = ctx.session.turns_done
    assert await ctx.session.prompt("Wait for the dev server")
    assert await ctx.session.wait_turn_end(before, 120)

    def allowed() -> bool:  # an asked poll runs only when its approval went back to dsh as allowed
        asked = [i for i in ctx.items if isinstance(i, ApprovalItem) and i.answer is not None]
        assert asked, "the repeat was asked about"
        return any(i.answer in ("allow-once", "allow-turn") for i in asked)

    told = "ALARM: an approval answer arrived while"
    return Outcome(allowed, told, told)


async def multiplexer_client_script(ctx: Ctx) -> Outcome:
    """A helper script runs a short-lived multiplexer client again and again (as a `capture-pane` poller
    does, the socket found by path): the clients come and go between looks, the script stays: refused.
    """
    subprocess.run([*ctx.tmux, "new-session", "-d", "-s", "t", "sleep 300"], check=True)
    sock = subprocess.run(
        [*ctx.tmux, "display-message", "-p", "-t", "t", "#{socket_path}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    poll = f"while :; do tmux -S {shlex.quote(sock)} display-message -p -t t x >/dev/null; sleep 0.3; done"
    hold = f"nohup sh -c {shlex.quote(poll)} > /dev/null 2>&1 &"

    def scenario(turn: Turn) -> Reply:
        if turn.index == 0:
            return Reply(reasoning=["Start a helper."], tool_calls=[ToolCallSpec("bash", {"command": hold})])
        return dev_server_loop(dataclasses.replace(turn, index=turn.index - 1))

    ctx.monkeypatch.setitem(scenarios.SCENARIOS, "mux-script", (scenario, "Poll.", "test"))
    await _dsh(ctx, "mux-script", answers=["allow-once"] * 8)  # as if typed by the helper
    before = ctx.session.turns_done
    assert await ctx.session.prompt("Wait for the dev server")
    assert await ctx.session.wait_turn_end(before, 120)

    def allowed() -> bool:
        asked = [i for i in ctx.items if isinstance(i, ApprovalItem) and i.answer is not None]
        assert asked, "the repeat was asked about"
        return any(i.answer in ("allow-once", "allow-turn") for i in asked)

    told = "ALARM: an approval answer arrived while"
    return Outcome(allowed, told, told)


async def multiplexer_gone_before_the_answer(ctx: Ctx) -> Outcome:
    """A helper holds the multiplexer while the question is open and is gone when the "allow" arrives
    (as a `tmux send-keys` client is): what was seen while the question was open refuses it too.
    """
    subprocess.run([*ctx.tmux, "new-session", "-d", "-s", "t", "sleep 300"], check=True)
    sock = subprocess.run(
        [*ctx.tmux, "display-message", "-p", "-t", "t", "#{socket_path}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    asked, gone = ctx.tmp / "asked", ctx.tmp / "gone"
    code = (
        "import os, socket, time; s = socket.socket(socket.AF_UNIX); "
        f"s.connect({sock!r})\n"
        f"while not os.path.exists({str(asked)!r}): time.sleep(0.05)\n"
        f"time.sleep(5); s.close(); open({str(gone)!r}, 'w').close()\n"
    )
    hold = f"nohup python3 -c {shlex.quote(code)} > /dev/null 2>&1 &"

    def scenario(turn: Turn) -> Reply:
        if turn.index == 0:
            return Reply(reasoning=["Start a helper."], tool_calls=[ToolCallSpec("bash", {"command": hold})])
        return dev_server_loop(dataclasses.replace(turn, index=turn.index - 1))

    async def typed(q: Question) -> Answer:  # the keys arrive after the helper let go of the multiplexer
        asked.touch()
        await wait_until(gone.exists, 60, "the helper to let go")
        return "allow-once"

    ctx.monkeypatch.setitem(scenarios.SCENARIOS, "mux-gone", (scenario, "Poll.", "test"))
    await _dsh(ctx, "mux-gone", approver=typed)
    before = ctx.session.turns_done
    assert await ctx.session.prompt("Wait for the dev server")
    assert await ctx.session.wait_turn_end(before, 180)

    def allowed() -> bool:
        answers = [i.answer for i in ctx.items if isinstance(i, ApprovalItem) and i.answer is not None]
        assert answers, "the repeat was asked about"
        return answers[0] in ("allow-once", "allow-turn")  # the first: asked while the helper held on

    told = "ALARM: an approval answer arrived while"
    return Outcome(allowed, told, told)


SILENT_AGENT = """\
import sys, pathlib
for line in sys.stdin:  # reads every request and answers none: `initialize` never completes
    if 'session/prompt' in line:
        pathlib.Path(sys.argv[1]).write_text('prompted')
"""


async def acp_never_initializes(ctx: Ctx) -> Outcome:
    """An ACP agent that never completes `initialize` is stopped and named."""
    agent = ctx.tmp / "silent_agent.py"
    agent.write_text(SILENT_AGENT)
    marker = ctx.tmp / "prompted"
    ctx.recording = ctx.tmp / "rec.jsonl"
    settings = Settings(acp=AcpSettings(startup_timeout_s=BOUND_S))
    s = open_session(
        [sys.executable, str(agent), str(marker)],
        settings,
        lambda q: asyncio.sleep(0, "deny"),
        cwd=str(ctx.tmp),
        recorder=Recorder(ctx.recording, {"row": "acp"}),
        acp=True,
    )
    await _start(ctx, Run(s), None)
    await ctx.saw("did not complete `initialize`")
    return Outcome(marker.exists, "NOT MONITORED")


DOORS: list[Any] = [
    pytest.param(no_hello, id="no-hello"),
    pytest.param(late_hello, id="late-hello"),
    pytest.param(process_before_hello, id="process-before-hello"),
    pytest.param(hello_then_silence, id="hello-then-silence"),
    pytest.param(channel_closed, id="channel-closed"),
    pytest.param(bridge_killed, id="bridge-killed"),
    pytest.param(garbage_answers, id="garbage-answers"),
    pytest.param(node_options, id="loader-NODE_OPTIONS"),
    pytest.param(bash_env, id="loader-BASH_ENV"),
    pytest.param(ld_preload, id="loader-LD_PRELOAD"),
    pytest.param(inspector_by_signal, id="loader-inspector-by-SIGUSR1"),
    pytest.param(tmux_env, id="multiplexer-TMUX-env"),
    pytest.param(install_changed, id="install-changed-outside-scope"),
    pytest.param(multiplexer_answer, id="multiplexer-answer"),
    pytest.param(multiplexer_gone_before_the_answer, id="multiplexer-gone-before-the-answer"),
    pytest.param(multiplexer_client_script, id="multiplexer-client-script"),
    pytest.param(acp_never_initializes, id="acp-never-initializes"),
]


@pytest.mark.parametrize("door", DOORS)
async def test_no_call_runs_without_a_live_verdict_and_the_person_is_told(
    door: Callable[[Ctx], Awaitable[Outcome]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmux: list[str]
) -> None:
    ctx = Ctx(tmp_path, monkeypatch, tmux)
    try:
        outcome = await door(ctx)
        s = ctx.session
        if s is not None and ctx.texts().count("NOT MONITORED"):
            await wait_until(lambda: s.info.child != "running", 30, "the child to be stopped")
        assert not outcome.ran(), "the refused call (or the injected code) ran"
        assert outcome.told in ctx.texts(), f"the person was not told {outcome.told!r}: {ctx.texts()[-800:]}"
    finally:
        if ctx.session is not None:
            await ctx.session.close()
        for c in reversed(ctx.cleanups):
            with contextlib.suppress(Exception):
                c()
    assert ctx.recording is not None
    assert outcome.recorded in ctx.recording.read_text(), f"the recording says {outcome.recorded!r}"
    if "NOT MONITORED" in outcome.told and ctx.session is not None:
        assert "NOT MONITORED" in recording_line(ctx.session), "the exit line says so"
