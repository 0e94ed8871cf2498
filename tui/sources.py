"""What the app watches: a live session, a replay of a recording, or a scripted feed (tests, snapshots)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from wrapper import protocol as P
from wrapper.harness.registry import open_session, replayer_for
from wrapper.items import Answer, ApprovalItem, Item, Question, StatusItem, TripItem
from wrapper.monitor import Info, Monitor
from wrapper.replay import describe_command
from wrapper.settings import Settings
from wrapper.sources import Loaded

Emit = Callable[[Item], None]
Approver = Callable[[Question], Awaitable[Answer]]


async def _decline(_: Question) -> Answer:
    return "deny"


class Source:
    """The interface the app drives; actions a source cannot take say so and return False."""

    kind = "live"

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
        acp: bool = False,
    ) -> None:
        super().__init__(settings, title or " ".join(argv))
        self.session = open_session(argv, settings, self._ask, cwd=cwd, env=env, acp=acp)
        self.first_prompt = first_prompt

    async def _ask(self, q: Question) -> Answer:
        return await self.approver(q)

    @property
    def monitor(self) -> Monitor:
        return self.session.monitor

    async def run(self, emit: Emit) -> None:
        try:
            await self.session.start()
        except (OSError, FileNotFoundError) as e:
            emit(StatusItem("error", f"could not start: {e}"))
            return
        if self.first_prompt:
            self._first = asyncio.ensure_future(self._first_prompt())
        async for item in self.session:
            emit(item)

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

    async def close(self) -> None:
        if self.session.info.child == "running":
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.session.quit(0), 8)
        await self.session.close()


class ReplaySource(Source):
    """A recording or a dsh log played through the same engine, with play / pause / step / speed."""

    kind = "replay"

    def __init__(self, loaded: Loaded, settings: Settings, speed: float = 1.0, paused: bool = False) -> None:
        super().__init__(settings, f"replay: {loaded.path.name}")
        self.replayer = replayer_for(loaded, settings)
        self.replayer.monitor.info.child = "recorded"
        self.speed = speed
        self._play = asyncio.Event()
        if not paused:
            self._play.set()
        self._steps_allowed = 0
        self._skip_to_trip = False
        self.position = 0
        self.total = 0
        self.done = False

    @property
    def monitor(self) -> Monitor:
        return self.replayer.monitor

    @property
    def paused(self) -> bool:
        """Whether playback is paused."""
        return not self._play.is_set()

    def toggle_pause(self) -> None:
        """Play or pause."""
        if self._play.is_set():
            self._play.clear()
        else:
            self._play.set()

    def step(self) -> None:
        """While paused: let exactly one more item through."""
        self._steps_allowed += 1
        self._play.set()

    def faster(self) -> None:
        """Double the speed."""
        self.speed = min(64.0, (self.speed or 1.0) * 2)

    def slower(self) -> None:
        """Halve the speed."""
        self.speed = max(0.125, (self.speed or 1.0) / 2)

    def next_trip(self) -> None:
        """Run at full speed to the next trip or denial, then pause."""
        self._skip_to_trip = True
        self._play.set()

    async def run(self, emit: Emit) -> None:
        steps = list(self.replayer.steps())
        self.total = len(steps)
        last_t = 0.0
        for n, step in enumerate(steps):
            await self._play.wait()
            if self.speed > 0 and not self._skip_to_trip and not self._steps_allowed:
                gap = (step.t - last_t) / self.speed
                if gap > 0:
                    await asyncio.sleep(min(gap, 2.0))
            last_t = step.t
            self.position = n + 1
            emit(step.item)
            notable = isinstance(step.item, TripItem) or (
                getattr(getattr(step.item, "verdict", None), "kind", "allow") != "allow"
            )
            if self._skip_to_trip and notable:
                self._skip_to_trip = False
                self._play.clear()
            if self._steps_allowed:
                self._steps_allowed -= 1
                if not self._steps_allowed:
                    self._play.clear()
        self.done = True
        mism = self.replayer.mismatches
        emit(
            StatusItem("notice", f"replay finished: {self.total} items" + (f"; {len(mism)} mismatches" if mism else ""))
        )


class ScriptedSource(Source):
    """Bridge messages played from memory through a real `Monitor`: Pilot tests and snapshots.

    Approval requests go to the app's approver (the modal), exactly as in a live session;
    actions are recorded in `actions` instead of reaching a child.
    """

    kind = "scripted"

    def __init__(
        self, messages: list[dict[str, Any]], settings: Settings | None = None, title: str = "scripted"
    ) -> None:
        super().__init__(settings or Settings(), title)
        self._monitor = Monitor(self.settings, Info(dsh=True, runner=True, child="running", bridge="connected"))
        self.messages = list(messages)
        self.actions: list[str] = []
        self.answers: list[Answer] = []
        self.more: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.drained = asyncio.Event()  # set once the initial messages are processed

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
        while True:
            more = await self.more.get()
            if more is None:
                return
            await self._one(more, emit)

    async def _one(self, raw: dict[str, Any], emit: Emit) -> None:
        m = self._monitor
        r = m.handle(P.parse_inbound(raw))
        for item in r.items:
            emit(item)
        for trip in r.trips:
            emit(TripItem(trip, describe_command(m.trip_command(trip))))
        if r.approval is not None:
            q = m.question(r.approval)
            emit(ApprovalItem(q))
            answer = await self.approver(q)
            self.answers.append(answer)
            m.answer(r.approval, q, answer)
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
