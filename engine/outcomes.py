"""The default mode's failure arm: a call counts as "failing the same way again" only when nothing changed.

A failure is keyed by the call's shape (tool and canonical arguments, numbers aside) and
judged against the previous failure of that call: the same error text (folded) with no successful
change to the workspace since continues the streak, which steers from `steer_after` and denies the
next attempt from `deny_after`. A new error text, or a change in between, starts the streak over, so
edit → run cycles that fail differently each time are never steered or denied.

Two backstops catch what the streak cannot see: the same call failing with the same error after
every change (`same_limit` failures: cosmetic edits that fix nothing), and one tool failing with
one error text whatever its arguments (`tool_limit` failures in a row: a tool that does not exist).
And cosmetic spellings of one failing action (flags reordered, quotes, `cd X &&`, whitespace) are
separate calls to the streak, so one tool and command (the shell verb, or the editor sub-command)
failing `error_limit` times with one error text (whitespace aside) and nothing changed in between
denies its next call, whatever the arguments.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.failures import fold_numbers
from engine.fingerprints import exact_body
from engine.progress import SHELL_TOOLS, fold, result_key, strip_exit
from engine.repeat_config import DEFAULT_IGNORE
from engine.shellfacts import analyze

_FIXED_IGNORE = {"*": DEFAULT_IGNORE["*"]}
APPLIED_CAP = 256
Rule = Literal["failure", "same-failure", "tool-failing", "same-error"]
ERROR_MIN = 8  # shorter error texts (or none) say too little to call two different calls the same failure


def command_of(tool: str, args: Any) -> tuple[str, str]:
    """The tool and the command it runs: the shell verb, or an editor's sub-command (`str_replace`)."""
    c = args.get("command") if isinstance(args, dict) else None
    if not isinstance(c, str):
        return (tool, "")
    if tool in SHELL_TOOLS:
        return (tool, analyze(c[:2000]).verb)
    return (tool, c[:64])


def error_key(text: str) -> int | None:
    """The error text folded, whitespace aside (None when too short to compare)."""
    squeezed = "".join(fold(strip_exit(text)).split())
    return hash(squeezed) if len(squeezed) >= ERROR_MIN else None


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
    errors: dict[tuple[str, str], tuple[int, int, int]] = field(default_factory=dict)  # command -> (error, epoch, n)


class ProgressFailures:
    """Per-agent failure streaks that restart on a new error or a change to the workspace."""

    def __init__(
        self,
        steer_after: int = 2,
        deny_after: int = 3,
        history: int = 64,
        same_limit: int = 4,
        tool_limit: int = 10,
        error_limit: int = 4,
        active: bool = True,
    ) -> None:
        self.error_limit = error_limit
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
        if self.error_limit and st.errors:
            e = st.errors.get(command_of(tool, args))
            if e is not None and e[1] == st.epoch and e[2] >= self.error_limit:
                return Outcome("deny", e[2], "same-error")
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
            if st.errors:
                st.errors.pop(command_of(tool, args), None)
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
        if self.error_limit:
            ek = error_key(text)
            cmd = command_of(tool, args)
            if ek is None:
                st.errors.pop(cmd, None)
            else:
                e = st.errors.get(cmd)
                n = e[2] + 1 if e is not None and e[0] == ek and e[1] == st.epoch else 1
                if cmd not in st.errors and len(st.errors) >= self.history:
                    st.errors.pop(next(iter(st.errors)))
                st.errors[cmd] = (ek, st.epoch, n)
        if st.streak_tool == tool and st.streak_error == key:
            st.streak += 1
        else:
            st.streak_tool, st.streak_error, st.streak = tool, key, 1
        return Outcome("steer" if s.count >= self.steer_after else "dispatch", s.count)

    def backed_off(self, agent: str | None) -> None:
        """The agent waited longer than ever before in this turn: earlier identical failures (a 429, a 503)
        may have been transient, so the same-failure backstop starts over (the streaks restart anyway,
        since the wait counts as a change).
        """
        st = self.agents.get(agent)
        if st is not None:
            for s in st.sigs.values():
                s.same = 0

    def new_turn(self, agent: str | None) -> None:
        """A new turn clears the agent."""
        self.agents.pop(agent, None)

    def counts(self, agent: str | None) -> dict[tuple[str, str], int]:
        """The agent's current failure streaks, for display."""
        st = self.agents.get(agent)
        return {k: v.count for k, v in st.sigs.items()} if st else {}
