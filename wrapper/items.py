"""What a `Session` yields to its driver (the TUI or the headless runner), in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine import events as ev
from engine.breaker import ResultRewrite, StreamTrip, Verdict
from engine.tools.messages import Hit

Answer = Literal["allow-once", "allow-turn", "deny", "cancel-turn"]
"""allow-once: this call only (the next repeat asks again); allow-turn: this call and, for the rest of the
turn, later local calls whose only blocking hits are the fingerprints shown (never an escalation, another
permission or a non-local call); deny: refuse it (a declined local repeat refuses local repeats until the
next message); cancel-turn: refuse it and cancel the turn."""

By = Literal["person", "policy", "engine", "timeout"]
"""Who gave an answer. person: someone answered the question; policy: `--approvals` / the headless default,
or the flood bound (more questions waiting than a person can read); engine: breaker-tui itself, without
asking (an earlier allow-for-the-turn covers the call, the approver failed, or the agent or its bridge
went away while the question was open); timeout: nobody answered within the time allowed."""
BY: tuple[By, ...] = ("person", "policy", "engine", "timeout")


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
    hidden: str = ""
    """What of this call the monitor never received, said in words (empty: `args` is the whole call).

    dsh's bridge sends only the head of arguments too large for its channel; such a call cannot be shown
    whole, and the person must be told so rather than shown a part as if it were all.
    """


@dataclass(frozen=True)
class ApprovalItem:
    """An approval was asked (answer None) or answered (`by` says who, `why` says why when it was not a person)."""

    question: Question
    answer: Answer | None = None
    by: str = ""
    """One of `BY` (`person`, `policy`, `engine`, `timeout`); a replayed recording says what it recorded."""
    why: str = ""
    """For an automatic answer, the reason in a few words (what covered it, which bound, what went away)."""

    @property
    def who(self) -> str:
        """`by`, with the reason when there is one: what stderr, `scan` and the stream print in brackets."""
        return f"{self.by}: {self.why}" if self.why else self.by


@dataclass(frozen=True)
class ApprovalClosed:
    """The bridge stopped waiting for approval `id` (it timed out, the child exited, the bridge went away).

    The agent already got a decline; an answer given after this is recorded as late and not applied.
    """

    id: str
    reason: str


@dataclass(frozen=True)
class OutputItem:
    """Raw text the child printed: on its terminal (a pty), or on its own stdout or stderr (a plain command
    run without a screen, on pipes).
    """

    text: str
    stream: str = "terminal"  # "terminal", "stdout", "stderr", or "log" (an ACP agent's own stderr log)


@dataclass(frozen=True)
class StatusItem:
    """Lifecycle and problems: ready, bridge, exited, warning, error, notice."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FileDiff:
    """One file an edit changes, as a unified diff (`created`: the file did not exist before)."""

    path: str
    created: bool
    added: int
    removed: int
    text: str


@dataclass(frozen=True)
class CallItem:
    """Everything shown of one tool call so far, sent whole each time it changes (keyed by `call_id`).

    Display only: the engine gets the call through `EngineItem`/`VerdictItem` and its result through
    `ResultItem`. `output` is the whole output the agent reported (capped at its end).
    """

    agent: str
    call_id: str
    title: str
    kind: str
    status: str
    diffs: tuple[FileDiff, ...] = ()
    output: str = ""
    exit_code: int | None = None


@dataclass(frozen=True)
class PlanEntry:
    """One step of the agent's plan: `status` pending, in_progress or completed; `priority` high, medium, low."""

    content: str
    status: str = "pending"
    priority: str = ""


@dataclass(frozen=True)
class PlanItem:
    """The agent's whole plan (each update replaces the last)."""

    agent: str
    entries: tuple[PlanEntry, ...]


@dataclass(frozen=True)
class SlashCommand:
    """A command the agent advertises; it runs when a prompt's text is `/name args`."""

    name: str
    description: str = ""
    hint: str = ""


@dataclass(frozen=True)
class CommandsItem:
    """The agent's slash commands (each update replaces the last)."""

    commands: tuple[SlashCommand, ...]


@dataclass(frozen=True)
class ChoiceOption:
    """One value a choice can take."""

    value: str
    name: str
    description: str = ""


@dataclass(frozen=True)
class Choice:
    """A setting the agent lets the client switch: its mode, its model, its reasoning effort, ...

    `via` says which request switches it: `config` (`session/set_config_option`), `mode`
    (`session/set_mode`) or `model` (`session/set_model`).
    """

    id: str
    category: str
    name: str
    current: str
    options: tuple[ChoiceOption, ...]
    via: str = "config"


SILENT_NOTICE = (
    "mode {mode} never asks: breaker-tui can now only cancel a repeated call after it ran, not refuse it before"
)
"""What the person is told when the agent's mode is one that never asks (before switching, and after)."""


@dataclass(frozen=True)
class ChoicesItem:
    """The agent's switchable settings, as they now are; `silent` lists the modes in which it never asks."""

    choices: tuple[Choice, ...]
    silent: tuple[str, ...] = ()


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
    | CallItem
    | PlanItem
    | CommandsItem
    | ChoicesItem
)
