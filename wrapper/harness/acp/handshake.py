"""Opening an ACP session: `initialize`, then `session/load` (when asked and advertised) or `session/new`,
then the preset's `session/set_mode`. Kept apart from the session so its steps read in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wrapper.harness.acp.presets import Preset
from wrapper.harness.acp.rpc import AgentProcess, RpcError
from wrapper.harness.capabilities import Capabilities
from wrapper.safetext import inert

PROTOCOL_VERSION = 1
CLIENT_CAPABILITIES = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}

ACP = Capabilities(
    name="acp",
    deny_before_run=True,  # for calls the agent asks about; the others are stopped by cancelling the turn
    abort_stream=True,  # as cancel + one follow-up prompt
    cancel_turn=True,
    prompt=True,
    approvals=True,
    restart=True,
    kill=True,
    reasoning=True,
)


@dataclass
class Opened:
    """What the handshake learned."""

    session_id: str
    model: str
    resumed: bool
    agent_caps: dict[str, Any] = field(default_factory=dict)
    provider: str = ""
    could_not_load: bool = False  # a resume was asked but the agent cannot load sessions
    load_error: str = ""  # the agent can, but refused this one (it has forgotten it): a new session instead
    result: Any = None  # the session/new or session/load answer (its modes, models and config options)


def model_of(result: Any) -> str:
    """The model an ACP `session/new` answer names, if any."""
    if not isinstance(result, dict):
        return ""
    for opt in result.get("configOptions") or []:
        if isinstance(opt, dict) and opt.get("category") == "model" and isinstance(opt.get("currentValue"), str):
            return str(opt["currentValue"])
    models = result.get("models")
    if isinstance(models, dict) and isinstance(models.get("currentModelId"), str):
        return str(models["currentModelId"])
    return ""


async def open_acp_session(
    proc: AgentProcess,
    cwd: str,
    timeout: float,
    resume: str | None,
    mode: str | None,
    loading: Callable[[bool], None],
) -> Opened:
    """Run the handshake; raises RpcError or TimeoutError when the agent does not play along."""
    init = await proc.request(
        "initialize",
        {
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": CLIENT_CAPABILITIES,
            "clientInfo": {"name": "breaker-tui", "version": "0.1.0"},
        },
        timeout,
    )
    caps = (init or {}).get("agentCapabilities") or {}
    agent_info = (init or {}).get("agentInfo") or {}
    provider = ""
    if agent_info.get("name"):
        provider = inert(f"{agent_info.get('name')} {agent_info.get('version', '')}".strip(), keep_newlines=False)[:80]
    params: dict[str, Any] = {"cwd": cwd, "mcpServers": []}
    result: Any = None
    resumed, load_error = False, ""
    if resume and caps.get("loadSession"):
        loading(True)  # the agent replays the old turns as updates: they are history, not new calls
        try:
            result = await proc.request("session/load", {**params, "sessionId": resume}, timeout)
            resumed = True  # the history may go on after the answer (Gemini): it ends at our next prompt
        except RpcError as e:  # a session it no longer has (Claude Code keeps none without a turn)
            load_error = inert(str(e), keep_newlines=False)[:200] or "refused"
            loading(False)  # nothing was loaded: what follows is the new session's own
    if resumed:
        sid = str(resume)
    else:
        result = await proc.request("session/new", params, timeout)
        sid = str((result or {}).get("sessionId") or "")
    if mode:
        await proc.request("session/set_mode", {"sessionId": sid, "modeId": mode}, timeout)
    model = inert(model_of(result), keep_newlines=False)[:80]
    could_not = bool(resume) and not resumed and not load_error
    return Opened(sid, model, resumed, caps, provider, could_not_load=could_not, result=result, load_error=load_error)


def mode_for(preset: Preset | None, make_ask: bool) -> str | None:
    """The mode that makes the preset's agent ask (None to leave the agent's own)."""
    return preset.mode if preset is not None and make_ask else None
