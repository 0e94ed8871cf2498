"""What each agent's streams carry between deltas, and the lenses a delta goes through in each mode.

`Breaker` owns the decisions (arming a trip, the retry with thinking off); this module owns the
per-request lens state and the order the lenses see a delta in.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.config import BreakerConfig, ThinkingConfig
from engine.lenses.degeneracy import DegeneracyDetector, DegeneracySettings
from engine.lenses.repetition import RepetitionDetector, RepetitionSettings
from engine.lenses.verbatim import STRUCTURE_TAIL, ProseFilter, VerbatimDetector, structured
from engine.monologue import Monologue
from engine.units import utf16_len

HISTORY = 60
Stream = Literal["reasoning", "answer", "output"]


@dataclass(slots=True)
class AgentState:
    """One agent's turn bookkeeping and its current request's lenses."""

    agent: str
    turn: int = -1
    tripped: bool = False
    trips: int = 0
    retries_used: int = 0
    retry_armed: bool = False
    hint_pending: bool = False
    aux: bool = False
    stream_dead: bool = False
    reasoning_chars: int = 0
    rep: RepetitionDetector | None = None
    deg: DegeneracyDetector | None = None
    ans: DegeneracyDetector | None = None
    last_hits: tuple[str, ...] = ()
    overlap_hist: deque[float] = field(default_factory=lambda: deque(maxlen=HISTORY))
    meaning_hist: deque[float] = field(default_factory=lambda: deque(maxlen=HISTORY))
    denials: int = 0
    ran_tripped: int = 0  # calls that tripped a rule after they ran without asking (ACP): not denials
    asks: int = 0
    calls: dict[str, tuple[str, Any]] = field(default_factory=dict)
    prose: ProseFilter | None = None
    verbatim: VerbatimDetector | None = None
    # the answer stream's own prose lenses (default mode): an answer may restate its reasoning, so they never share
    ans_prose: ProseFilter | None = None
    ans_rep: RepetitionDetector | None = None
    ans_verbatim: VerbatimDetector | None = None
    pending_trip: dict[str, Any] | None = None
    tail: str = ""  # the last prose lens A saw (default mode: is it a list?)


def fresh_streams(a: AgentState, config: BreakerConfig, rep: RepetitionSettings, deg: DegeneracySettings) -> None:
    """New lenses for a new model request."""
    th = config.thinking
    a.rep = RepetitionDetector(rep)
    a.deg = DegeneracyDetector(deg) if th.degeneracy_guard else None
    a.ans = DegeneracyDetector(deg) if th.degeneracy_guard and th.degeneracy_on_answer else None
    a.stream_dead = False
    a.reasoning_chars = 0
    if not config.engine.seed:
        a.prose = ProseFilter()
        a.verbatim = VerbatimDetector() if config.engine.verbatim_lens else None
        a.tail = ""
        a.ans_prose = ProseFilter()
        a.ans_rep = RepetitionDetector(rep)
        a.ans_verbatim = VerbatimDetector() if config.engine.verbatim_lens else None


def _degeneracy(a: AgentState, text: str) -> dict[str, Any] | None:
    assert a.deg is not None
    before = a.deg.idx
    trip = a.deg.push(text)
    if a.deg.idx != before:
        a.meaning_hist.append(a.deg.last_meaning)
    return trip


def _over_cap(a: AgentState, cap: int) -> dict[str, Any] | None:
    if cap > 0 and a.reasoning_chars > cap:
        return {"rule": "max-reasoning-chars", "blockChars": 0, "block": 0, "offset": a.reasoning_chars}
    return None


def seed_lenses(a: AgentState, text: str, stream: Stream, th: ThinkingConfig) -> dict[str, Any] | None:
    """The seed's lenses on one delta: lens A and A2 on reasoning, A2 on the answer if asked; the size cap."""
    if stream == "answer":
        return a.ans.push(text) if a.ans is not None else None
    a.reasoning_chars += utf16_len(text)
    assert a.rep is not None
    before = a.rep.idx
    trip = a.rep.push(text)
    if a.rep.idx != before:
        a.overlap_hist.append(a.rep.last_overlap)
    if trip is None and a.deg is not None:
        trip = _degeneracy(a, text)
    return trip if trip is not None else _over_cap(a, th.max_reasoning_chars)


def default_lenses(
    a: AgentState, text: str, stream: Stream, th: ThinkingConfig, monologue: Monologue
) -> tuple[dict[str, Any] | None, bool]:
    """The default mode's lenses on one delta: restatements across requests, prose-only lens A, verbatim
    units, lens A2, the size cap. Returns the trip and whether it may be retried with thinking off.
    """
    if stream == "answer":
        hit = monologue.answer(a.agent, text)
        if hit is not None:
            return {"rule": hit.rule, "steps": hit.steps, "sample": hit.sample, "block": 0}, False
        found = a.ans.push(text) if a.ans is not None else None
        if found is None and a.ans_prose is not None and a.ans_rep is not None:
            # an answer that repeats itself is the same loop as reasoning that does
            prose = a.ans_prose.push(text)
            if prose and a.ans_verbatim is not None:
                found = a.ans_verbatim.push(prose)
        return found, True
    if stream == "reasoning":
        monologue.think(a.agent, text)
    a.reasoning_chars += utf16_len(text)
    prose = a.prose.push(text) if a.prose is not None else text
    trip: dict[str, Any] | None = None
    if prose:
        assert a.rep is not None
        before = a.rep.idx
        trip = a.rep.push(prose)
        if a.rep.idx != before:
            a.overlap_hist.append(a.rep.last_overlap)
        a.tail = (a.tail + prose)[-STRUCTURE_TAIL:]
        if trip is not None and trip["rule"] == "low-novelty" and structured(a.tail):
            trip = None  # a list or table whose items share a note names something new on each line
        if trip is None and a.verbatim is not None and stream == "reasoning":
            # programs print the same line many times for good reasons; lens A still watches output
            trip = a.verbatim.push(prose)
    if trip is None and a.deg is not None:
        trip = _degeneracy(a, text)
    # the output of a plain command is watched over a moving window, never capped by size
    if trip is None:
        trip = _over_cap(a, th.max_reasoning_chars if stream == "reasoning" else 0)
    return trip, True
