"""The cause an error names: a retry that keeps it fails the same way, whatever turn it is in.

Many errors say what is wrong by quoting the call: `Error: flight HAT030 not available on date
2024-05-13`, `cat: notes.txt: No such file or directory`, `bash: frob: command not found`, `total price
is 375, but paid 299`. The values of the call that the error quotes are its *cause*. A retry that still
carries every one of them, and fails with the same error while nothing changed, did not touch what the
error complained about — however much else it changed (another flight added, a flag, a comment) and
whoever asked for it again. That is the loop of a customer-service agent that re-sends one failing
update each time the customer repeats the request: every retry follows a new message, so a count per
turn never sees it, and the rest of the call changes, so a count per call shape never sees it either.

The rule: when one command (`outcomes.command_of`: the tool, the shell verb, an editor's sub-command)
has failed `limit` times with one error (folded as `progress.result_key` folds it) naming one cause, and
no change to the workspace came in between, the next call of that command that still carries the
whole cause is denied before it runs. Unlike the other failure counts it survives a new turn and a
human message: a person asking for the same thing again changes nothing the error named. What
starts it over: a change to the workspace (a successful edit, a mutating shell command, a longer
wait), or a success of the same command (whatever the error was about may have moved).

An error that quotes none of the call's values (`gift card balance is not enough`) names no cause,
and a call that drops or changes the quoted value (`paid 374` after `paid 299`) is a new attempt:
neither is counted here. Values too short to name anything (one character, or two without a digit)
and booleans never count, nor a command line's plain words (`npm run build` names nothing when the
error says `error during build`: only words that look like values, `notes.txt`, `src/a.py`, `v2.1`,
do); the error is read on its first `_HEAD` characters.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from engine.tools.novelty import unechoed
from engine.tools.progress import SHELL_TOOLS, command_text

_HEAD = 2000  # an error names its cause up front
_LEAVES = 64  # at most this many argument values are read
_VALUE_MAX = 200  # longer strings (code, prose) are contents, not values an error quotes
_NAMED_MAX = 8
_CAP = 64  # causes remembered per agent
_WORD = re.compile(r"[A-Za-z0-9_]")
_QUOTES = "'\"`"
_VALUE_WORD = re.compile(r"[0-9./_:@]")


def _eligible(v: str) -> bool:
    """A value long enough to name something: 3+ characters, or 2 with a digit (`42`, `v2`)."""
    if len(v) >= 3:
        return True
    return len(v) == 2 and any("0" <= c <= "9" for c in v)


def call_values(tool: str, args: Any) -> frozenset[str]:
    """The values a call carries: its string and number leaves (bounded), or a shell command's words."""
    out: set[str] = set()
    if tool in SHELL_TOOLS:
        # a command line's plain words (`run`, `build`, `test`) are the language errors are written in
        # (`error during build`): only a word that looks like a value (a path, a file, a version, a host,
        # an id: it holds a digit, `.`, `/`, `_`, `:` or `@`) is something an error can quote
        for w in command_text(args)[:2000].split()[:_LEAVES]:
            w = w.strip(_QUOTES).rstrip(";,")
            if _eligible(w) and _VALUE_WORD.search(w):
                out.add(w)
        return frozenset(out)
    stack: list[Any] = [args]
    seen = 0
    while stack and seen < _LEAVES:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(list(v.values())[:_LEAVES])
        elif isinstance(v, (list, tuple)):
            stack.extend(v[:_LEAVES])
        elif isinstance(v, bool):
            continue  # `true` quoted by an error says nothing about which call it was
        elif isinstance(v, (str, int, float)):
            seen += 1
            s = v.strip() if isinstance(v, str) else str(v)
            if _eligible(s) and len(s) <= _VALUE_MAX:
                out.add(s)
    return frozenset(out)


def _quoted(value: str, text: str) -> bool:
    """Whether `text` holds `value` as a whole token (no letter, digit or `_` on either side)."""
    start = text.find(value)
    while start >= 0:
        end = start + len(value)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not _WORD.match(before) and not _WORD.match(after):
            return True
        start = text.find(value, start + 1)
    return False


