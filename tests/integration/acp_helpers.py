"""Real ACP agents (installed by `breaker-tui setup-agent`) against the mock model, one private world each."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine import events as ev
from tests.conftest import wait_until
from wrapper.harness.acp.presets import PRESETS, installed
from wrapper.harness.acp.rpc import group_alive
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.acp.world import make_acp_world
from wrapper.harness.registry import open_session
from wrapper.items import Answer, EngineItem, Item, Question, StatusItem, TripItem, VerdictItem
from wrapper.mock.world import World
from wrapper.records.recorder import Recorder
from wrapper.settings import Settings

AGENTS = ("opencode", "claude")


def need(agent: str) -> None:
    """Skip (with the fix) when the agent is not installed; CI installs both with `setup-agent`."""
    if not installed(PRESETS[agent]):
        pytest.skip(f"{agent} is not installed: run `breaker-tui setup-agent {agent}`")


@dataclass
class AcpRun:
    """A live ACP session and everything it produced."""

    session: AcpSession
    world: World
    recording: Path
    items: list[Item] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    def verdicts(self) -> list[VerdictItem]:
        return [i for i in self.items if isinstance(i, VerdictItem)]

    def events(self, kind: type) -> list[Any]:
        return [i.event for i in self.items if isinstance(i, EngineItem) and isinstance(i.event, kind)]

    def trips(self) -> list[TripItem]:
        return [i for i in self.items if isinstance(i, TripItem)]

    def status(self, kind: str) -> list[StatusItem]:
        return [i for i in self.items if isinstance(i, StatusItem) and i.kind == kind]

    def answer_text(self) -> str:
        return "".join(e.text for e in self.events(ev.AnswerDelta))

    def followups(self) -> list[str]:
        return [e.text for e in self.events(ev.UserMessage) if e.source == "plugin"]

    async def until(self, pred: Callable[[], bool], timeout: float = 60, what: str = "condition") -> None:
        await wait_until(pred, timeout, what)

    async def turn(self, prompt: str, timeout: float = 120) -> None:
        before = self.session.turns_done
        assert await self.session.prompt(prompt), f"the prompt was not accepted: {self.items[-5:]}"
        assert await self.session.wait_turn_end(before, timeout), f"turn for {prompt!r} did not end in {timeout}s"

    async def cancel_hanging_turn(self) -> None:
        """Start a turn whose reasoning never ends, cancel it once it streams, and see the turn end.

        The mock model never finishes that stream, so a turn that ends at all was ended by the cancel:
        the proof needs no clock.
        """
        s = self.session
        before = s.turns_done
        assert await s.prompt("Think hard.")
        await self.until(lambda: bool(self.events(ev.ReasoningDelta)), 60, "the hanging stream to start")
        assert await s.cancel()
        assert await s.wait_turn_end(before, 60), "cancel did not end the turn"


@contextlib.asynccontextmanager
async def acp_run(
    agent: str,
    scenario: str,
    root: Path,
    answers: list[Answer] | None = None,
    settings: Settings | None = None,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
    before: Callable[[World], None] | None = None,
) -> AsyncIterator[AcpRun]:
    """Start `agent` on `scenario`; the approver answers from `answers`, then allows once.

    `command` runs another copy (the person's, by path or name), `env` changes the agent's environment
    (their PATH), `before` writes their own settings into the world's home before the agent starts.
    """
    if command is None:
        need(agent)
    world = make_acp_world(agent, scenario, root)
    world.env.update(env or {})
    if before is not None:
        before(world)
    queue = list(answers or [])
    run: AcpRun

    async def approver(q: Question) -> Answer:
        run.questions.append(q)
        return queue.pop(0) if queue else "allow-once"

    rec_path = root / "recording.jsonl"
    rec = Recorder(
        rec_path,
        {"harness": "acp", "agent": agent, "config": (settings or Settings()).engine.model_dump(mode="json")},
    )
    s = open_session(
        command or [agent], settings or Settings(), approver, cwd=str(world.workspace), env=world.env, recorder=rec
    )
    assert isinstance(s, AcpSession)
    run = AcpRun(s, world, rec_path)

    async def pump() -> None:
        async for item in s:
            run.items.append(item)

    task = asyncio.create_task(pump())
    try:
        await s.start()
        assert await s.wait_ready(120), f"{agent} never opened an ACP session: {run.items[-5:]}"
        yield run
    finally:
        await s.close()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(task, 10)
        world.close()


def group_gone(pgid: int) -> bool:
    """Whether no live process of the group is left (zombies waiting for their reaper do not count)."""
    return not group_alive(pgid)
