"""`--no-tui`: the whole loop without a screen. Decisions to stderr, approvals by policy, exact exit codes."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, TextIO

from engine import events as ev
from wrapper import signals
from wrapper.items import (
    ApprovalItem,
    EngineItem,
    Item,
    OutputItem,
    Question,
    ResultItem,
    StatusItem,
    TripItem,
    VerdictItem,
)
from wrapper.replay import finding
from wrapper.session import allow_all, deny_all
from wrapper.settings import Settings

EXIT_USAGE = 2
EXIT_CANNOT_START = 3
EXIT_INTERNAL = 70


def human(item: Item) -> str | None:
    """One stderr line for a decision worth a person's attention (None for routine items)."""
    if (isinstance(item, VerdictItem) and item.verdict.kind != "allow") or (
        isinstance(item, VerdictItem) and item.verdict.would
    ):
        v = item.verdict
        hits = ", ".join(f"{h.fp} {h.next}/{int(h.cap) if h.cap.is_integer() else h.cap}" for h in v.hits)
        what = v.would.upper() + " (observed only)" if v.would else v.kind.upper()
        return f"breaker: {what} {item.tool} {item.call_id} [{v.source}] {hits}".rstrip()
    if isinstance(item, TripItem):
        t = item.trip
        return f"breaker: TRIP {t.stream} {t.rule} ({t.evidence()}) -> {item.sent}"
    if isinstance(item, ResultItem) and item.rewrite is not None:
        rw = item.rewrite
        if rw.reason == "steer":
            return (
                f"breaker: STEER {item.tool} {item.call_id}: failed {rw.failures} times, result replaced with guidance"
            )
        return f"breaker: HINT prepended to the result of {item.tool} {item.call_id}"
    if isinstance(item, ApprovalItem) and item.answer is not None:
        return f"breaker: APPROVAL {item.question.tool} {item.question.call_id}: {item.answer} ({item.by})"
    if isinstance(item, StatusItem) and item.kind in ("warning", "error", "exited", "ready", "bridge"):
        return f"breaker: {item.kind}: {item.text}"
    return None


def as_json(item: Item) -> dict[str, Any] | None:
    """One JSON object per decision or status change."""
    f = finding(item)
    if f is not None:
        return f
    if isinstance(item, ResultItem) and item.rewrite is not None:
        return {"kind": item.rewrite.reason, "agent": item.agent, "callId": item.call_id, "tool": item.tool}
    if isinstance(item, StatusItem) and item.kind not in ("agent-status",):
        return {"kind": "status", "status": item.kind, "text": item.text, **item.data}
    return None


async def run(
    argv: list[str],
    settings: Settings,
    prompts: list[str],
    as_json_lines: bool = False,
    err: TextIO = sys.stderr,
    out: TextIO = sys.stdout,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    acp: bool = False,
) -> int:
    """Run the command under the monitor; return the exit status to use."""
    approver = allow_all if settings.wrapper.headless_approvals == "allow" else deny_all

    async def policy(q: Question) -> Any:
        return await approver(q)

    from wrapper.harness.registry import open_session

    try:
        session = open_session(argv, settings, policy, env=env, cwd=cwd, acp=acp)
    except FileNotFoundError as e:
        err.write(f"breaker-tui: {e}\n")
        return EXIT_CANNOT_START

    # an ACP agent's answer arrives as message chunks and its own stdout is the protocol: the answer
    # goes to stdout, the agent's stderr to stderr
    acp = session.capabilities.name == "acp"

    def show(item: Item) -> None:
        if acp and isinstance(item, EngineItem) and isinstance(item.event, ev.AnswerDelta):
            out.write(item.event.text)
            out.flush()
            return
        if isinstance(item, OutputItem):
            (err if acp else out).write(item.text)
            (err if acp else out).flush()
            return
        line = None
        if as_json_lines:
            obj = as_json(item)
            line = json.dumps(obj, default=str) if obj is not None else None
        else:
            line = human(item)
        if line:
            err.write(line + "\n")
            err.flush()

    # SIGINT, SIGTERM and SIGHUP stop the child's group and clean up alike (wrapper.signals)
    uninstall = signals.install(session)
    try:
        await session.start()
    except FileNotFoundError as e:
        err.write(f"breaker-tui: {e}\n")
        return EXIT_CANNOT_START
    except OSError as e:
        err.write(f"breaker-tui: could not start {argv[0]}: {e}\n")
        return EXIT_CANNOT_START

    async def pump() -> None:
        async for item in session:
            show(item)

    pump_task = asyncio.create_task(pump())
    try:
        if prompts and session.info.runner:
            for text in prompts:
                before = session.turns_done
                if not await session.prompt(text):
                    break
                await session.wait_turn_end(before)
            await session.quit(0)
        info = await session.wait_exit()
    finally:
        await session.close()
        await asyncio.wait_for(pump_task, 10)
        uninstall()
    if session.recorder is not None and not as_json_lines:
        err.write(f"breaker: recording: {session.recorder.path}\n")
    if info is None:
        return EXIT_INTERNAL
    return info.code
