"""ACP frames played from memory through a real ACP monitor: Pilot tests and snapshots of the ACP screen.

The dsh `ScriptedSource` plays bridge messages; this plays what an ACP agent sends (`session/update`
params, permission requests, the session/new answer), so the plan, the steps, the slash commands and
the choices reach the screen exactly as the live session would send them, with no process and no clock.
The feed comes from the registry (`scripted_agent`), so the TUI names no harness. Actions are recorded in
`actions`; a setting switched is accepted as an agent would accept it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tui.sources import Emit, Source
from wrapper.harness.registry import scripted_agent
from wrapper.items import StatusItem
from wrapper.monitor import Monitor
from wrapper.settings import Settings


class AcpScriptedSource(Source):
    """Frames, one key each: `new` (the session/new answer), `update`, `permission`, `prompt`, `done`."""

    kind = "scripted"

    def __init__(
        self,
        frames: list[dict[str, Any]],
        settings: Settings | None = None,
        agent: str = "claude",
        cwd: str | None = None,
        can_load: bool = True,
    ) -> None:
        super().__init__(settings or Settings(), f"scripted {agent}")
        self.agent = agent
        self.cwd = cwd  # given: `@` completes under it and the session list is of this folder
        self.can_load = can_load
        self._feed = scripted_agent(self.settings, agent)
        self.capabilities = self._feed.capabilities
        self.frames = list(frames)
        self.actions: list[str] = []
        self.more: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.drained = asyncio.Event()

    @property
    def monitor(self) -> Monitor:
        return self._feed.monitor

    def feed(self, *frames: dict[str, Any]) -> None:
        """Add frames while the app runs."""
        for f in frames:
            self.more.put_nowait(f)

    async def run(self, emit: Emit) -> None:
        self._emit = emit
        for frame in self.frames:
            self._one(frame, emit)
        self.drained.set()
        while (more := await self.more.get()) is not None:
            self._one(more, emit)

    def _one(self, f: dict[str, Any], emit: Emit) -> None:
        for i in self._feed.play(f).items:
            emit(i)

    async def prompt(self, text: str) -> bool:
        self.actions.append(f"prompt:{text}")
        return True

    async def cancel(self) -> bool:
        self.actions.append("cancel")
        return True

    async def set_choice(self, choice_id: str, value: str) -> bool:
        chosen = self._feed.choose(choice_id, value)
        if chosen is None:
            return False
        self.actions.append(f"{chosen.method}:{choice_id}={value}")
        for i in chosen.items:
            self._emit(i)
        self._emit(StatusItem("notice", f"{chosen.name.lower()}: {value}"))
        return True

    async def resume(self, session_id: str) -> bool:
        self.actions.append(f"resume:{session_id}")
        return True

    def sessions_of(self) -> tuple[str, str] | None:
        return (self.agent, self.cwd) if self.cwd else None

    def cannot_load(self) -> str:
        return "" if self.can_load else f"{self.agent} does not advertise loadSession: a pick starts a new session"

    def workdir(self) -> str | None:
        return self.cwd

    async def close(self) -> None:
        self.more.put_nowait(None)
