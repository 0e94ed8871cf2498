"""The `[acp]` config section: what the monitor does with an ACP agent when a rule trips."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class AcpSettings(BaseModel):
    """How breaker-tui enforces its rules on an ACP agent (each choice can be `observe`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    deny: Literal["reject", "observe"] = "reject"
    """A call the engine denies that comes with a permission request: answer `reject_once` (or only observe)."""
    unasked: Literal["reprompt", "cancel", "observe"] = "reprompt"
    """Calls that ran without asking and trip a rule: cancel the turn and send one follow-up prompt naming
    the repeat (`reprompt`; a second trip in the turn only cancels), only cancel, or only observe."""
    reasoning: Literal["reprompt", "cancel", "observe"] = "reprompt"
    """A reasoning-lens trip: cancel the turn and send one follow-up prompt asking for an answer without
    re-deliberating (`reprompt`; a second trip in the turn only cancels), only cancel, or only observe."""
    agent_asks: Literal["person", "allow"] = "person"
    """The agent's own permission requests for calls the engine allows: ask the person (the approval modal,
    or `--approvals` without a screen), or allow them (the preset made the agent ask only so breaker-tui
    can refuse repeats)."""
    make_ask: bool = True
    """Configure known agents to ask before tool calls (opencode's `permission`, Claude's `default` mode)."""
    startup_timeout_s: float = Field(90.0, gt=0, le=3600)
    """How long `initialize` and `session/new` may take before the agent counts as broken."""
    cancel_timeout_s: float = Field(10.0, gt=0, le=600)
    """After `session/cancel`, how long the turn may take to end before the follow-up prompt is dropped."""
