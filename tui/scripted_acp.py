"""ACP frames played from memory through a real ACP monitor: Pilot tests and snapshots of the ACP screen.

The dsh `ScriptedSource` plays bridge messages; this is the same source playing what an ACP agent sends
(`session/update` params, permission requests, the session/new answer), so the plan, the steps, the slash
commands and the choices reach the screen exactly as the live session would send them, with no process
and no clock. The feed comes from the registry (`scripted_agent`), so the TUI names no harness. Actions
are recorded in `actions`; a setting switched is accepted as an agent would accept it.
"""

from __future__ import annotations

from typing import Any

from tui.sources import Emit, ScriptedSource
from wrapper.harness.registry import scripted_agent
from wrapper.items import StatusItem
from wrapper.settings import Settings


class AcpScriptedSource(ScriptedSource):
    """Frames, one key each: `new` (the session/new answer), `update`, `permission`, `prompt`, `done`."""

    def __init__(
        self,
        frames: list[dict[str, Any]],
        settings: Settings | None = None,
        agent: str = "claude",
        cwd: str | None = None,
        can_load: bool = True,
    ) -> None:
        super().__init__(frames, settings, f"scripted {agent}")
        self.agent = agent
        self.cwd = cwd  # given: `@` completes under it and the session list is of this folder
        self.can_load = can_load
        self._agent_feed = scripted_agent(self.settings, agent)
        self._feed = self._agent_feed  # the agent's frames, in place of dsh's bridge messages
        self.capabilities = self._agent_feed.capabilities
        self._emit: Emit = lambda _item: None  # until the app runs the source

    async def run(self, emit: Emit) -> None:
        self._emit = emit
        await super().run(emit)

    async def set_choice(self, choice_id: str, value: str) -> bool:
        chosen = self._agent_feed.choose(choice_id, value)
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
