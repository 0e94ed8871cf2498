"""The item stream, the recording and the waits of an ACP session (the plumbing under `AcpSession`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any

from engine import events as ev
from wrapper.harness.base import SessionControls, first_set
from wrapper.items import EngineItem, Item, OutputItem, TripItem, VerdictItem
from wrapper.process.child import ExitInfo
from wrapper.records.recorder import Recorder

# An ACP agent's stderr is its own log (its stdout is the protocol), not a screen meant for the person:
# labelled so the screen folds it rather than opening the child-output pane for it.
AGENT_LOG = "log"


class ItemStream(SessionControls):
    """Items in order to one reader; every frame, decision and agent stderr line recorded."""

    recorder: Recorder | None

    def __init__(self) -> None:
        self.recorder = None
        self.queue: asyncio.Queue[Item | None] = asyncio.Queue()
        self.turns_done = 0
        self.turns_started = 0
        self.exit: ExitInfo | None = None
        self._turn_end = asyncio.Event()
        self._ready = asyncio.Event()
        self._exited = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loading = False  # a `session/load` replays history: recorded as such, not decided on

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        t = asyncio.ensure_future(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)
        return t

    def _emit(self, item: Item) -> None:
        if isinstance(item, VerdictItem):
            self._record("note", {"what": "verdict", "callId": item.call_id, "kind": item.verdict.kind})
        elif isinstance(item, TripItem):
            self._record("note", {"what": "trip", "rule": item.trip.rule, "sent": item.sent})
        if isinstance(item, EngineItem) and isinstance(item.event, ev.TurnStart):
            self.turns_started += 1
        if isinstance(item, EngineItem) and isinstance(item.event, ev.TurnEnd):
            self.turns_done += 1
            self._turn_end.set()
        self.queue.put_nowait(item)

    def _emit_all(self, items: list[Item]) -> None:
        for i in items:
            self._emit(i)

    def _record(self, kind: str, body: dict[str, Any]) -> None:
        if self.recorder is not None:
            self.recorder.write(kind, body)

    def _on_frame(self, direction: str, msg: dict[str, Any]) -> None:
        self._record(
            "acp",
            {"dir": direction, "msg": msg, "loading": self._loading}
            if self._loading
            else {"dir": direction, "msg": msg},
        )

    def _on_stderr(self, text: str) -> None:
        self._record("child", {"text": text[:65536]})
        self._emit(OutputItem(text, AGENT_LOG))

    # -- waits -------------------------------------------------------------------------------
    async def wait_ready(self, timeout: float | None = 60) -> bool:
        """Wait until the agent has an open session and takes prompts (False at once when it exited first)."""
        await first_set(self._ready, self._exited, timeout=timeout)
        return self._ready.is_set()

    async def wait_exit(self, timeout: float | None = None) -> ExitInfo | None:
        """Wait until the agent has exited."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), timeout)
        return self.exit
