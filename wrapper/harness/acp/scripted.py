"""ACP frames played from memory through a real `AcpMonitor`, as a live ACP session would play them.

The screen's scripted ACP source (Pilot tests and snapshots of the ACP screen) drives this feed through the
registry, so the TUI names no harness: what an agent sends (`session/update` params, permission requests, the
session/new answer, the prompt's end) goes through the monitor exactly as the live session hands it on, with
no process and no clock. A setting switched is accepted as an agent would accept it.
"""

from __future__ import annotations

from typing import Any

from wrapper.harness.acp.handshake import ACP
from wrapper.harness.acp.monitor import AcpMonitor
from wrapper.harness.acp.view import set_request
from wrapper.harness.capabilities import Capabilities
from wrapper.harness.declaration import Chosen, Played
from wrapper.items import Item
from wrapper.monitor import Info, Monitor
from wrapper.settings import Settings


class ScriptedAgent:
    """One ACP conversation fed frame by frame; a frame has one key: `new`, `update`, `permission`, `prompt`, `done`."""

    capabilities: Capabilities = ACP

    def __init__(self, settings: Settings, agent: str) -> None:
        self._acp = AcpMonitor(settings, Info(runner=True, child="running", bridge="connected"), agent)

    @property
    def monitor(self) -> Monitor:
        return self._acp.monitor

    def play(self, raw: dict[str, Any]) -> Played:
        """The items one frame yields (a frame with no known key yields none)."""
        key = next((k for k in _FRAMES if k in raw), None)
        return Played(_FRAMES[key](self._acp, raw[key]) if key is not None else [])

    def choose(self, choice_id: str, value: str) -> Chosen | None:
        """Switch a setting the agent offered, as the agent would accept it; None when it offered no such choice."""
        shown = self._acp.shown
        choice = shown.find(choice_id)
        if choice is None:
            return None
        method, params = set_request(self._acp.agent, choice, value)  # the session's id
        return Chosen(method, choice.name, shown.accepted(method, params, {}))


def _new(acp: AcpMonitor, answer: Any) -> list[Item]:
    return [*acp.session_started(str(answer.get("sessionId", "s")), "mock-model", False), *acp.shown.opened(answer)]


_FRAMES: dict[str, Any] = {
    "new": _new,
    "update": lambda acp, u: acp.update({"sessionId": acp.agent, "update": u}).items,
    "permission": lambda acp, p: acp.permission(p).items,
    "prompt": lambda acp, text: acp.prompt_sent(str(text)),
    "done": lambda acp, result: acp.prompt_done(result),
}
