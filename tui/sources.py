"""What the app watches: a live session, a replay of a recording, or a scripted feed (tests, snapshots).

A live session can be opened after the screen's first frame (`LiveSource(..., opened=False)`): the
harnesses and the engine behind them take most of a second to import on a busy machine, and a person
should see the screen at once. Until it is open the source is not `ready`, and the app offers only
what needs no session.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import signal
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from wrapper.harness.capabilities import DSH, Capabilities
from wrapper.settings import Settings

if TYPE_CHECKING:  # imported when a session opens: after the first frame (`LiveSource(opened=False)`)
    from wrapper import signals
    from wrapper.harness.base import HarnessSession
    from wrapper.items import Answer, Item, Question
    from wrapper.monitor import Info, Monitor

Emit = Callable[["Item"], None]
Approver = Callable[["Question"], Awaitable["Answer"]]


async def _decline(_: Question) -> Answer:
    return "deny"


class Setup(Protocol):
    """What a command needs built before it can start (the demo's world), built after the first frame.

    `build` runs on a worker thread, telling its progress to `say` (the status line shows it); it returns
    why the command cannot start, or "". Once it has succeeded, `argv`, `env` and `cwd` are the command's.
    `close` (idempotent, on a worker thread too) removes what `build` made; the source calls it once the
    session is closed, while a signal still cannot kill the process outright.
    """

    argv: list[str]
    env: dict[str, str] | None
    cwd: str | None

    def build(self, say: Callable[[str], None]) -> str: ...

    def close(self) -> None: ...


class Breather:
    """Yields to the event loop every few milliseconds while a backlog is drained, so the screen paints."""

    def __init__(self, every_s: float = 0.008) -> None:
        self.every = every_s
        self.last = time.perf_counter()

    async def __call__(self) -> None:
        now = time.perf_counter()
        if now - self.last >= self.every:
            await asyncio.sleep(0)
            self.last = time.perf_counter()


class Source:
    """The interface the app drives; actions a source cannot take say so and return False."""

    kind = "live"
    capabilities: Capabilities = DSH
    ready = True
    """Whether `monitor` and `info` can be read (a live session still opening cannot)."""
    stage = ""
    """What a source still opening is doing (the status line shows it after `starting …`)."""
    first_pending = False
    """A prompt of the source's own (a demo's) has not gone to the agent yet: until it has, the person's
    enter adds a line, so nothing they type jumps ahead of it."""

    def __init__(self, settings: Settings, title: str = "") -> None:
        self.settings = settings
        self.title = title
        self.approver: Approver = _decline
        self.notes: list[str] = []

    @property
    def monitor(self) -> Monitor:
        """The engine and the status info."""
        raise NotImplementedError

    @property
    def mode(self) -> str:
        """`replay` or `live`: which keys exist (see `tui.keys`)."""
        return "replay" if self.kind == "replay" else "live"

    @property
    def recording(self) -> str:
        """`recording: PATH — summary` for the exit message, or "" when nothing was recorded."""
        return ""

    @property
    def info(self) -> Info:
        """Status-line facts."""
        return self.monitor.info

    async def run(self, emit: Emit) -> None:
        """Produce items until the source is exhausted or closed."""
        raise NotImplementedError

    def _unsupported(self, what: str) -> bool:
        self.notes.append(f"{what} is not available in a {self.kind} session")
        return False

    async def prompt(self, text: str) -> bool:
        """Send a human message."""
        return self._unsupported("prompting")

    async def cancel(self) -> bool:
        """Cancel the current turn."""
        return self._unsupported("cancel")

    async def kill(self) -> bool:
        """Kill the child."""
        return self._unsupported("kill")

    async def restart(self) -> bool:
        """Restart the child on the same session."""
        return self._unsupported("restart")

    async def set_choice(self, choice_id: str, value: str) -> bool:
        """Switch one of the agent's settings (its mode, model, ...)."""
        return self._unsupported("switching the agent's settings")

    async def resume(self, session_id: str) -> bool:
        """Restart the agent on a past session (from the session list)."""
        return self._unsupported("resuming a session")

    def sessions_of(self) -> tuple[str, str] | None:
        """(who, working directory) whose past sessions the list shows, or None when there are none to resume."""
        return None

    def cannot_load(self) -> str:
        """Why a session picked from the list would not really be resumed, or "" (the list's header says it)."""
        return ""

    def workdir(self) -> str | None:
        """The folder `@` completes paths in (a live agent that takes prompts), or None."""
        return None

    def set_enforcing(self, on: bool) -> None:
        """Pause or resume enforcement."""
        self.monitor.breaker.set_enforcing(on)

    def reset_windows(self) -> None:
        """Forget the sliding windows."""
        self.monitor.breaker.reset_windows()

    async def close(self) -> None:
        """Release everything."""

    def hang_up(self) -> bool:
        """The terminal is gone: end the run as SIGHUP does. False when there is no run to end that way."""
        return False

    signalled: signal.Signals | None = None
    """The signal (SIGINT, SIGTERM, SIGHUP) that ended the run, if one did."""
    on_open: Callable[[], None] | None = None
    """Set by the app: called when a session opened after the first frame (its capabilities are known)."""
    on_signal: Callable[[signal.Signals], None] | None = None
    """Set by the app: called once the session has shut down after a signal."""


