"""Snapshot types: the live scores the monitor shows, per agent."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class WindowRow:
    """One fingerprint in an agent's sliding window."""

    fingerprint: str
    count: int
    cap: float
    hit: bool


@dataclass(frozen=True, slots=True)
class AgentScores:
    """Everything the score panes show for one agent."""

    agent: str
    turn: int
    window: tuple[WindowRow, ...]
    window_calls: int
    window_size: int
    overlap: float
    overlap_threshold: float
    novelty_streak: int
    novelty_limit: int
    overlap_history: tuple[float, ...]
    deg_flags: tuple[str, ...]
    deg_streak: int
    deg_streak_limit: int
    meaning_ratio: float
    meaning_history: tuple[float, ...]
    reasoning_chars: int
    max_reasoning_chars: int
    failures: tuple[tuple[str, int], ...]
    trips: int
    retries_used: int
    local_exempt: bool
    local_refused: bool
    thinking_off: bool
    denials: int = 0
    asks: int = 0
    ran_tripped: int = 0
    """Calls that ran without asking (an ACP agent's reads) and only then tripped a rule: nothing was denied."""
    cycle: tuple[tuple[str, int], ...] = ()
    """The loop the default rules last detected this turn: each call (short label) and how often it ran."""
    cycle_rule: str = ""
    """Which rule saw it: `cycle`, `paging` or `backstop` (empty when none)."""
    cycle_period: int = 0
    """The cycle's period in calls (0 for paging)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """All agents' scores, in the order they appeared."""

    agents: tuple[AgentScores, ...] = field(default_factory=tuple)
    enforcing: bool = True

    def get(self, agent: str) -> AgentScores | None:
        """One agent's scores."""
        return next((a for a in self.agents if a.agent == agent), None)
