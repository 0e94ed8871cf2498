"""Two run-level guards the engine cannot see: a turn that only hits walls, and a model gone silent.

A model that ignores denials keeps calling tools that are refused, so the turn never ends on its
own; `DenialStreak` counts denials in a row per agent and says when the turn should be cancelled.
A model that stops sending mid-request costs nothing but the person's time; `StallWatch` says
when an open request has been silent for too long. Both are pure (the caller passes the time).
"""

from __future__ import annotations

from dataclasses import dataclass


class DenialStreak:
    """Consecutive denied tool calls per agent, reset by an allowed call or a new turn."""

    def __init__(self, limit: int) -> None:
        self.limit = limit  # 0 = never end a turn
        self._streak: dict[str, int] = {}

    def verdict(self, agent: str, kind: str) -> int | None:
        """Count one verdict; return the streak when it reaches the limit (once, then it starts over)."""
        if kind == "deny":
            n = self._streak.get(agent, 0) + 1
            if self.limit and n >= self.limit:
                self._streak[agent] = 0
                return n
            self._streak[agent] = n
        elif kind == "allow":
            self._streak[agent] = 0
        return None

    def turn_start(self, agent: str) -> None:
        """A new turn starts with a clean slate."""
        self._streak.pop(agent, None)

    def streak(self, agent: str) -> int:
        """The current count for an agent."""
        return self._streak.get(agent, 0)


@dataclass
class _Open:
    since: float
    last: float
    warned: bool = False


class StallWatch:
    """Model requests in flight and when each last sent something."""

    def __init__(self, after_s: float) -> None:
        self.after_s = after_s  # 0 = never warn
        self._open: dict[str, _Open] = {}

    def open(self, agent: str, now: float) -> None:
        """A request started streaming."""
        self._open[agent] = _Open(now, now)

    def activity(self, agent: str, now: float) -> None:
        """The model sent something for this agent (a stall warning may come again later)."""
        o = self._open.get(agent)
        if o is not None:
            o.last = now
            o.warned = False

    def close(self, agent: str) -> None:
        """The request finished, failed or was aborted."""
        self._open.pop(agent, None)

    def close_all(self) -> None:
        """The child is gone: nothing is in flight."""
        self._open.clear()

    @property
    def busy(self) -> bool:
        """Whether any request is open."""
        return bool(self._open)

    def due(self, now: float) -> list[tuple[str, float]]:
        """(agent, silent seconds) for each open request silent for `after_s`, once per silence."""
        if self.after_s <= 0:
            return []
        out = []
        for agent, o in self._open.items():
            if not o.warned and now - o.last >= self.after_s:
                o.warned = True
                out.append((agent, now - o.last))
        return out
