"""What a `Session` yields to its driver (the TUI or the headless runner), in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine import events as ev
from engine.breaker import ResultRewrite, StreamTrip, Verdict
from engine.messages import Hit

Answer = Literal["allow-once", "allow-turn", "deny", "cancel-turn"]


@dataclass(frozen=True)
class EngineItem:
    """An engine event parsed from the child's feed."""

    event: ev.Event


@dataclass(frozen=True)
class ToolDeltaItem:
    """Streaming tool-call arguments (display only)."""

    agent: str
    call_id: str
    name: str
    delta: str


@dataclass(frozen=True)
class VerdictItem:
    """A tool call was checked before it ran (or, `ran`: after it ran without asking, as ACP allows)."""

    agent: str
    call_id: str
    tool: str
    args: Any
    verdict: Verdict
    ran: bool = False  # the call had already run when it was judged: a deny here could not stop it


@dataclass(frozen=True)
class ResultItem:
    """A tool call finished; `rewrite` says what the breaker did to its result."""

    agent: str
    call_id: str
    tool: str
    text: str
    is_error: bool
    rewrite: ResultRewrite | None


@dataclass(frozen=True)
class TripItem:
    """A stream tripped a lens; `sent` says what command went to the child."""

    trip: StreamTrip
    sent: str


@dataclass(frozen=True)
class Question:
    """An approval the operator must answer; the agent waits meanwhile."""

    agent: str
    call_id: str | None
    tool: str
    args: Any
    reason: str
    hits: tuple[Hit, ...] = ()
    local: bool = False
    from_breaker: bool = False
    id: str = ""
    """The bridge's id for this approval (what `ApprovalClosed.id` names)."""
    earlier: tuple[Any, ...] = ()
    """The arguments of the earlier calls this one repeats, oldest first, when the wrapper keeps them.

    The approval modal highlights what differs from the newest of them (a repeat that is not quite
    one is what an operator must see). Empty: nothing to compare, and the modal says so.
    """


@dataclass(frozen=True)
class ApprovalItem:
    """An approval was asked (answer None) or answered."""

    question: Question
    answer: Answer | None = None
    by: str = ""


@dataclass(frozen=True)
class ApprovalClosed:
    """The bridge stopped waiting for approval `id` (it timed out, the child exited, the bridge went away).

    The agent already got a decline; an answer given after this is recorded as late and not applied.
    """

    id: str
    reason: str


@dataclass(frozen=True)
class OutputItem:
    """Raw text the child printed on its terminal."""

    text: str


@dataclass(frozen=True)
class StatusItem:
    """Lifecycle and problems: ready, bridge, exited, warning, error, notice."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


Item = (
    EngineItem
    | ToolDeltaItem
    | VerdictItem
    | ResultItem
    | TripItem
    | ApprovalItem
    | ApprovalClosed
    | OutputItem
    | StatusItem
)
