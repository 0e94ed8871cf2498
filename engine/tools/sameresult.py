"""The same result, however the call was spelled: a repeat judged by what came back, for every tool.

The fingerprints compare arguments, so a loop that changes one number, one counter word, a flag or
a comment on every call (`curl .../export?x=1`, `x=2`, ...; `cat notes.txt; echo try 3`;
`./fetch --attempt 4`) is a new call each time and never reaches a cap. What such a loop cannot
change is its answer. So this rule keys each call by its *shape* and its *result*:

* the shape is the tool and its arguments with what a model varies cosmetically taken out: digit
  runs folded (except in file names: `table10.xls` and `table12.xls` are two files, and except a
  number or an identifier that is a whole argument value, `"amount": 374`, `"flight_number":
  "HAT030"`: that is the data, so a booking re-sent with a recomputed amount is a new request, not a
  counter changed: `data_values`), shell
  comments, the words of `echo`/`printf` and every flag dropped; what the call acts on (the verb,
  its targets, the file it reads) stays, so six services' identical health JSON or six identical
  Dockerfiles read one by one are six shapes;
* the result is its text with the volatile parts folded (`progress.fold`: stamps, durations, hex
  ids, pids, ports, temp paths) and every number that the call's own arguments carry folded too (a
  counter the call echoes, `try 3`, is not news).

The rule, stated once: when one shape has returned one result `limit` times in a row (other calls
may come in between) with no change to the workspace since, the next call of that shape is denied
before it runs (the engine sees results only after a call: the block falls on the call after the
evidence) — when the run was spelled in more than one way; one call repeated exactly is left to the
repeat window, which stops it at the same call and names its fingerprint. A different result, or a
change, starts the count over, so a poll whose answer moves is never stopped however identical
its calls are.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from engine.tools import novelty
from engine.tools.failures import fold_numbers
from engine.tools.progress import SHELL_TOOLS, command_text

_CAP = 256
_COMMENT = re.compile(r"(?:^|\s)#[^\n]*")
_ECHO = re.compile(r"(?:^|(?<=[;&|]))\s*(?:echo|printf)\b[^;&|\n]*")
_FILEISH = re.compile(r"^[\w./~-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,7}$|^[\w.~-]*/[\w./-]+$")
_PATH_KEYS = ("file_path", "path", "filename", "notebook_path", "absolute_path", "filePath")
# what a call says, not how it is spelled: a message `line 3` then `line 4` is two messages
_SAYS_KEYS = ("text", "content", "message", "body", "prompt", "question", "query", "input")
RESULT_MIN = 16  # shorter results (`ok`, ``) say too little about which call they answered


_FLAGS = re.compile(r"(?<!\S)--?[A-Za-z][\w-]*(?:=\S*)?(?!\S)")
_DIGIT_WORD = re.compile(r"(?<!\S)\S*\d\S*")  # `\S*\d\S*` tried only where a word starts (linear; the same words)


def _word(m: re.Match[str]) -> str:
    """A command word with a digit as the shape keeps it: a file name whole, anything else with its
    numbers folded (quotes kept: `./check 'the owl flies'` is one argument, the fix of `./check the owl flies`).
    """
    w = m.group()
    if "?" not in w and _FILEISH.match(w.strip("'\"")):
        return w
    return fold_numbers(w)


def shell_shape(command: str) -> str:
    """A shell command's shape: comments, `echo`/`printf` words and flags dropped, numbers folded."""
    c = command[:2000]
    if "#" in c:
        c = _COMMENT.sub(" ", c)
    if "echo" in c or "printf" in c:
        c = _ECHO.sub(" echo ", c)
    if "-" in c:
        c = _FLAGS.sub("", c)
    return " ".join(_DIGIT_WORD.sub(_word, c).split())


# a whole value that is data: a number (`299`, `"2"`, `12.5`) or an identifier (letters and digits)
_DATUM = re.compile(r"-?\d+(?:\.\d+)?|(?=[\w.-]*[A-Za-z])(?=[\w.-]*\d)[\w.-]{2,64}")
_LEAVES = 64


def data_values(args: Any) -> str:
    """The argument values whose digits are data, as `key=value` in sorted order: a number that is a
    whole value (`"amount": 299`, `"seats": "2"`) and an identifier that is a whole value
    (`"flight_number": "HAT030"`, `"payment_id": "gift_card_7091239"`: letters and digits, no spaces).
    A structured call's numbers are what it asks about (prices, counts, flights, cards), not a counter
    it varies. Digits inside a longer string (a command line, a URL, a message) are not here: those
    fold as before.
    """
    if not isinstance(args, (dict, list)):
        return ""
    out: list[str] = []
    stack: list[Any] = [args]
    seen = 0
    while stack and seen < _LEAVES:
        v = stack.pop()
        for k, x in v.items() if isinstance(v, dict) else enumerate(v):
            seen += 1
            if isinstance(x, (dict, list)):
                stack.append(x)
            elif isinstance(x, str):
                if len(x) <= 64 and _DATUM.fullmatch(x):
                    out.append(f"{k}={x}")
            elif isinstance(x, (int, float)) and not isinstance(x, bool):
                out.append(f"{k}={x}")
            if seen >= _LEAVES:
                break
    return "\x00#" + ",".join(sorted(out)) if out else ""


def shape(tool: str, args: Any, body: str) -> str:
    """The call's shape for this rule (`body` is its canonical arguments, the `exact:` body)."""
    if tool in SHELL_TOOLS:
        c = command_text(args)
        if c:
            return f"{tool}\x00{shell_shape(c)}"
    key = fold_numbers(body) + data_values(args)
    if isinstance(args, dict):
        for k in (*_PATH_KEYS, *_SAYS_KEYS):
            v = args.get(k)
            if isinstance(v, str) and v != fold_numbers(v):
                key += "\x00" + v[:500]  # a file argument, or what the call says, keeps its digits
    return f"{tool}\x00{key}"


