"""Typed messages of the bridge channel, both directions (JSON lines with a `t` tag)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class _In(BaseModel):
    model_config = ConfigDict(extra="allow")
    ts: float | None = None


class Hello(_In):
    """First line of every connection: proves the bridge was launched by us."""

    t: Literal["hello"]
    token: str
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
    | Bye,
    Field(discriminator="t"),
]
_INBOUND: TypeAdapter[Inbound] = TypeAdapter(Inbound)


class BadMessage(ValueError):
    """A line from the bridge that is not a message we know."""


def parse_inbound(obj: Any) -> Inbound:
    """Validate one decoded line; raise BadMessage with a short reason."""
    if not isinstance(obj, dict) or "t" not in obj:
        raise BadMessage("not an object with a `t` tag")
    try:
        return _INBOUND.validate_python(obj)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BadMessage(f"{obj.get('t')!s:.40}: {where} {first['msg']}") from None


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
