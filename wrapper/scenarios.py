"""Scripted model behaviours for the mock model: normal answers, loops, floods, failures, errors, hangs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolCallSpec:
    """One tool call the mock model makes."""

    name: str
    args: dict[str, Any]


@dataclass
class Reply:
    """One scripted model response."""

    reasoning: list[str] = field(default_factory=list)
    content: str = ""
    tool_calls: list[ToolCallSpec] = field(default_factory=list)
    status: int = 200
    error: str = ""
    hang: bool = False
    delay_ms: float = 2.0
    force_reasoning: bool = False  # stream reasoning even when the request turned thinking off


@dataclass(frozen=True)
class Turn:
    """What the mock sees of a request: its position in the conversation and what came back."""

    index: int  # number of assistant messages already in the conversation
    thinking: bool
    last_tool_texts: list[str]
    user_texts: list[str]


Script = Callable[[Turn], Reply]


def _chunks(text: str, size: int = 40) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _done(turn: Turn, summary: str) -> Reply:
    return Reply(reasoning=["Wrapping up with what I have."], content=summary)


def normal(turn: Turn) -> Reply:
    """Answers every prompt directly after a short thought."""
    return Reply(
        reasoning=_chunks("The user wants a short answer. I can reply directly without tools."),
        content=f"Hello from the mock model (reply {turn.index + 1}).",
    )


def tool_loop(turn: Turn) -> Reply:
    """Re-reads the same file with cosmetic changes (description, timeout, spacing) six times."""
    if turn.index < 6:
        i = turn.index
        return Reply(
            reasoning=_chunks(f"I should read notes.txt again to be sure (attempt {i + 1})."),
            tool_calls=[
                ToolCallSpec(
                    "bash",
                    {
                        "command": "cat" + " " * (1 + i % 2) + "notes.txt; echo ran >> calls.log",
                        "description": f"Read the notes, attempt {i + 1}",
                        "timeoutMs": 30000 + 1000 * i,
                    },
                )
            ],
        )
    blocked = any("REPEAT_TOOL_BLOCKED" in t for t in turn.last_tool_texts)
    return _done(turn, "I was stopped from re-reading notes.txt." if blocked else "Done reading notes.txt.")


def alias_ping_pong(turn: Turn) -> Reply:
    """Fetches one resource alternating two spellings of the same host, into the same file."""
    if turn.index < 6:
        host = "open-data.canada.ca" if turn.index % 2 == 0 else "open.canada.ca"
        cmd = f"curl -s --max-time {turn.index + 1} https://{host}/data/x.csv -o data.csv || true"
        return Reply(
            reasoning=_chunks("The dataset must be on the other mirror, let me fetch it again."),
            tool_calls=[ToolCallSpec("bash", {"command": cmd, "description": f"Fetch dataset try {turn.index}"})],
        )
    return _done(turn, "The dataset could not be fetched.")


def dev_server_loop(turn: Turn) -> Reply:
    """Polls a local development server's health endpoint over and over."""
    if turn.index < 7:
        cmd = f"curl -s -w 'code-{turn.index}' -o /dev/null http://127.0.0.1:18999/health || true"
        return Reply(
            reasoning=_chunks("The dev server may be up now; poll its health endpoint."),
            tool_calls=[ToolCallSpec("bash", {"command": cmd, "description": f"Poll health {turn.index}"})],
        )
    return _done(turn, "Stopped polling the dev server.")


LOOP_SENTENCE = (
    "I need to verify the adapter accepts this reasoning effort value. Checking attempt {i} of 40, "
    "still no new conclusion, so I will check the same field once more.\n"
)


def reasoning_loop(turn: Turn) -> Reply:
    """Reasoning that repeats itself; with thinking off it answers directly."""
    if not turn.thinking:
        return Reply(content="Answering directly: the adapter accepts the value.")
    return Reply(reasoning=[LOOP_SENTENCE.format(i=i) for i in range(40)], content="(never reached)")


def reasoning_loop_twice(turn: Turn) -> Reply:
    """Reasoning that keeps looping even when the step is retried with thinking off."""
    return Reply(
        reasoning=[LOOP_SENTENCE.format(i=i) for i in range(40)], content="(never reached)", force_reasoning=True
    )


def star_flood(turn: Turn) -> Reply:
    """Reasoning that decays into `*** *** ***`; with thinking off it answers."""
    if not turn.thinking:
        return Reply(content="Answering without the star storm.")
    return Reply(reasoning=["Let me think. "] + ["*** " * 10] * 30, content="(never reached)")


def failing_tool(turn: Turn) -> Reply:
    """Retries a failing command with only its numbers changed."""
    if turn.index < 5:
        n = turn.index + 1
        return Reply(
            reasoning=_chunks("The script failed; try it once more."),
            tool_calls=[
                ToolCallSpec("bash", {"command": f"python3 -c 'print({n}/0)'", "description": f"Run the script {n}"})
            ],
        )
    return _done(turn, "The script keeps failing; stopping.")


def read_loop(turn: Turn) -> Reply:
    """Re-reads the same file with a read-only tool (agents run these without asking)."""
    if turn.index < 8 and not any("[breaker-tui]" in u for u in turn.user_texts[-1:]):
        return Reply(
            reasoning=_chunks(f"Let me look at notes.txt once more (look {turn.index + 1})."),
            tool_calls=[ToolCallSpec("read", {"path": "notes.txt"})],
        )
    return _done(turn, "I stopped re-reading notes.txt: the release is on Friday.")


def http_500(turn: Turn) -> Reply:
    """The provider fails."""
    return Reply(status=500, error="mock boom")


def hang(turn: Turn) -> Reply:
    """Starts thinking, then never finishes the first response; later prompts get normal answers."""
    if turn.index == 0:  # the mock hangs once per server (`MockModel.once`): ACP agents keep cancelled prompts
        return Reply(reasoning=_chunks("Let me think about this very carefully before answering."), hang=True)
    return normal(turn)


SCENARIOS: dict[str, tuple[Script, str, str]] = {
    # name: (script, default prompt, one-line description)
    "normal": (normal, "Say hello.", "a plain answer, no loop"),
    "tool-loop": (tool_loop, "Read notes.txt.", "the same call re-run with cosmetic changes (denied at the 5th)"),
    "alias-ping-pong": (alias_ping_pong, "Fetch the dataset.", "one URL under two host spellings (caught on net:)"),
    "dev-server-loop": (dev_server_loop, "Wait for the dev server.", "a local-only repeat (the operator is asked)"),
    "reasoning-loop": (reasoning_loop, "Check the adapter.", "reasoning that repeats (abort, retry thinking off)"),
    "reasoning-loop-twice": (reasoning_loop_twice, "Check the adapter.", "loops even after the retry (terminal)"),
    "star-flood": (star_flood, "Summarise the plan.", "reasoning decays into *** floods (degeneracy lens)"),
    "failing-tool": (failing_tool, "Run the script.", "a failing call retried (steered, then denied)"),
    "read-loop": (read_loop, "Read notes.txt.", "the same read-only call again and again (never asks)"),
    "http-500": (http_500, "Say hello.", "the model provider returns HTTP 500"),
    "hang": (hang, "Think hard.", "the model stalls mid-stream (cancel it)"),
}