# per-call ids a tool hands out (`run_3`, `om_12`, `sess-4`, `"messageId": "x9"`): never news
_IDS = re.compile(
    r"\b[A-Za-z]{1,4}[_-]\d+\b"  # run_3, om_12, sess-4
    r"|(?<=[iI][dD]\": \")[^\"]{1,64}(?=\")"  # "messageId": "x9"
    r"|(?<=\b[iI][dD] )[\w.-]{1,64}|(?<=[-_][iI][dD] )[\w.-]{1,64}"  # request-id 7919
    r"|(?<=[-_][iI][dD][=:#])[\w.-]{1,64}"  # trace_id=ab12
)
# every id after an `id` word needs one of these spellings (a superset, found by a fast scan; `_names_an_id`
# then checks what precedes it); a result without one can only hold the `run_3` kind, which needs a digit
# after `_`/`-`: most results skip the pass
_ID_WORD = re.compile(r"[iI][dD](?:\": \"| |[=:#])")
_DASH_DIGIT = re.compile(r"[_-]\d")
_SHORT_ID = re.compile(r"[A-Za-z](?<!\w[A-Za-z])[A-Za-z]{0,3}[_-]\d+\b")  # `\b[A-Za-z]{1,4}[_-]\d+\b`, from its letter


def _names_an_id(text: str) -> bool:
    """Whether an `_IDS` part after an `id` word can match: `id": "` anywhere, or `id` followed by a space,
    `=`, `:` or `#` where it starts a word or follows `_` (`valid `, `did ` cannot).
    """
    for m in _ID_WORD.finditer(text):
        i = m.start()
        if m.group().endswith('"') or i == 0 or not text[i - 1].isalnum():
            return True
    return False


def fold_ids(text: str) -> str:
    """The per-call ids a tool hands out (`_IDS`) folded to `#`."""
    if _names_an_id(text):
        return _IDS.sub("#", text)
    return _SHORT_ID.sub("#", text) if _DASH_DIGIT.search(text) is not None else text


def result_of(text: str, tool: str = "", args: Any = None) -> int | None:
    """The result key: the result as every rule compares it (`novelty.news_text`), with the per-call ids
    a tool hands out folded too (None when it is under `RESULT_MIN` characters, spaces aside).
    """
    return answer_of(novelty.news_text(text, tool, args))


def answer_of(news: str) -> int | None:
    """`result_of` from the result's `novelty.news_text` (for a caller that has it already)."""
    if len(news) < RESULT_MIN:
        return None  # folding ids only shortens a text: it stays under the minimum
    folded = fold_ids(news)
    if len(folded) < 4 * RESULT_MIN and novelty.substance(folded) < RESULT_MIN:
        return None
    return hash(folded)


@dataclass(slots=True)
class _Run:
    result: int
    epoch: int
    call: str  # the first call of the run, exactly
    count: int = 1
    varied: bool = False  # some call of the run was spelled differently


@dataclass(slots=True)
class _Agent:
    runs: OrderedDict[str, _Run] = field(default_factory=OrderedDict)
    full: int = 0  # runs that reached the limit (while none has, no call needs its shape checked)


@dataclass(frozen=True, slots=True)
class SameResultHit:
    """A shape that answered one result `times` times with nothing changed."""

    shape: str
    times: int


class SameResults:
    """Per agent and turn: how many times in a row each shape returned one result, nothing changed."""

    def __init__(self, limit: int = 4) -> None:
        self.limit = limit
        self.agents: dict[str, _Agent] = {}

    def hot(self, agent: str) -> bool:
        """Whether some run of this agent reached the limit (so a call may be denied)."""
        a = self.agents.get(agent)
        return a is not None and a.full > 0

    def running(self, agent: str) -> bool:
        """Whether this agent has a run that a result could end (`record` of a short result changes nothing
        otherwise).
        """
        a = self.agents.get(agent)
        return self.limit > 0 and a is not None and bool(a.runs)

    def check(self, agent: str, shape_: str, epoch: int) -> SameResultHit | None:
        """Before dispatch: a hit when this shape already returned one result `limit` times since the last change."""
        if not self.limit:
            return None
        a = self.agents.get(agent)
        r = a.runs.get(shape_) if a else None
        if r is not None and r.epoch == epoch and r.count >= self.limit and r.varied:
            return SameResultHit(shape_, r.count)
        return None  # one call repeated exactly is the repeat window's (it names the fingerprint)

    def record(self, agent: str, shape_: str, result: int | None, epoch: int, call: str = "") -> int:
        """After a dispatched call: one more identical result (or a new run); returns the run's length.
        A result too short to compare (None) ends the run.
        """
        if not self.limit:
            return 0
        a = self.agents.get(agent)
        if result is None:
            if a is not None:
                self._drop(a, shape_)
            return 0
        if a is None:
            a = self.agents[agent] = _Agent()
        r = a.runs.get(shape_)
        if r is not None and r.result == result and r.epoch == epoch:
            r.count += 1
            r.varied = r.varied or call != r.call
            if r.count == self.limit:
                a.full += 1
            return r.count
        self._drop(a, shape_)
        if len(a.runs) >= _CAP:
            self._drop(a, next(iter(a.runs)))
        a.runs[shape_] = _Run(result, epoch, call)
        return 1

    def _drop(self, a: _Agent, shape_: str) -> None:
        r = a.runs.pop(shape_, None)
        if r is not None and r.count >= self.limit:
            a.full -= 1

    def reset(self, agent: str) -> None:
        """A new turn, a human message or the operator's reset: forget the agent."""
        self.agents.pop(agent, None)
