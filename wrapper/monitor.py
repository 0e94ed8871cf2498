"""The harness-neutral core of a monitor: the engine, the status line's facts, and the questions a person is asked.

Each harness turns its own messages into engine events and answers (`harness.dsh.monitor.BridgeMonitor`
for dsh's bridge, `harness.acp.monitor.AcpMonitor` for ACP); what they share lives here, without any I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine import events as ev
from engine.breaker import Breaker, Verdict
from engine.tools.progress import SHELL_TOOLS
from wrapper.items import Answer, Question
from wrapper.settings import Settings

if TYPE_CHECKING:
    from wrapper.process.child import ExitInfo

_EXIT_CODE = re.compile(r"\[exit code: (-?\d+)\]\s*\Z")


def shell_failed(tool: str, text: str) -> bool:
    """A shell tool reports a non-zero exit as a normal result ending `[exit code: N]` (dsh does): a failure.

    The shell tool names are the engine's, so the monitor and the engine agree on what a shell call is.
    """
    if tool not in SHELL_TOOLS:
        return False
    m = _EXIT_CODE.search(text[-200:])
    return m is not None and m.group(1) != "0"


@dataclass
class Info:
    """What the status line shows."""

    session_id: str = ""
    provider: str = ""
    model: str = ""
    turn: int = 0
    step: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    child: str = "starting"  # starting, running, exited
    bridge: str = "none"  # none, waiting, connected, lost
    unmonitored: str = ""  # why no live monitor vetted this child's calls (it was stopped): NOT MONITORED
    unguarded: str = ""  # why calls of this run (of any child) may have run unvetted: kept across restarts
    runner: bool = False
    dsh: bool = False
    exit: ExitInfo | None = None
    agents: list[str] = field(default_factory=list)
    busy: bool = False

    def lost(self, why: str, ran: bool) -> None:
        """The current child's verdict path is absent or broken (`why`; the first reason is kept).

        `ran`: whether calls may have run unvetted before the child was stopped (the path was open, or
        the child acts without being asked). That stays the run's report even after a restart.
        """
        self.unmonitored = self.unmonitored or why
        if ran:
            self.unguarded = self.unguarded or why

    def new_child(self) -> None:
        """A launch (the first, or a restart): what the status line says is this child's, from a fresh start."""
        self.unmonitored = ""

    @property
    def run_unmonitored(self) -> str:
        """Why the run as a whole ends NOT MONITORED, or "" (the end line and the exit status read this).

        The last child was stopped unvetted, or an earlier one may have run calls unvetted. A child stopped
        before its verdict path opened (a refused handshake) ran nothing: a restart that was then
        monitored to its end leaves nothing to report.
        """
        return self.unmonitored or self.unguarded


NOT_MONITORED = "NOT MONITORED"
"""How every surface (stderr, the exit line, the recording, the status line) names a session no live monitor vetted."""


def not_monitored_text(why: str) -> str:
    """The one line a person reads when the verdict path was absent or broken and the child was stopped."""
    return f"{NOT_MONITORED}: {why}. breaker-tui stopped the agent and its tools (fail closed)."


class Monitor:
    """The engine and the facts every harness keeps: agents, turn, tokens, calls asked about and denied."""

    def __init__(self, settings: Settings, info: Info | None = None) -> None:
        self.settings = settings
        self.breaker = Breaker(settings.engine)
        self.info = info or Info()
        self.denied: set[str] = set()
        self.asked: dict[str, Verdict] = {}
        self.tool_names: dict[str, str] = {}

    def agent(self, agent: str) -> None:
        """Remember an agent (tabs appear in this order)."""
        if agent and agent not in self.info.agents:
            self.info.agents.append(agent)

    def _track(self, e: ev.Event) -> None:
        info = self.info
        root = e.agent == info.session_id or not info.session_id
        if isinstance(e, ev.TurnStart) and root:
            info.turn = e.turn
            info.busy = True
        elif isinstance(e, ev.StepStart) and root:
            info.step = e.step
        elif isinstance(e, ev.Usage):
            info.input_tokens += e.input_tokens
            info.output_tokens += e.output_tokens
            info.reasoning_tokens += e.reasoning_tokens
        elif isinstance(e, ev.ToolCall):
            self.tool_names[e.call_id] = e.tool
        elif isinstance(e, ev.TurnEnd) and root:
            info.busy = False

    def question_for(self, agent: str, call_id: str, tool: str, args: Any, v: Verdict, reason: str) -> Question:
        """The operator's question for a call the breaker asks about (harnesses without dsh's approval message)."""
        return Question(
            agent=agent,
            call_id=call_id,
            tool=tool,
            args=args,
            reason=reason or v.message,
            hits=v.hits,
            local=v.local,
            from_breaker=True,
            earlier=self.breaker.earlier(agent, call_id, tuple(h.fp for h in v.hits)),
        )

    def auto_answer(self, q: Question, v: Verdict | None) -> tuple[Answer, str] | None:
        """`(answer, why)` when the engine answers an agent's own permission question without asking.

        Only one case: the breaker allowed the call because an allow-for-the-turn covers it (the same
        local fingerprints the person approved). Anything else (an escalation, another permission, a
        call with other hits) is the person's to answer, whatever was allowed before.
        """
        if v is not None and v.kind == "allow" and v.note == "approved":
            return "allow-once", "covered by an allow for the rest of the turn"
        return None
