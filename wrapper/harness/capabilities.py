"""What a harness can do for the monitor, so the UI shows only actions that work."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Capabilities:
    """One flag per control the monitor may need; `False` means the UI must not offer it."""

    name: str = "dsh"
    deny_before_run: bool = True  # a tool call waits for the monitor's verdict before it runs
    abort_stream: bool = True  # a looping reasoning stream can be aborted and the step retried, thinking off
    cancel_turn: bool = True  # the current turn can be cancelled and the agent keeps running
    prompt: bool = True  # the person can send messages
    approvals: bool = True  # the agent's own approval requests reach the monitor
    restart: bool = True  # the child can be restarted on the same session
    kill: bool = True  # the child can be stopped
    reasoning: bool = True  # reasoning text streams (the lenses can watch it)
    input: bool = False  # what the person types goes to the child's own input, a line at a time (a plain command)
    agent: bool = True  # an agent: sessions, turns, steps and tokens, which the status line shows


DSH = Capabilities()
PLAIN = Capabilities(
    name="command",
    deny_before_run=False,
    abort_stream=False,
    cancel_turn=False,
    prompt=False,
    approvals=False,
    restart=True,
    kill=True,
    reasoning=False,
    input=True,
    agent=False,
)
REPLAY = Capabilities(
    name="replay",
    deny_before_run=False,
    abort_stream=False,
    cancel_turn=False,
    prompt=False,
    approvals=False,
    restart=False,
    kill=False,
    reasoning=True,
)