class LiveSource(Source):
    """A real child under a `Session`.

    `opened=False`: the session is opened by `run` (the app starts it after its first frame), once
    `check` (run first, with the harnesses imported) has found nothing that stops the command from
    starting. Until then the capabilities are a guess, corrected when it opens (`on_open`): a prompt
    box, as dsh and the agents take prompts, so what the person types meanwhile is kept. `setup` (the
    demo's world) is built before `check`, and gives the command its `argv`, `env` and `cwd`.
    """

    kind = "live"

    def __init__(
        self,
        argv: list[str],
        settings: Settings,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        first_prompt: str | None = None,
        title: str = "",
        acp: bool = False,
        resume: str | None = None,
        opened: bool = True,
        check: Callable[[], str] | None = None,
        setup: Setup | None = None,
    ) -> None:
        super().__init__(settings, title or " ".join(argv))
        self.argv, self.env, self.cwd, self.acp, self.resume_id = list(argv), env, cwd, acp, resume
        self.first_prompt = first_prompt
        self._first_done = not first_prompt
        self.start_error = ""
        self.who = ""
        self.capabilities = DSH
        self.check = check
        self.setup = setup
        self._session: HarnessSession | None = None
        self._opened = asyncio.Event()
        self._enforcing: bool | None = None  # asked for before the session opened
        self._started = False  # the child was started (a kill before that waits for it: `kill`)
        self._kill_asked = False
        self._signals: signals.Handling | None = None
        if opened:
            self._open()

    def _open(self) -> None:
        from wrapper.harness.registry import open_session, session_label

        self._session = open_session(
            self.argv, self.settings, self._ask, cwd=self.cwd, env=self.env, acp=self.acp, resume=self.resume_id
        )
        self.who = session_label(self.argv, self.acp)
        self.capabilities = self._session.capabilities
        if self._enforcing is not None:
            self._session.set_enforcing(self._enforcing)
        self._opened.set()
        if self.on_open is not None:
            self.on_open()

    @property
    def ready(self) -> bool:  # type: ignore[override]
        """Whether the session is open."""
        return self._session is not None

    @property
    def session(self) -> HarnessSession:
        """The harness session (open: `ready`)."""
        if self._session is None:
            raise RuntimeError("the session is not open yet")
        return self._session

    async def _open_later(self) -> str:
        """Import the harnesses off the event loop (the screen keeps answering), check, open; the problem or ""."""
        await asyncio.to_thread(importlib.import_module, "wrapper.harness.registry")
        if self.setup is not None:
            if why := await asyncio.to_thread(self.setup.build, self._say):
                return why
            self.argv, self.env, self.cwd = list(self.setup.argv), self.setup.env, self.setup.cwd
            self.stage = ""
        if self.check is not None and (why := await asyncio.to_thread(self.check)):
            return why
        try:
            self._open()
        except FileNotFoundError as e:  # a preset agent that is not installed: the message says the fix
            return str(e)
        return ""

    def _say(self, stage: str) -> None:
        self.stage = stage  # from the setup's thread: a string the next paint reads

    async def _ask(self, q: Question) -> Answer:
        return await self.approver(q)

    @property
    def monitor(self) -> Monitor:
        return self.session.monitor

    async def run(self, emit: Emit) -> None:
        from wrapper import signals

        early = self._stop_on_signals(signals.HANDLED)  # until the session's own handling replaces it
        try:
            why = await self._open_and_start()
        except BaseException:
            early()
            raise
        if why:
            early()
            self._first_done = True  # nothing will take the first prompt
            from wrapper.items import StatusItem

            self.start_error = why
            emit(StatusItem("error", self.start_error, {"cannot_start": True}))
            return
        # SIGINT, SIGTERM and SIGHUP (the terminal closed) stop the child's group, remove the run
        # directory and close the recording before the app exits, as in every other mode
        self._signals = signals.install(self.session, after=self._signalled)
        self._started = True
        if self._kill_asked:  # ctrl+k while it started: stopped now, and no demo prompt goes to it
            self._first_done = True
            await self.session.kill()
        elif self.first_prompt:
            self._first = asyncio.ensure_future(self._first_prompt())
        breathe = Breather()
        async for item in self.session:
            emit(item)
            await breathe()

    async def _open_and_start(self) -> str:
        """Open the session (unless it is open) and start the child; what stopped it, or ""."""
        why = "" if self._session is not None else await self._open_later()
        if not why:
            try:
                await self.session.start()
            except OSError as e:
                why = f"could not start {self.session.argv[0]}: {e}"
        return why

    def _stop_on_signals(self, which: tuple[signal.Signals, ...]) -> Callable[[], None]:
        """While the session opens and starts, a signal ends the screen at once (nothing runs yet to shut down).

        The session's own handling (`wrapper.signals`) replaces this once the child has started; until
        then the default action would kill the process before the screen is put back and a demo's
        temporary world is removed. Returns what puts the default back.
        """
        loop = asyncio.get_running_loop()
        for sig in which:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self._signalled, sig)

        def restore() -> None:
            for sig in which:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)

        return restore

    def _signalled(self, sig: signal.Signals) -> None:
        self.signalled = sig
        if self.on_signal is not None:
            self.on_signal(sig)

    @property
    def first_pending(self) -> bool:  # type: ignore[override]
        """The first prompt (a demo's) is still to be sent: see `Source.first_pending`."""
        return not self._first_done

    async def _first_prompt(self) -> None:
        try:
            if self.session.info.runner and await self.session.wait_ready(90):
                await self.session.prompt(self.first_prompt or "")
        finally:
            self._first_done = True  # sent, or never will be: the person's enter sends again

    async def prompt(self, text: str) -> bool:
        await self._opened.wait()  # sent before the session opened: it goes once it has
        return await self.session.prompt(text)

    async def cancel(self) -> bool:
        return await self.session.cancel()

    async def kill(self) -> bool:
        """Kill the child; asked before it was started (the first second or so), once it has been."""
        if not self._started:
            self._kill_asked = True
            return True
        return await self.session.kill() is not None

    @property
    def kill_waits(self) -> bool:
        """A kill was asked for before the child started: it is stopped the moment it has."""
        return self._kill_asked and not self._started

    async def restart(self) -> bool:
        return await self.session.restart()

    async def set_choice(self, choice_id: str, value: str) -> bool:
        setter = getattr(self.session, "set_choice", None)  # ACP agents only
        if setter is None:
            return self._unsupported("switching the agent's settings")
        return bool(await setter(choice_id, value))

    async def resume(self, session_id: str) -> bool:
        resume = getattr(self.session, "resume", None)  # ACP agents and dsh's runner
        if resume is None:
            return self._unsupported("resuming a session")
        return bool(await resume(session_id))

    def sessions_of(self) -> tuple[str, str] | None:
        if self._session is None or getattr(self.session, "resume", None) is None or not self.who:
            return None
        return self.who, str(getattr(self.session, "cwd", None) or self.cwd or os.getcwd())

    def cannot_load(self) -> str:
        caps = getattr(self._session, "agent_caps", None)  # ACP: what `initialize` answered
        if isinstance(caps, dict) and caps and not caps.get("loadSession"):
            return (
                f"{self.who} does not advertise loadSession: picking a session starts a new one, without the old turns"
            )
        return ""

    def workdir(self) -> str | None:
        if not self.capabilities.prompt:
            return None
        return str(getattr(self._session, "cwd", None) or self.cwd or os.getcwd())

    def set_enforcing(self, on: bool) -> None:
        if self._session is None:  # `--observe`: applied as the session opens
            self._enforcing = on
            return
        self.session.set_enforcing(on)

    def reset_windows(self) -> None:
        self.session.reset_windows()

    @property
    def recording(self) -> str:
        if self._session is None:  # nothing was started, nothing recorded
            return ""
        from wrapper.harness.base import recording_line

        return recording_line(self.session)

    def hang_up(self) -> bool:
        # the same shutdown as a SIGHUP (a real one may be under way already: then nothing more);
        # before the signals are installed the session is still starting, and `close` ends it
        if self._signals is None:
            return False
        self._signals.hang_up()
        return True

    async def close(self) -> None:
        """Quit the child, close the session, then the setup (a demo's world).

        The session's signal handling goes (asyncio puts each signal's default back), so a signal
        meanwhile would kill the process before the run directory and the world are removed: until the
        end a signal hurries the shutdown instead (the child's group killed at once, as a second signal does).
        """
        from wrapper import signals

        if self._signals is not None:
            self._signals()
        loop = asyncio.get_running_loop()
        for sig in signals.HANDLED:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self._hurry, sig)
        try:
            if self._session is not None:
                if self.session.info.child == "running":
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(self.session.quit(0), 8)
                await self.session.close()
        finally:
            if self.setup is not None:
                await asyncio.to_thread(self.setup.close)

    def _hurry(self, sig: signal.Signals) -> None:
        """A signal while the source closes: no grace left for the child."""
        if self.signalled is None:
            self.signalled = sig
        if self._session is not None:
            self._session.shutdown_now()


