"""The tool-failure arm: steer after repeated failures of one call shape, then deny it before dispatch.

A call shape (signature) is the tool name plus the canonical JSON of its arguments without the
decoy keys, with hex and digit runs folded to `#`, so `print(1)` and `print(2)` fail as one shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.config import ThinkingConfig
from engine.repeat_config import DEFAULT_IGNORE
from engine.tools.fingerprints import exact_body

_HEX = re.compile(r"0[xX][0-9A-Fa-f]+|[0-9A-Fa-f]{8,}")
_DIGITS = re.compile(r"[0-9]+")
_FIXED_IGNORE = {"*": DEFAULT_IGNORE["*"]}


def _hex_sub(m: re.Match[str]) -> str:
    t = m.group()
    if (t[:2] in ("0x", "0X") and len(t) > 2) or any("0" <= c <= "9" for c in t):
        return "#"
    return t


def normalized_args(args: Any) -> str:
    """Canonical JSON of the arguments without decoys, with hex runs and digit runs collapsed to `#`."""
    return fold_numbers(exact_body("", args, _FIXED_IGNORE))


def fold_numbers(text: str) -> str:
    """Hex runs and digit runs collapsed to `#` (the seed's "numbers aside")."""
    return _DIGITS.sub("#", _HEX.sub(_hex_sub, text))


def signature(tool: Any, args: Any) -> tuple[str, str]:
    """The failure signature: the tool name unchanged, and its normalised arguments."""
    return (tool if isinstance(tool, str) else "", normalized_args(args))


@dataclass(frozen=True, slots=True)
class FailureSettings:
    """Knobs of the tool-failure arm; the values and their meaning are declared once, in `ThinkingConfig`."""

    enabled: bool
    guard: bool
    steer_after: float
    deny_after: float
    history: int

    @classmethod
    def from_config(cls, th: ThinkingConfig | None = None) -> FailureSettings:
        """The arm as a validated `[thinking]` table configures it (the defaults when None)."""
        th = th or ThinkingConfig()
        return cls(
            th.enabled,
            th.tool_failure_guard,
            th.tool_failure_steer_after,
            th.tool_failure_deny_after,
            th.tool_failure_history,
        )

    @property
    def active(self) -> bool:
        """Whether the arm does anything at all."""
        return self.enabled and self.guard


@dataclass(frozen=True, slots=True)
class FailureVerdict:
    """`dispatch`, `steer` (rewrite the failing result) or `deny` (do not dispatch)."""

    action: Literal["dispatch", "steer", "deny"]
    failures: int
    already: bool = False


@dataclass(slots=True)
class _AgentFailures:
    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    denied: set[tuple[str, str]] = field(default_factory=set)


DISPATCH = FailureVerdict("dispatch", 0)


class FailureGuard:
    """Per-agent failure counts keyed by signature; a new turn clears an agent."""

    def __init__(self, settings: FailureSettings | None = None) -> None:
        self.s = settings or FailureSettings.from_config()
        self.agents: dict[str | None, _AgentFailures] = {}

    def gate(self, agent: str | None, tool: Any, args: Any) -> FailureVerdict | None:
        """Before dispatch: deny a signature that already failed `deny_after` times."""
        if not self.s.active:
            return None
        st = self.agents.get(agent)
        if st is None:
            return None
        sig = signature(tool, args)
        count = st.counts.get(sig, 0)
        if sig in st.denied:
            return FailureVerdict("deny", count, True)
        if count >= self.s.deny_after:
            st.denied.add(sig)
            return FailureVerdict("deny", count, False)
        return None

    def record(self, agent: str | None, tool: Any, args: Any, ok: bool) -> FailureVerdict:
        """After dispatch: clear on success, count on failure, and say whether to steer."""
        if not self.s.active:
            return DISPATCH
        st = self.agents.get(agent)
        if ok and (st is None or (not st.counts and not st.denied)):
            return DISPATCH
        if st is None:
            st = self.agents[agent] = _AgentFailures()
        sig = signature(tool, args)
        if ok:
            st.counts.pop(sig, None)
            st.denied.discard(sig)
            return DISPATCH
        n = st.counts.get(sig, 0) + 1
        st.counts[sig] = n
        while len(st.counts) > self.s.history:
            del st.counts[next(iter(st.counts))]
        n = st.counts.get(sig, 0)
        return FailureVerdict("steer" if n >= self.s.steer_after else "dispatch", n)

    def failures(self, agent: str | None, tool: Any, args: Any) -> int:
        """The recorded failure count of this call's signature."""
        st = self.agents.get(agent)
        return st.counts.get(signature(tool, args), 0) if st else 0

    def new_turn(self, agent: str | None) -> None:
        """A new turn clears the agent's counts and denials."""
        self.agents.pop(agent, None)

    def counts(self, agent: str | None) -> dict[tuple[str, str], int]:
        """A copy of the agent's failure counts, for display."""
        st = self.agents.get(agent)
        return dict(st.counts) if st else {}
