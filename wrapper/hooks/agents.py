"""Each agent's hook protocol, the answer side: what each agent reads back from its hook.

The hook process imports this on every tool call, so it stays light (no dataclasses, no typing at run
time); the payload side, which only the server needs, is `wrapper.hooks.payloads`. The formats were
captured from the real CLIs (Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: importing typing costs the hook process milliseconds
if TYPE_CHECKING:
    from typing import Literal

    Kind = Literal["allow", "deny", "ask"]

AGENTS = ("claude", "codex", "gemini")
SHELL_TOOL = {"claude": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
BEFORE = {"claude": ("PreToolUse",), "codex": ("PreToolUse",), "gemini": ("BeforeTool",)}
AFTER = {"claude": ("PostToolUse", "PostToolUseFailure"), "codex": ("PostToolUse",), "gemini": ("AfterTool",)}
MAX_PAYLOAD = 64 << 20  # bytes of one payload; a bigger one is refused by name, never read whole


class BadPayload(ValueError):
    """A payload the agent should never send: the message says what is wrong."""


def check_agent(agent: str) -> str:
    """The agent's name, or a BadPayload naming the known ones."""
    if agent not in AGENTS:
        raise BadPayload(f"unknown agent {agent!r}: breaker-tui hooks know {', '.join(AGENTS)}")
    return agent


def answer(agent: str, kind: Kind, reason: str) -> tuple[str, int]:
    """What the hook prints on stdout, and its exit status: allow is silent; a refusal in the agent's format.

    Gemini never gets `ask` (it hangs `gemini -p` for good) and Codex cannot ask (it runs the call): for
    both an ask is a refusal whose reason says a person would have been asked.
    """
    import json  # here, not at the top: the hook process gets its answers rendered and never needs it

    check_agent(agent)
    if kind == "allow":
        return "", 0
    if kind == "ask" and agent != "claude":
        kind = "deny"
        reason = f"{reason} (breaker-tui would ask you about this call; {agent} cannot ask, so it is refused)"
    if agent == "gemini":
        shown = reason.split("\n", 1)[0][:300]  # what the person sees: the first line, naming breaker-tui once
        shown = shown if shown.startswith("breaker-tui") else "breaker-tui: " + shown
        return json.dumps({"decision": "deny", "reason": reason, "systemMessage": shown}), 0
    out = {"hookEventName": "PreToolUse", "permissionDecision": kind, "permissionDecisionReason": reason}
    return json.dumps({"hookSpecificOutput": out}), 0
