"""Typed messages of the bridge channel, both directions (JSON lines with a `t` tag)."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class _In(BaseModel):
    model_config = ConfigDict(extra="allow")
    ts: float | None = None


class Hello(_In):
    """First line of every connection: proves the bridge was launched by us."""

    t: Literal["hello"]
    token: str = ""  # no longer used: the channel is inherited, not found
    pid: int | None = None
    version: str = ""
    runner: bool = False
    cwd: str | None = None


class EventMsg(_In):
    """One dsh `session/event`, as committed."""

    t: Literal["event"]
    sessionId: str | None = None
    event: dict[str, Any]


class Ready(_In):
    """Runner mode: the persistent agent exists and takes prompts."""

    t: Literal["ready"]
    sessionId: str | None = None
    provider: str | None = None
    model: str | None = None
    resumed: bool = False


class StatusMsg(_In):
    """An agent went idle or started running."""

    t: Literal["status"]
    sessionId: str | None = None
    status: str | None = None


class AgentCreated(_In):
    """A (sub)agent appeared."""

    t: Literal["agent_created"]
    sessionId: str | None = None
    depth: int = 0


class AgentError(_In):
    """A step or turn failed inside dsh."""

    t: Literal["agent_error"]
    sessionId: str | None = None
    message: str = ""


class RunnerError(_In):
    """The bridge's runner could not create or drive its agent."""

    t: Literal["runner_error"]
    message: str = ""


class RequestStart(_In):
    """A model stream begins (`llm/stream`)."""

    t: Literal["request_start"]
    sessionId: str
    purpose: str | None = None
    turn: int = -1
    step: int = -1
    reasoningEffort: str | None = None
    model: str | None = None


class RequestErrorMsg(_In):
    """`agent/request-error` fired; `ours` when it is the abort we asked for."""

    t: Literal["request_error"]
    sessionId: str | None = None
    message: str = ""
    code: str = ""
    ours: bool = False


class StreamAborted(_In):
    """The bridge ended a model stream on our command."""

    t: Literal["stream_aborted"]
    sessionId: str | None = None


class VerdictRequest(_In):
    """`tools/pre-execute`: may this call run?"""

    t: Literal["verdict_request"]
    id: str
    sessionId: str | None = None
    callId: str | None = None
    name: str = ""
    args: Any = None
    parent: bool = False


class ApprovalRequest(_In):
    """`approval/request`: dsh needs a person's decision."""

    t: Literal["approval_request"]
    id: str
    sessionId: str | None = None
    toolName: str = ""
    callId: str | None = None
    reason: str | None = None


class ResultRequest(_In):
    """`tools/post-execute`: a call finished; keep, replace or prefix its result."""

    t: Literal["result_request"]
    id: str
    sessionId: str | None = None
    callId: str | None = None
    name: str = ""
    args: Any = None
    isError: bool = False
    text: str = ""
    code: str | None = None
    parent: bool = False


class Bye(_In):
    """The plugin is being disposed."""

    t: Literal["bye"]


class Closed(_In):
    """The bridge stopped waiting for an answer (`reason`: timeout, ...) and gave the agent its fallback."""

    t: Literal["closed"]
    id: str
    what: str = ""
    reason: str = ""


class Tripwire(_In):
    """The bridge saw something that could switch the breaker off: `unvetted` (its guard denied a call
    another listener answered), `listener` (a plugin registered on a tool hook after boot, vetoed),
    `patch-watch` (dsh asked to watch a user patch layer; refused, so the layers stay as booted).
    """

    t: Literal["tripwire"]
    kind: str = ""
    callId: str | None = None
    name: str = ""
    sessionId: str | None = None
    detail: str = ""


class Pong(_In):
    """The bridge's answer to a liveness `ping`: it still reads the channel and answers."""

    t: Literal["pong"]
    id: str = ""


Inbound = Annotated[
    Hello
    | EventMsg
    | Ready
    | StatusMsg
    | AgentCreated
    | AgentError
    | RunnerError
    | RequestStart
    | RequestErrorMsg
    | StreamAborted
    | VerdictRequest
    | ApprovalRequest
    | ResultRequest
    | Bye
    | Closed
    | Tripwire
    | Pong,
    Field(discriminator="t"),
]
_INBOUND: TypeAdapter[Inbound] = TypeAdapter(Inbound)


