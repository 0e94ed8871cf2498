"""The default mode's failure arm: a call counts as "failing the same way again" only when nothing changed.

A failure is keyed by the call's shape (tool and canonical arguments, numbers aside) and
judged against the previous failure of that call: the same error text (folded) with no successful
change to the workspace since continues the streak, which steers from `steer_after` and denies the
next attempt from `deny_after`. A new error text, or a change in between, starts the streak over, so
edit → run cycles that fail differently each time are never steered or denied.

Two backstops catch what the streak cannot see: the same call failing with the same error after
every change (`same_limit` failures: cosmetic edits that fix nothing), and one tool failing with
one error text whatever its arguments (`tool_limit` failures in a row: a tool that does not exist).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.failures import fold_numbers
from engine.fingerprints import exact_body
from engine.progress import result_key
from engine.repeat_config import DEFAULT_IGNORE

_FIXED_IGNORE = {"*": DEFAULT_IGNORE["*"]}
APPLIED_CAP = 256
Rule = Literal["failure", "same-failure", "tool-failing"]


def signature(tool: str, args: Any, body: str | None = None) -> tuple[str, str]:
    """The call exactly: its tool and canonical arguments (what a change to the workspace is keyed by)."""
    return (tool, body if body is not None else exact_body("", args, _FIXED_IGNORE))


def shape(tool: str, args: Any, body: str | None = None) -> tuple[str, str]:
    """The call's failure key: tool and canonical arguments, numbers aside, as the seed.

    Calls that differ in their numbers still fail separately when their errors differ (each test id
    names itself in its failure), because a new error text starts a new streak.
    """
    return (tool, fold_numbers(body if body is not None else exact_body("", args, _FIXED_IGNORE)))


@dataclass(frozen=True, slots=True)
class Outcome:
    """`dispatch`, `steer` (rewrite the failing result) or `deny` (do not dispatch), and why."""

    action: Literal["dispatch", "steer", "deny"]
    failures: int
    rule: Rule = "failure"
    already: bool = False


DISPATCH = Outcome("dispatch", 0)


@dataclass(slots=True)
class _Sig:
    error: int
    epoch: int
    count: int = 1  # consecutive identical failures with no change in between
    same: int = 1  # identical failures, changes or not


@dataclass(slots=True)
class _Agent:
    epoch: int = 0  # successful workspace changes so far in this turn
    sigs: OrderedDict[tuple[str, str], _Sig] = field(default_factory=OrderedDict)
    denied: set[tuple[str, str]] = field(default_factory=set)
    streak_tool: str = ""
    streak_error: int = 0
    streak: int = 0
    applied: OrderedDict[tuple[tuple[str, str], int], None] = field(default_factory=OrderedDict)


class ProgressFailures:
    """Per-agent failure streaks that restart on a new error or a change to the workspace."""

    def __init__(
        self,
        steer_after: int = 2,
        deny_after: int = 3,
        history: int = 64,
        same_limit: int = 4,
        tool_limit: int = 10,
        active: bool = True,
    ) -> None:
        self.steer_after = max(1, steer_after)
        self.deny_after = max(1, deny_after)
        self.history = max(8, history)
        self.same_limit = same_limit
        self.tool_limit = tool_limit
        self.active = active
        self.agents: dict[str | None, _Agent] = {}

    def epoch(self, agent: str | None) -> int:
        """How many successful workspace changes this turn (other rules read it)."""
        st = self.agents.get(agent)
        return st.epoch if st else 0

    def gate(self, agent: str | None, tool: str, args: Any, body: str | None = None) -> Outcome | None:
        """Before dispatch: deny a call whose failure streak (or a backstop) is full."""
        st = self.agents.get(agent)
        if not self.active or st is None:
            return None
        if self.tool_limit and st.streak >= self.tool_limit and st.streak_tool == tool:
            return Outcome("deny", st.streak, "tool-failing")
        if not st.sigs:
            return None
        sig = shape(tool, args, body)
        s = st.sigs.get(sig)
        if s is None:
            return None
        if sig in st.denied:
            return Outcome("deny", s.count, "failure", True)
        if s.epoch == st.epoch and s.count >= self.deny_after:
            st.denied.add(sig)
            return Outcome("deny", s.count, "failure")
        if self.same_limit and s.same >= self.same_limit:
            return Outcome("deny", s.same, "same-failure")
        return None

    def record(
        self,
        agent: str | None,
        tool: str,
        args: Any,
        text: str,
        failed: bool,
        mutating: bool,
        body: str | None = None,
        key: int | None = None,
    ) -> Outcome:
        """After dispatch: a success (maybe a change) clears; a failure extends or restarts its streak."""
        if not self.active:
            return DISPATCH
        st = self.agents.get(agent)
        if st is None:
            st = self.agents[agent] = _Agent()
        if not failed:
            if key is None and mutating:
                key = result_key(text)
            change = (signature(tool, args, body), key or 0) if mutating else None
            if change is not None and change not in st.applied:
                # a change already applied in this turn (the same write with the same answer) changes nothing
                if len(st.applied) >= APPLIED_CAP:
                    st.applied.popitem(last=False)
                st.applied[change] = None
                st.epoch += 1
                st.denied.clear()
            if st.sigs or st.streak:
                st.sigs.pop(shape(tool, args, body), None)
                if st.streak_tool == tool:
                    st.streak = 0
            return DISPATCH
        sig = shape(tool, args, body)
        if key is None:
            key = result_key(text)
        s = st.sigs.get(sig)
        if s is None or s.error != key:
            st.denied.discard(sig)
            s = st.sigs[sig] = _Sig(key, st.epoch)
            while len(st.sigs) > self.history:
                st.sigs.popitem(last=False)
        else:
            s.same += 1
            s.count = s.count + 1 if s.epoch == st.epoch else 1
            s.epoch = st.epoch
        if st.streak_tool == tool and st.streak_error == key:
            st.streak += 1
        else:
            st.streak_tool, st.streak_error, st.streak = tool, key, 1
        return Outcome("steer" if s.count >= self.steer_after else "dispatch", s.count)

    def new_turn(self, agent: str | None) -> None:
        """A new turn clears the agent."""
        self.agents.pop(agent, None)

    def counts(self, agent: str | None) -> dict[tuple[str, str], int]:
        """The agent's current failure streaks, for display."""
        st = self.agents.get(agent)
        return {k: v.count for k, v in st.sigs.items()} if st else {}
