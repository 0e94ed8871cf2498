"""The interface every harness session offers the monitor's drivers (the TUI, `--no-tui`, the tests).

dsh's `Session` and `AcpSession` both satisfy it; a new harness implements it in its own folder and adds
a line to `registry.py`, and nothing in the TUI changes.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

from engine.breaker import Breaker
from wrapper.harness.capabilities import Capabilities
from wrapper.items import Answer, Item, Question, StatusItem
from wrapper.monitor import NOT_MONITORED, Info, Monitor
from wrapper.process.child import ExitInfo
from wrapper.records.recorder import Recorder

# who answers the questions a session asks: the TUI's modal, a headless policy, a test
Approver = Callable[[Question], Awaitable[Answer]]


class Policy:
    """An approver that answers every question the same way without asking anyone (`--approvals`).

    Sessions record its answers as the policy's (`answered_by`), never as a person's.
    """

    by = "policy"

    def __init__(self, answer: Answer) -> None:
        self.answer: Answer = answer

    async def __call__(self, _: Question) -> Answer:
        return self.answer


deny_all = Policy("deny")
"""The fail-closed approver: every approval is declined."""
allow_all = Policy("allow-once")
"""Approve each call once (for scripted runs that opt in); every repeat is asked, and allowed, again."""


def answered_by(approver: Approver) -> str:
    """Who an approver's answers come from: `policy` for a `Policy`, else `person` (the modal, a test's script)."""
    return approver.by if isinstance(approver, Policy) else "person"


class HarnessSession(Protocol):
    """Start, the stream of items, and the controls; `capabilities` says which controls work."""

    @property
    def capabilities(self) -> Capabilities:
        """Which controls work for this harness."""
        ...

    argv: list[str]

    @property
    def monitor(self) -> Monitor:
        """The harness's monitor (each harness has its own kind)."""

    breaker: Breaker
    info: Info
    recorder: Recorder | None
    turns_done: int
    turns_started: int

    async def start(self) -> None:
        """Launch the agent."""

    def __aiter__(self) -> AsyncIterator[Item]:
        """Everything that happens, in order, until `close()`."""
        ...

    async def wait_ready(self, timeout: float = 60) -> bool:
        """Wait until the agent takes prompts."""
        ...

    async def wait_turn_end(self, done_before: int, timeout: float = 600) -> bool:
        """Wait until more than `done_before` turns have ended."""
        ...

    async def wait_exit(self, timeout: float | None = None) -> ExitInfo | None:
        """Wait until the agent has exited."""
        ...

    async def prompt(self, text: str, timeout: float = 60) -> bool:
        """Send a person's message."""
        ...

    async def cancel(self) -> bool:
        """Cancel the current turn; the agent keeps running."""
        ...

    async def kill(self) -> ExitInfo | None:
        """Stop the agent (its whole process group)."""
        ...

    async def restart(self) -> bool:
        """Stop the agent and start it again on the same session where it can."""
        ...

    async def quit(self, code: int = 0) -> ExitInfo | None:
        """End the agent politely (then by force)."""
        ...

    async def close(self) -> None:
        """Release everything; the item stream ends."""

    async def shutdown(self, sig: signal.Signals) -> None:
        """A signal ends the run: say so, record it, then close (the child's group stopped, nothing left)."""

    def shutdown_now(self) -> None:
        """No grace (a second signal): kill the child's group at once and end the recording."""

    def set_enforcing(self, on: bool) -> None:
        """Pause (observe only) or resume enforcement."""

    def reset_windows(self) -> None:
        """Forget the sliding windows."""


async def first_set(*events: asyncio.Event, timeout: float | None) -> None:
    """Wait until one of `events` is set, or `timeout` seconds pass (None: no limit)."""
    waiters = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waiters:
            w.cancel()


class SessionControls:
    """What every harness session does the same way: hand its items on in order, wait for a turn to end, pause
    enforcement, reset windows.

    A session mixes this in and provides the attributes below; the recording note and the notice are
    the same for every harness, so a replay and the screen read them alike.
    """

    turns_done: int
    turns_started: int  # a turn started and not ended (the child stopped in its middle) is one of the run's turns
    breaker: Breaker
    queue: asyncio.Queue[Item | None]  # what `_emit` puts; None ends the iteration (the session closed)
    _exited: asyncio.Event
    _turn_end: asyncio.Event

    def _record(self, kind: str, body: dict[str, Any]) -> None:
        raise NotImplementedError

    def _emit(self, item: Item) -> None:
        raise NotImplementedError

    async def wait_turn_end(self, done_before: int, timeout: float = 600) -> bool:
        """Wait until more than `done_before` turns of the main agent have ended (or the child exits)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.turns_done <= done_before and not self._exited.is_set():
            self._turn_end.clear()
            await first_set(self._turn_end, self._exited, timeout=max(0.0, deadline - loop.time()))
            if loop.time() >= deadline:
                return False
        return self.turns_done > done_before

    async def items(self) -> AsyncIterator[Item]:
        """Everything that happens, in order, until the session is closed."""
        while True:
            item = await self.queue.get()
            if item is None:
                return
            yield item

    def __aiter__(self) -> AsyncIterator[Item]:
        return self.items()

    def set_enforcing(self, on: bool) -> None:
        """Pause (observe only) or resume enforcement."""
        self.breaker.set_enforcing(on)
        self._record("note", {"what": "enforcing", "on": on})
        self._emit(StatusItem("notice", "enforcement resumed" if on else "enforcement paused: observing only"))

    def reset_windows(self) -> None:
        """Forget every agent's sliding window."""
        self.breaker.reset_windows()
        self._record("note", {"what": "reset-windows"})
        self._emit(StatusItem("notice", "sliding windows reset"))


def recording_line(session: HarnessSession) -> str:
    """The end-of-run line about the recording, the same with and without a screen ("" when nothing was kept)."""
    rec = session.recorder
    if rec is None:
        return ""
    if not rec.lines:  # it could not be opened (a read-only state folder): the end says so, not only the start
        return f"recording NOT KEPT: {rec.error}" if rec.error else ""
    agents = session.breaker.snapshot().agents
    denied, trips = sum(a.denials for a in agents), sum(a.trips for a in agents)
    ran = sum(a.ran_tripped for a in agents)  # ran without asking, then tripped: not denied
    cut = max(0, session.turns_started - session.turns_done)  # stopped in their middle: they ran calls too
    turns = f"{session.turns_done + cut} turn(s)" + (f" ({cut} cut short)" if cut else "")
    summary = f"{turns}, {denied} denied, " + (f"{ran} ran then tripped, " if ran else "")
    summary += f"{trips} trip(s)"
    if why := session.info.run_unmonitored:  # the first thing the exit line says: the run was not vetted to its end
        summary = f"{NOT_MONITORED}: {why}; {summary}"
    return rec.describe(summary)  # names the file only while it is still the one written