class BadMessage(ValueError):
    """A line from the bridge that is not a message we know.

    `t` and `id` are recovered when possible, so a question the line carried (a verdict request)
    can still be answered fail-closed; `oversized` is the size the bridge reported for an event it
    could not send whole.
    """

    def __init__(self, reason: str, t: str | None = None, id: str | None = None, oversized: int | None = None) -> None:
        super().__init__(reason)
        self.t = t
        self.id = id
        self.oversized = oversized


def parse_inbound(obj: Any) -> Inbound:
    """Validate one decoded line; raise BadMessage with a short reason."""
    if not isinstance(obj, dict) or "t" not in obj:
        raise BadMessage("not an object with a `t` tag")
    t = obj.get("t") if isinstance(obj.get("t"), str) else None
    mid = obj.get("id") if isinstance(obj.get("id"), str) else None
    size = obj.get("oversized")
    if isinstance(size, int) and not isinstance(size, bool):
        raise BadMessage(f"{t!s:.40} too large to send ({size} bytes)", t, mid, size)
    try:
        return _INBOUND.validate_python(obj)
    except ValidationError as e:
        first = e.errors(include_input=False)[0]
        if first["type"] == "union_tag_invalid":  # pydantic's message would quote the whole tag
            raise BadMessage(f"unknown message type {t!s:.40}", t, mid) from None
        where = ".".join(str(p) for p in first["loc"])
        raise BadMessage(f"{t!s:.40}: {where:.80} {first['msg']:.160}", t, mid) from None
    except (RecursionError, MemoryError, TypeError, ValueError) as e:
        raise BadMessage(f"{t!s:.40}: cannot be validated ({type(e).__name__})", t, mid) from None


_HEAD = re.compile(r'"t"\s*:\s*"([a-z_]{1,40})"\s*,\s*"id"\s*:\s*"([^"\\]{1,200})"')


def decode_line(line: str) -> tuple[Inbound, dict[str, Any]]:
    """One JSON line from the bridge: the message and its raw object, or BadMessage (never anything else).

    A line too deep, too odd or too broken to decode still names its `t` and `id` when they lead
    the line, as the bridge writes them, so a verdict request in it can be denied at once.
    """
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError, MemoryError) as e:
        head = _HEAD.search(line[:400])
        what = "nested too deeply" if isinstance(e, RecursionError) else "not JSON"
        t, mid = (head.group(1), head.group(2)) if head else (None, None)
        raise BadMessage(f"{what} ({len(line)} chars)", t, mid) from None
    if not isinstance(obj, dict):
        raise BadMessage(f"not an object ({type(obj).__name__})")
    return parse_inbound(obj), obj


class Out(BaseModel):
    """A command or answer to the bridge."""

    model_config = ConfigDict(extra="forbid")


class Verdict(Out):
    """Answer to a verdict request."""

    t: Literal["verdict"] = "verdict"
    id: str
    kind: Literal["allow", "deny", "ask"]
    message: str = ""


class ApprovalResponse(Out):
    """Answer to an approval request."""

    t: Literal["approval_response"] = "approval_response"
    id: str
    outcome: Literal["allowed-once", "rejected", "cancelled", "unavailable"]
    deny: str | None = None


class ResultResponse(Out):
    """Answer to a result request."""

    t: Literal["result_response"] = "result_response"
    id: str
    mode: Literal["keep", "replace", "prepend"] = "keep"
    text: str | None = None


class Abort(Out):
    """End the session's current model stream (`aborted`), arming one retry with thinking off when told."""

    t: Literal["abort"] = "abort"
    sessionId: str
    retry: bool
    thinkingOff: bool
    message: str


class Cancel(Out):
    """Cancel the current turn of one agent (or the runner's agent)."""

    t: Literal["cancel"] = "cancel"
    sessionId: str | None = None


class Prompt(Out):
    """Runner mode: a human message for the persistent agent."""

    t: Literal["prompt"] = "prompt"
    text: str


class Quit(Out):
    """Ask dsh to exit."""

    t: Literal["quit"] = "quit"
    code: int = 0


class Ping(Out):
    """A liveness check: the bridge answers `pong` with the same id (a bridge that stops is not monitoring)."""

    t: Literal["ping"] = "ping"
    id: str
