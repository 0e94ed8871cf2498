"""The default mode's failure arm: a call counts as "failing the same way again" only when nothing changed.

A failure is keyed by the call's shape (tool and canonical arguments, numbers aside) and
judged against the previous failure of that call: the same error text (folded) with no successful
change to the workspace since continues the streak, which steers from `steer_after` and denies the
next attempt from `deny_after`. A new error text, or a change in between, starts the streak over, so
edit → run cycles that fail differently each time are never steered or denied.

Two backstops catch what the streak cannot see: the same call failing with the same error after
every change (`same_limit` failures: cosmetic edits that fix nothing, edits that differ from the
earlier ones only in their numbers; a failure after a new kind of change weighs half,
so real attempts that happen to fail alike get twice as many runs), and one tool failing with
one error text whatever its arguments (`tool_limit` failures in a row: a tool that does not exist).
And cosmetic spellings of one failing action (flags reordered, quotes, `cd X &&`, whitespace) are
separate calls to the streak, so one tool and command (the shell verb, or the editor sub-command)
failing `error_limit` times with one error text (whitespace aside) and nothing changed in between
denies its next call, whatever the arguments.

Numbers are folded only once they are shown not to matter: a streak whose failures were all one exact
call denies that call again, but not a variant that changes one of its numbers (an amount recomputed
after `total price is 375, but paid 299`, the fix); once calls that differed in their numbers have
failed alike (`print(1/0)`, `print(2/0)`), the next variant is denied too. And a failure whose error
names a value of its call counts against that cause across turns (`engine.tools.causes`).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.repeat_config import DEFAULT_IGNORE
from engine.tools.causes import Causes
from engine.tools.failures import fold_numbers
from engine.tools.fingerprints import exact_body
from engine.tools.progress import SHELL_TOOLS, command_text, fold, result_key, strip_exit
from engine.tools.sameresult import data_values
from engine.tools.shellfacts import analyze

_FIXED_IGNORE = {"*": DEFAULT_IGNORE["*"]}
APPLIED_CAP = 256
Rule = Literal["failure", "same-failure", "tool-failing", "same-error", "same-answer", "cause-failure"]
ERROR_MIN = 8  # shorter error texts (or none) say too little to call two different calls the same failure
ANSWER_MIN = 64  # short answers (`ok`, `{"status":"up"}`) repeat legitimately across different calls


_RUNNERS = {"npx": 1, "bunx": 1, "uvx": 1, "pipx": 2, "uv": 2, "poetry": 2, "pdm": 2, "hatch": 2, "pnpm": 2, "yarn": 1}


def command_of(tool: str, args: Any) -> tuple[str, str]:
    """The tool and the command it runs: the shell verb (through `python -m X`, `npx X`, `uv run X`),
    or an editor's sub-command (`str_replace`).
    """
    if tool in SHELL_TOOLS:
        c = command_text(args)
    else:
        raw = args.get("command") if isinstance(args, dict) else None
        return (tool, raw[:64] if isinstance(raw, str) else "")
    if not c:
        return (tool, "")
    facts = analyze(c[:2000])
    verb = facts.verb
    words = facts.stripped.split()[:4]
    if verb in ("python", "python3") and len(words) > 2 and words[1] == "-m":
        verb = words[2]
    elif verb in _RUNNERS and len(words) > _RUNNERS[verb]:
        verb = words[_RUNNERS[verb]] if _RUNNERS[verb] == 1 or words[1] in ("run", "exec") else verb
    return (tool, verb)


_SEGMENT_END = re.compile(r"\|\|?|&&|;|[0-9]?>")


def targets(tool: str, args: Any) -> str | None:
    """What a shell command acts on: the words of its first segment after the verb that are neither
    flags nor bare numbers, quotes aside (None for other tools). `pytest -q 'a.py' | tail -20` and
    `python -m pytest a.py 2>&1 | head` act on `a.py`; `cat x/Dockerfile` and `cat y/Dockerfile` differ.
    """
    if tool not in SHELL_TOOLS:
        return None
    c = command_text(args)
    if not c:
        return None
    first = _SEGMENT_END.split(analyze(c[:2000]).stripped, maxsplit=1)[0]
    words = [w.strip("'\"") for w in first.split()[1:]]
    if len(words) > 1 and words[0] == "-m":
        words = words[2:]
    return " ".join(sorted({w for w in words if w and not w.startswith("-") and not w.isdigit()}))


def error_key(text: str, least: int = ERROR_MIN) -> int | None:
    """The result text folded, whitespace aside (None when shorter than `least` to compare)."""
    if len(text) < least:
        return None  # folding only shortens a text (under 16 KiB): it stays too short
    squeezed = "".join(fold(strip_exit(text)).split())
    return hash(squeezed) if len(squeezed) >= least else None


def signature(tool: str, args: Any, body: str | None = None) -> tuple[str, str]:
    """The call exactly: its tool and canonical arguments (what a change to the workspace is keyed by)."""
    return (tool, body if body is not None else exact_body("", args, _FIXED_IGNORE))


_PATH_KEYS = ("file_path", "path", "filename", "notebook_path", "absolute_path")


def shape(tool: str, args: Any, body: str | None = None) -> tuple[str, str]:
    """The call's failure key: tool and canonical arguments, numbers aside, as the seed — but a file
    argument keeps its digits: `table10.xls` and `table12.xls` are two files, not one call retried;
    and so do the numbers and identifiers that are whole values (`"amount": 374`, `"payment_id":
    "gift_card_7091239"`: `sameresult.data_values`): another card or amount is another attempt.

    Calls that differ in their numbers still fail separately when their errors differ (each test id
    names itself in its failure), because a new error text starts a new streak.
    """
    key = fold_numbers(body if body is not None else exact_body("", args, _FIXED_IGNORE)) + data_values(args)
    if isinstance(args, dict):
        for k in _PATH_KEYS:
            v = args.get(k)
            if isinstance(v, str) and v != fold_numbers(v):
                key += "\x00" + v
    return (tool, key)


@dataclass(frozen=True, slots=True)
class Outcome:
    """`dispatch`, `steer` (rewrite the failing result) or `deny` (do not dispatch), and why."""

    action: Literal["dispatch", "steer", "deny"]
    failures: int
    rule: Rule = "failure"
    already: bool = False
    cause: tuple[str, ...] = ()  # the values the error named (`cause-failure`)


DISPATCH = Outcome("dispatch", 0)


@dataclass(slots=True)
class _Sig:
    error: int
    epoch: int
    body: int  # the exact arguments of the streak's first failure (hashed)
    count: int = 1  # consecutive identical failures with no change in between
    same: int = 1  # identical failures, changes or not
    weight: int = 2  # `same` weighed: 2 per failure after cosmetic changes only, 1 after a new kind of change
    novel: int = 0  # the agent's count of new kinds of change at this failure
    varied: bool = False  # calls that differ in their numbers failed alike: the numbers do not matter

    def alike(self, body: int) -> bool:
        """Whether a call with this exact body is this failure again: the same call, or any variant once
        variants have failed alike (a changed number nobody showed to be cosmetic is a new attempt).
        """
        return self.varied or body == self.body


@dataclass(slots=True)
class _Agent:
    epoch: int = 0  # successful workspace changes so far in this turn
    sigs: OrderedDict[tuple[str, str], _Sig] = field(default_factory=OrderedDict)
    denied: set[tuple[str, str]] = field(default_factory=set)
    streak_tool: str = ""
    shapes: set[tuple[str, str]] = field(default_factory=set)  # kinds of change made (numbers aside)
    novel: int = 0  # how many changes of a new kind this turn
    streak_errors: set[int] = field(default_factory=set)  # the errors of the tool's failure streak
    streak_epoch: int = 0
    streak: int = 0
    applied: OrderedDict[tuple[tuple[str, str], int], None] = field(default_factory=OrderedDict)
    # command -> (result, epoch, n, failed): one command giving one result n times in a row, nothing changed
    errors: dict[tuple[str, str], tuple[int, int, int, bool]] = field(default_factory=dict)


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
        self.causes = Causes(self.deny_after)  # across turns: kept apart from `agents`, which a turn clears

    def epoch(self, agent: str | None) -> int:
        """How many successful workspace changes this turn (other rules read it)."""
        st = self.agents.get(agent)
        return st.epoch if st else 0

    def standing(self, agent: str | None) -> tuple[int, bool]:
        """`epoch`, and whether `gate` could deny any call of this agent now (armed): only a failure or a
        repeated answer counted this turn (or a cause counted across turns) can block, so until one is, the
        call need not be read. One lookup for both: the rules ask them before every call.
        """
        st = self.agents.get(agent)
        epoch = st.epoch if st is not None else 0
        if st is not None and (st.sigs or st.errors or (self.tool_limit and st.streak >= self.tool_limit)):
            return epoch, self.active
        # (most agents have no cause counted at all: no lookup then)
        return epoch, self.active and bool(self.causes.agents) and self.causes.warm(agent)

    def gate(self, agent: str | None, tool: str, args: Any, body: str | None = None) -> Outcome | None:
        """Before dispatch: deny a call whose failure streak (or a backstop) is full."""
        if not self.active:
            return None
        st = self.agents.get(agent)
        o = self._gate(st, tool, args, body) if st is not None else None
        if o is None and self.causes.warm(agent):  # the command costs a shell parse: only when some cause is full
            hit = self.causes.check(agent, command_of(tool, args), tool, args)
            if hit is not None:
                return Outcome("deny", hit.times, "cause-failure", cause=hit.cause)
        return o

    def _gate(self, st: _Agent, tool: str, args: Any, body: str | None) -> Outcome | None:
        if self.tool_limit and st.streak >= self.tool_limit and st.streak_tool == tool:
            return Outcome("deny", st.streak, "tool-failing")
        if self.error_limit and st.errors:
            e = st.errors.get(command_of(tool, args))
            if e is not None and e[1] == st.epoch and e[2] >= self.error_limit:
                return Outcome("deny", e[2], "same-error" if e[3] else "same-answer")
        if not st.sigs:
            return None
        sig = shape(tool, args, body)
        s = st.sigs.get(sig)
        if s is None or not s.alike(hash(body if body is not None else exact_body("", args, _FIXED_IGNORE))):
            return None
        if sig in st.denied:
            return Outcome("deny", s.count, "failure", True)
        if s.epoch == st.epoch and s.count >= self.deny_after:
            st.denied.add(sig)
            return Outcome("deny", s.count, "failure")
        if self.same_limit and s.weight >= 2 * self.same_limit:
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
            self._succeeded(agent, st, tool, args, text, mutating, body, key)
            return DISPATCH
        sig = shape(tool, args, body)
        exact = hash(body if body is not None else exact_body("", args, _FIXED_IGNORE))
        if key is None:
            key = result_key(text)
        self.causes.failed(agent, command_of(tool, args), tool, args, text, key)
        s = st.sigs.get(sig)
        if s is None or s.error != key:
            st.denied.discard(sig)
            s = st.sigs[sig] = _Sig(key, st.epoch, exact, novel=st.novel)
            while len(st.sigs) > self.history:
                st.sigs.popitem(last=False)
        else:
            s.varied = s.varied or exact != s.body
            s.same += 1
            s.weight += 1 if st.novel > s.novel else 2
            s.novel = st.novel
            s.count = s.count + 1 if s.epoch == st.epoch else 1
            s.epoch = st.epoch
        if self.error_limit:
            self._same(st, command_of(tool, args), error_key(text), True)
        self._tool_streak(st, tool, key)
        return Outcome("steer" if s.count >= self.steer_after else "dispatch", s.count)

    def _succeeded(
        self,
        agent: str | None,
        st: _Agent,
        tool: str,
        args: Any,
        text: str,
        mutating: bool,
        body: str | None,
        key: int | None,
    ) -> None:
        """A success: a change starts every count over; a read continues or ends its same-answer run."""
        if mutating:
            self._changed(agent, st, tool, args, body, key if key is not None else result_key(text))
        # cosmetic spellings of one command on one target that all print the same long answer
        # (`pytest x | tail`, `pytest -q x 2>&1 | head -50`: a failure hidden behind the pipe's status)
        # (a text under `ANSWER_MIN` folds shorter still: no answer to count, and no target needed)
        target = targets(tool, args) if self.error_limit and not mutating and len(text) >= ANSWER_MIN else None
        answer = error_key(text, ANSWER_MIN) if target is not None else None
        if answer is not None:
            self._same(st, command_of(tool, args), hash((answer, target)), False)
        elif st.errors:  # no long answer to count (or no target): the command's run ends
            st.errors.pop(command_of(tool, args), None)
        if self.causes.holds(agent):
            self.causes.succeeded(agent, command_of(tool, args))
        if st.sigs or st.streak:
            st.sigs.pop(shape(tool, args, body), None)
            if st.streak_tool == tool:
                st.streak = 0

    def _changed(self, agent: str | None, st: _Agent, tool: str, args: Any, body: str | None, key: int) -> None:
        """A successful change: a new epoch, unless this very change with this answer was already applied."""
        change = (signature(tool, args, body), key or 0)
        if change in st.applied:
            return  # a change already applied in this turn (the same write with the same answer) changes nothing
        if len(st.applied) >= APPLIED_CAP:
            st.applied.popitem(last=False)
        st.applied[change] = None
        st.epoch += 1
        st.denied.clear()
        self.causes.changed(agent)
        kind = shape(tool, args, body)
        if kind not in st.shapes:
            # a change that differs from every earlier one in more than its numbers is a new attempt
            if len(st.shapes) >= APPLIED_CAP:
                st.shapes.clear()
            st.shapes.add(kind)
            st.novel += 1

    def _tool_streak(self, st: _Agent, tool: str, key: int) -> None:
        """One more failure of this tool: it continues the streak when its error brought nothing new
        (`novelty`: an error this streak already saw, nothing changed since), else the streak starts over
        (the errors seen stay: a tool that alternates between two errors it already gave is still stuck).
        """
        if st.streak_tool != tool or st.streak_epoch != st.epoch:
            st.streak_tool, st.streak_epoch, st.streak, st.streak_errors = tool, st.epoch, 1, {key}
        elif key in st.streak_errors:
            st.streak += 1
        else:
            st.streak = 1
            if len(st.streak_errors) < 64:
                st.streak_errors.add(key)

    def _same(self, st: _Agent, cmd: tuple[str, str], key: int | None, failed: bool) -> None:
        """Count one more result of this command: the same result again continues the run, else it restarts."""
        if key is None:
            st.errors.pop(cmd, None)
            return
        e = st.errors.get(cmd)
        n = e[2] + 1 if e is not None and e[0] == key and e[1] == st.epoch and e[3] == failed else 1
        if cmd not in st.errors and len(st.errors) >= self.history:
            st.errors.pop(next(iter(st.errors)))
        st.errors[cmd] = (key, st.epoch, n, failed)

    def waited(self, agent: str | None) -> None:
        """A failing call that waited longer than any before it (`sleep N && retry`): a change before it."""
        st = self.agents.get(agent)
        if st is None:
            st = self.agents[agent] = _Agent()
        st.epoch += 1
        st.denied.clear()
        self.causes.changed(agent)
        self.backed_off(agent)

    def backed_off(self, agent: str | None) -> None:
        """The agent waited longer than ever before in this turn: earlier identical failures (a 429, a 503)
        may have been transient, so the same-failure backstop starts over (the streaks restart anyway,
        since the wait counts as a change).
        """
        st = self.agents.get(agent)
        if st is not None:
            for s in st.sigs.values():
                s.same = s.weight = 0

    def new_turn(self, agent: str | None) -> None:
        """A new turn clears the agent (not its causes: asking again changes nothing an error named)."""
        self.agents.pop(agent, None)

    def counts(self, agent: str | None) -> dict[tuple[str, str], int]:
        """The agent's current failure streaks, for display."""
        st = self.agents.get(agent)
        return {k: v.count for k, v in st.sigs.items()} if st else {}
