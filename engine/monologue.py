"""Loops across model requests: the same answer, or the same plan, restated in consecutive steps of a turn.

The stream lenses live inside one request, so a model that answers "I have completed the task." in
three steps in a row, or restates one plan in its reasoning every step while nothing changes, is
invisible to them. Per agent this module keeps a digest of each finished request of the turn:

* answer: the answer text with whitespace collapsed and numbers folded; `steps` consecutive requests that answer the
  same text and call no tool trip as soon as the last one's text is complete;
* plan: the word 3-gram set of the reasoning (at least `PLAN_MIN` characters); `steps` consecutive
  requests whose plans overlap by `PLAN_OVERLAP` or more, with no change to the workspace between
  them, trip when the next request starts.

Both end the turn (the model would only restate it again); retrying with thinking off cannot help.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from engine.peragent import state_of

KEEP = 4000
PLAN_MIN = 200
PLAN_OVERLAP = 0.85


class LoopHit(NamedTuple):
    """A restatement loop: the rule, how many steps, a sample of the text."""

    rule: str
    steps: int
    sample: str


_NUMBER = re.compile(r"\d+")


def _norm(text: str) -> str:
    """An answer compared across steps: whitespace collapsed, numbers folded (a counter or a clock time
    in "still waiting (attempt 3)" does not make the same answer new).
    """
    return _NUMBER.sub("#", " ".join(text.split()))


def _grams(text: str) -> frozenset[str]:
    w = text.lower().split()
    return frozenset(map(" ".join, zip(w, w[1:], w[2:], strict=False)))  # word 3-grams, at C speed


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


@dataclass(slots=True)
class _Agent:
    answer: list[str] = field(default_factory=list)
    answer_len: int = 0
    think: list[str] = field(default_factory=list)
    think_len: int = 0
    called: bool = False
    epoch: int = 0
    prev_answer: str = ""
    answer_streak: int = 0  # consecutive finished requests with prev_answer and no call
    prev_plan: frozenset[str] = frozenset()
    plan_streak: int = 0
    plan_epoch: int = -1
    done: bool = False


class Monologue:
    """Per-agent digests of the finished requests of a turn."""

    def __init__(self, steps: int = 3) -> None:
        self.steps = steps
        self.agents: dict[str, _Agent] = {}

    def _a(self, agent: str) -> _Agent:
        return state_of(self.agents, agent, _Agent)

    def start(self, agent: str, epoch: int) -> LoopHit | None:
        """A main request begins: close the previous one; a restated plan trips here."""
        a = self._a(agent)
        hit = self._close(a, epoch)
        a.answer, a.answer_len, a.think, a.think_len, a.called = [], 0, [], 0, False
        a.epoch = epoch
        return hit

    def _close(self, a: _Agent, epoch: int) -> LoopHit | None:
        if a.answer_len or a.think_len or a.called:
            ans = _norm("".join(a.answer))
            if ans and not a.called and ans == a.prev_answer:
                a.answer_streak += 1
            else:
                a.answer_streak = 1 if ans and not a.called else 0
            a.prev_answer = ans
        if not self.steps or a.think_len < PLAN_MIN:
            if a.think_len or a.answer_len or a.called:
                a.plan_streak = 0
                a.prev_plan = frozenset()
            return None
        plan = _grams("".join(a.think))
        if a.plan_streak and a.plan_epoch == epoch and _overlap(plan, a.prev_plan) >= PLAN_OVERLAP:
            a.plan_streak += 1
        else:
            a.plan_streak = 1
        a.prev_plan = plan
        a.plan_epoch = epoch
        if a.plan_streak >= self.steps and not a.done:
            a.done = True
            return LoopHit("restated-plan", a.plan_streak, " ".join("".join(a.think).split())[:160])
        return None

    def think(self, agent: str, text: str) -> None:
        """Reasoning text of the current request (the first `KEEP` characters are kept)."""
        a = self._a(agent)
        if a.think_len < KEEP:
            a.think.append(text[: KEEP - a.think_len])
            a.think_len += min(len(text), KEEP - a.think_len)

    def answer(self, agent: str, text: str) -> LoopHit | None:
        """Answer text of the current request; trips when it completes the `steps`-th identical answer."""
        a = self._a(agent)
        if a.answer_len >= KEEP:
            return None
        a.answer.append(text[: KEEP - a.answer_len])
        a.answer_len += min(len(text), KEEP - a.answer_len)
        if not self.steps or a.called or a.done or not a.prev_answer or a.answer_streak < self.steps - 1:
            return None
        if a.answer_len < len(a.prev_answer) or _norm("".join(a.answer)) != a.prev_answer:
            return None
        a.done = True
        return LoopHit("monologue", a.answer_streak + 1, a.prev_answer[:160])

    def call(self, agent: str) -> None:
        """The current request called a tool."""
        a = self.agents.get(agent) or self._a(agent)
        if not a.called:  # most calls follow another in the same request: nothing to write
            a.called = True

    def reset(self, agent: str) -> None:
        """A new turn: forget the agent."""
        self.agents.pop(agent, None)