def named_cause(values: frozenset[str], text: str) -> frozenset[str]:
    """The call's values that the error text quotes (empty when it quotes none)."""
    head = text[:_HEAD]
    named = [v for v in values if len(v) <= len(head) and _quoted(v, head)]
    return frozenset(sorted(named, key=len, reverse=True)[:_NAMED_MAX])


@dataclass(slots=True)
class _Cause:
    named: frozenset[str]
    count: int = 1


@dataclass(slots=True)
class _Agent:
    # (command, error key, cause) -> how many failures, nothing changed in between
    causes: OrderedDict[tuple[tuple[str, str], int, frozenset[str]], _Cause] = field(default_factory=OrderedDict)
    hot: dict[tuple[str, str], int] = field(default_factory=dict)  # command -> causes at the limit


@dataclass(frozen=True, slots=True)
class CauseHit:
    """A call that still carries a cause its command failed on `times` times."""

    cause: tuple[str, ...]
    times: int


class Causes:
    """Per agent, across turns: failures counted by the cause their error names."""

    def __init__(self, limit: int = 3) -> None:
        self.limit = limit
        self.agents: dict[str | None, _Agent] = {}

    def warm(self, agent: str | None) -> bool:
        """Whether some cause of this agent reached the limit (only then is a call checked)."""
        a = self.agents.get(agent)
        return a is not None and bool(a.hot)

    def holds(self, agent: str | None) -> bool:
        """Whether this agent has any cause counted (only then does a success need its command)."""
        a = self.agents.get(agent)
        return a is not None and bool(a.causes)

    def check(self, agent: str | None, command: tuple[str, str], tool: str, args: Any) -> CauseHit | None:
        """Before dispatch: a hit when the call carries a whole cause its command failed on `limit` times."""
        a = self.agents.get(agent)
        if a is None or not self.limit or not a.hot.get(command):
            return None
        values = call_values(tool, args)
        for (cmd, _, named), c in a.causes.items():
            if cmd == command and c.count >= self.limit and named <= values:
                return CauseHit(tuple(sorted(named)), c.count)
        return None

    def failed(self, agent: str | None, command: tuple[str, str], tool: str, args: Any, text: str, error: int) -> None:
        """After a failure: count it against the cause its error names (nothing when it names none)."""
        if not self.limit:
            return
        values = call_values(tool, args)
        named = named_cause(values, text)
        if named:
            # read on what the command printed: a harness's restatement of the call above it quotes every
            # value the call carries, whatever the error named (looked for only where some value is quoted)
            named = named_cause(values, unechoed(text, tool, args))
        if not named:
            return
        a = self.agents.get(agent)
        if a is None:
            a = self.agents[agent] = _Agent()
        key = (command, error, named)
        c = a.causes.get(key)
        if c is None:
            if len(a.causes) >= _CAP:
                self._drop(a, next(iter(a.causes)))
            a.causes[key] = _Cause(named)
            c = a.causes[key]
        else:
            c.count += 1
        if c.count == self.limit:
            a.hot[command] = a.hot.get(command, 0) + 1

    def succeeded(self, agent: str | None, command: tuple[str, str]) -> None:
        """A success of the command: what its errors were about may have moved, so its causes start over."""
        a = self.agents.get(agent)
        if a is None or not a.causes:
            return
        for key in [k for k in a.causes if k[0] == command]:
            self._drop(a, key)

    def changed(self, agent: str | None) -> None:
        """A change to the workspace: every cause starts over."""
        self.agents.pop(agent, None)

    def _drop(self, a: _Agent, key: tuple[tuple[str, str], int, frozenset[str]]) -> None:
        c = a.causes.pop(key, None)
        if c is not None and c.count >= self.limit:
            a.hot[key[0]] -= 1
            if not a.hot[key[0]]:
                del a.hot[key[0]]
