"""What the app watches: a live session, a replay of a recording, or a scripted feed (tests, snapshots)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

from wrapper import protocol as P
from wrapper.harness.capabilities import DSH, PLAIN, REPLAY, Capabilities
from wrapper.items import Answer, ApprovalClosed, ApprovalItem, Item, Question, StatusItem, TripItem
from wrapper.monitor import Info, Monitor
from wrapper.replay import Player, describe_command
from wrapper.session import Session
from wrapper.settings import Settings
from wrapper.sources import Loaded

Emit = Callable[[Item], None]
Approver = Callable[[Question], Awaitable[Answer]]


async def _decline(_: Question) -> Answer:
    return "deny"


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

    def set_enforcing(self, on: bool) -> None:
        """Pause or resume enforcement."""
        self.monitor.breaker.set_enforcing(on)

    def reset_windows(self) -> None:
        """Forget the sliding windows."""
        self.monitor.breaker.reset_windows()

    async def close(self) -> None:
        """Release everything."""


class LiveSource(Source):
    """A real child under a `Session`."""

    kind = "live"

    def __init__(
        self,
        argv: list[str],
        settings: Settings,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        first_prompt: str | None = None,
        title: str = "",
    ) -> None:
        super().__init__(settings, title or " ".join(argv))
        self.session = Session(argv, settings, self._ask, cwd=cwd, env=env)
        self.capabilities = DSH if self.session.info.dsh else PLAIN
        self.first_prompt = first_prompt
        self.start_error = ""

    async def _ask(self, q: Question) -> Answer:
        return await self.approver(q)

    @property
    def monitor(self) -> Monitor:
        return self.session.monitor

    async def run(self, emit: Emit) -> None:
        try:
            await self.session.start()
        except OSError as e:
            self.start_error = f"could not start {self.session.argv[0]}: {e}"
            emit(StatusItem("error", self.start_error, {"cannot_start": True}))
            return
        if self.first_prompt:
            self._first = asyncio.ensure_future(self._first_prompt())
        breathe = Breather()
        async for item in self.session:
            emit(item)
            await breathe()

    async def _first_prompt(self) -> None:
        if self.session.info.runner and await self.session.wait_ready(90):
            await self.session.prompt(self.first_prompt or "")

    async def prompt(self, text: str) -> bool:
        return await self.session.prompt(text)

    async def cancel(self) -> bool:
        return await self.session.cancel()

    async def kill(self) -> bool:
        return await self.session.kill() is not None

    async def restart(self) -> bool:
        return await self.session.restart()

    def set_enforcing(self, on: bool) -> None:
        self.session.set_enforcing(on)

    def reset_windows(self) -> None:
        self.session.reset_windows()

    @property
    def recording(self) -> str:
        rec = self.session.recorder
        if rec is None or not rec.lines:
            return ""
        agents = self.monitor.breaker.snapshot().agents
        denied, trips = sum(a.denials for a in agents), sum(a.trips for a in agents)
        summary = f"{self.session.turns_done} turn(s), {denied} denied, {trips} trip(s)"
        return f"recording: {rec.path} — {summary}" + (f" ({rec.error})" if rec.error else "")

    async def close(self) -> None:
        if self.session.info.child == "running":
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.session.quit(0), 8)
        await self.session.close()


class ReplaySource(Source):
    """A recording or a dsh log as a player: play / pause, step and seek both ways, jump between trips.

    The engine state shown is the state at `position` (see `wrapper.replay.Player`). A backward move
    emits `StatusItem("rewind")` first, then the items up to the new position: the screen starts over.
    """

    kind = "replay"
    capabilities = REPLAY

    def __init__(self, loaded: Loaded, settings: Settings, speed: float = 1.0, paused: bool = False) -> None:
        super().__init__(settings, f"replay: {loaded.path.name}")
        self.player = Player(loaded, settings)
        self.speed = speed
        self.paused = paused
        self.done = False
        self._target: int | None = None
        self._wake = asyncio.Event()
        self._closed = False

    @property
    def monitor(self) -> Monitor:
        return self.player.monitor

    @property
    def position(self) -> int:
        """Steps played so far."""
        return self.player.position

    @property
    def total(self) -> int:
        """Steps in the recording."""
        return self.player.total

    def _poke(self) -> None:
        self._wake.set()

    def toggle_pause(self) -> None:
        """Play or pause (playing at the end starts over)."""
        self.paused = not self.paused
        if not self.paused and self.position >= self.total:
            self._target = 0
        self._poke()

    def step(self, n: int = 1) -> None:
        """Pause and move `n` steps (negative: back)."""
        self.seek((self._target if self._target is not None else self.position) + n)

    def seek(self, target: int) -> None:
        """Pause at `target` (-1: the end)."""
        self.paused = True
        self._target = self.total if target < 0 else max(0, min(self.total, target))
        self._poke()

    def jump(self, direction: int) -> bool:
        """Pause at the next (1) or previous (-1) trip or denial; False when there is none."""
        mark = self.player.mark(direction)
        if mark is None:
            self.notes.append("no further trip or denial" if direction > 0 else "no earlier trip or denial")
            return False
        self.seek(mark)
        return True

    def next_trip(self) -> None:
        """Run to the next trip or denial, then pause."""
        self.jump(1)

    def change_speed(self, factor: float) -> None:
        """Multiply the speed (between 1/8 and 64)."""
        self.speed = max(0.125, min(64.0, (self.speed or 1.0) * factor))

    def faster(self) -> None:
        """Double the speed."""
        self.change_speed(2)

    def slower(self) -> None:
        """Halve the speed."""
        self.change_speed(0.5)

    async def run(self, emit: Emit) -> None:
        while not self._closed:
            if self._target is not None:
                target, self._target = self._target, None
                rewound, items = self.player.seek(target)
                if rewound:
                    emit(StatusItem("rewind", f"back to step {target}"))
                for item in items:
                    emit(item)
                continue
            if self.paused or self.position >= self.total:
                if self.position >= self.total and not self.done:
                    self.done = True
                    mism = self.player.mismatches
                    emit(
                        StatusItem(
                            "notice",
                            f"replay finished: {self.total} steps"
                            + (f"; {len(mism)} live decisions not reproduced" if mism else ""),
                        )
                    )
                self._wake.clear()
                await self._wake.wait()
                continue
            self.done = False
            gap = self.player.gap() / self.speed if self.speed > 0 else 0.0
            if gap > 0:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), min(gap, 2.0))
                if self._wake.is_set():  # a key was pressed meanwhile: obey it first
                    continue
            for item in self.player.forward(1):
                emit(item)
            if self.speed <= 0 and self.position % 64 == 0:
                await asyncio.sleep(0)  # full speed still lets the screen breathe

    async def close(self) -> None:
        self._closed = True
        self._poke()


class ScriptedSource(Source):
    """Bridge messages played from memory through a real `Monitor`: Pilot tests and snapshots.

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
        self._monitor = Monitor(self.settings, Info(dsh=True, runner=True, child="running", bridge="connected"))
        self.messages = list(messages)
        self.actions: list[str] = []
        self.answers: list[Answer] = []
        self.more: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.drained = asyncio.Event()  # set once the initial messages are processed
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def monitor(self) -> Monitor:
        return self._monitor

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
        m = self._monitor
        if raw.get("t") == "approval_closed":  # what the session emits when the bridge gives up
            emit(ApprovalClosed(str(raw.get("id", "")), str(raw.get("reason", ""))))
            return
        msg = P.parse_inbound(raw)
        if isinstance(msg, P.EventMsg):
            items, trips = m.event(msg.sessionId or "main", msg.event)
            for item in items:
                emit(item)
            for trip in trips:
                emit(TripItem(trip, describe_command(m.trip_command(trip))))
        elif isinstance(msg, P.VerdictRequest):
            emit(m.verdict(msg)[1])
        elif isinstance(msg, P.ResultRequest):
            emit(m.result(msg)[1])
        elif isinstance(msg, P.ApprovalRequest):
            q = m.question(msg)
            emit(ApprovalItem(q))
            task = asyncio.ensure_future(self._approval(msg, q, emit))  # as the session does: the feed goes on
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif isinstance(msg, P.RequestStart):
            for item in m.request_start(msg):
                emit(item)
        else:
            for item in m.lifecycle(msg):
                emit(item)

    async def _approval(self, msg: P.ApprovalRequest, q: Question, emit: Emit) -> None:
        answer = await self.approver(q)
        self.answers.append(answer)
        self._monitor.answer(msg, q, answer)
        if answer == "cancel-turn":
            await self.cancel()
        emit(ApprovalItem(q, answer, "operator"))

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
