"""Typed, immutable events the engine understands, each carrying the agent (dsh session) id."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class RequestStart:
    """A model request (one stream) begins; `purpose` is set for side requests such as titles."""

    agent: str
    turn: int
    step: int
    purpose: str | None = None


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of streamed reasoning."""

    agent: str
    text: str


@dataclass(frozen=True, slots=True)
class AnswerDelta:
    """A piece of streamed answer text."""

    agent: str
    text: str


@dataclass(frozen=True, slots=True)
class OutputDelta:
    """Text a non-dsh child printed; watched by the reasoning lenses."""

    agent: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asked for a tool call (shown; the verdict comes from `Breaker.check_tool`)."""

    agent: str
    call_id: str
    tool: str
    args: Any


@dataclass(frozen=True, slots=True)
class UserMessage:
    """A message entered the agent's context: from the human (`user`) or a plugin notice."""

    agent: str
    text: str
    source: Literal["user", "plugin", "other"] = "user"


@dataclass(frozen=True, slots=True)
class TurnStart:
    """A turn begins."""

    agent: str
    turn: int


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """A turn ended: completed, aborted, error, ..."""

    agent: str
    turn: int
    reason: str


@dataclass(frozen=True, slots=True)
class StepStart:
    """A step (one model call plus its tool calls) begins."""

    agent: str
    turn: int
    step: int


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage reported at the end of a model stream."""

    agent: str
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int = 0


Event = (
    RequestStart
    | ReasoningDelta
    | AnswerDelta
    | OutputDelta
    | ToolCall
    | UserMessage
    | TurnStart
    | TurnEnd
    | StepStart
    | Usage
)