class ScriptedSource(Source):
    """dsh's bridge messages played from memory through its real monitor: Pilot tests and snapshots.

    Approval requests go to the app's approver (the modal), exactly as in a live session;
    actions are recorded in `actions` instead of reaching a child.
    """

    kind = "scripted"

    def __init__(
        self,
        messages: list[dict[str, Any]],
        settings: Settings | None = None,
        title: str = "scripted",
        capabilities: Capabilities = DSH,
    ) -> None:
        super().__init__(settings or Settings(), title)
        self.capabilities = capabilities
        from wrapper.harness.registry import harness

        self._feed = harness("dsh").scripted(self.settings)
        self.messages = list(messages)
        self.actions: list[str] = []
        self.answers: list[Answer] = []
        self.more: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.drained = asyncio.Event()  # set once the initial messages are processed
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def monitor(self) -> Monitor:
        return self._feed.monitor

    def feed(self, *messages: dict[str, Any]) -> None:
        """Add messages while the app runs."""
        for m in messages:
            self.more.put_nowait(m)

    async def run(self, emit: Emit) -> None:
        for raw in self.messages:
            await self._one(raw, emit)
        self.drained.set()
        breathe = Breather()
        while True:
            more = await self.more.get()
            if more is None:
                return
            await self._one(more, emit)
            await breathe()

    async def _one(self, raw: dict[str, Any], emit: Emit) -> None:
        from wrapper.items import ApprovalItem

        played = self._feed.play(raw)
        for item in played.items:
            emit(item)
        if played.question is not None and played.answer is not None:
            emit(ApprovalItem(played.question))
            # as the session does: the feed goes on while the question waits
            task = asyncio.ensure_future(self._approval(played.question, played.answer, emit))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _approval(self, q: Question, answered: Callable[[Answer], None], emit: Emit) -> None:
        from wrapper.items import ApprovalItem

        answer = await self.approver(q)
        self.answers.append(answer)
        answered(answer)
        if answer == "cancel-turn":
            await self.cancel()
        emit(ApprovalItem(q, answer, "person"))

    async def prompt(self, text: str) -> bool:
        self.actions.append(f"prompt:{text}")
        return True

    async def cancel(self) -> bool:
        self.actions.append("cancel")
        return True

    async def kill(self) -> bool:
        self.actions.append("kill")
        self.info.child = "exited"
        return True

    async def restart(self) -> bool:
        self.actions.append("restart")
        self.info.child = "running"
        return True

    def set_enforcing(self, on: bool) -> None:
        self.actions.append(f"enforcing:{on}")
        super().set_enforcing(on)

    def reset_windows(self) -> None:
        self.actions.append("reset-windows")
        super().reset_windows()

    async def close(self) -> None:
        self.more.put_nowait(None)
        for t in list(self._tasks):
            t.cancel()
