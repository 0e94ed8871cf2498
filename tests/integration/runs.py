"""One way for an integration test to run the monitor: a harness session started, its items collected.

dsh and every ACP agent sit behind the same harness seam (`wrapper.harness.base.HarnessSession`), and the
registry picks the harness from the command line through the declarations (`open_session`), as the CLI
does. A test names the command, the world (the mock model and its workspace) and how the person answers;
`open_run` opens the session there, and `start` (or `running`) starts it and fills its `Run` with
everything the session emits and every question it asks. A test that needs a session class of its own
(a fault put into the dsh session) or a command no declaration names (the scripted stub agents) builds
the session itself and hands it to `started`, which does the rest the same way.

Before this module the dsh fixture, the ACP helper, the hostile-agent helper, the fail-closed table and the
session tests each kept a copy of the same start, pump, wait-ready and close steps, differing only in
their timeouts. A fault under which the session must never become ready starts it with `ready_s=None`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from engine import events as ev
from tests.conftest import wait_until
from wrapper.harness.base import Approver, HarnessSession, Policy
from wrapper.harness.registry import open_session
from wrapper.items import (
    Answer,
    ApprovalItem,
    EngineItem,
    Item,
    Question,
    StatusItem,
    TripItem,
    VerdictItem,
)
from wrapper.mock.world import World
from wrapper.records.recorder import Recorder
from wrapper.settings import Settings

S = TypeVar("S", bound=HarnessSession)
R = TypeVar("R", bound="Run[Any]")

# How long a session may take to take prompts, and a turn to end, before the test fails. Generous: an ACP
# agent is a Node process that loads its bundle first, and CI runs these two at a time on a loaded machine.
READY_S = 120.0
TURN_S = 180.0


@dataclass
class Run(Generic[S]):
    """A started session, the world it runs in (when it has one), and everything it emitted so far."""

    session: S
    in_world: World | None = None  # none for a scripted stub agent, which needs no mock model
    recorded_to: Path | None = None
    items: list[Item] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    task: asyncio.Task[None] | None = None

    @property
    def world(self) -> World:
        """The mock model and workspace the session runs in."""
        assert self.in_world is not None, "this run has no mock world"
        return self.in_world

    @property
    def recording(self) -> Path:
        """Where the session records."""
        assert self.recorded_to is not None, "this run records nowhere"
        return self.recorded_to

    @property
    def workspace(self) -> Path:
        """Where the agent works: the world's workspace, else the session's own folder."""
        if self.in_world is not None:
            return self.in_world.workspace
        return Path(getattr(self.session, "cwd", None) or ".")

    def of(self, kind: type) -> list[Any]:
        """The items of one type, in order."""
        return [i for i in self.items if isinstance(i, kind)]

    def verdicts(self) -> list[VerdictItem]:
        return self.of(VerdictItem)

    def trips(self) -> list[TripItem]:
        return self.of(TripItem)

    def answers(self) -> list[ApprovalItem]:
        """The approvals that were answered (by the person or a policy)."""
        return [i for i in self.of(ApprovalItem) if i.answer is not None]

    def status(self, kind: str) -> list[StatusItem]:
        return [i for i in self.of(StatusItem) if i.kind == kind]

    def events(self, kind: type) -> list[Any]:
        """The engine events of one type that the session fed the monitor."""
        return [i.event for i in self.of(EngineItem) if isinstance(i.event, kind)]

    def answer_text(self) -> str:
        return "".join(e.text for e in self.events(ev.AnswerDelta))

    def followups(self) -> list[str]:
        """The messages the monitor's plugins sent the model after a refusal."""
        return [e.text for e in self.events(ev.UserMessage) if e.source == "plugin"]

    def ran(self) -> list[str]:
        """The lines the scenarios' commands append to `calls.log` each time they really run."""
        log = self.workspace / "calls.log"
        return log.read_text().splitlines() if log.exists() else []

    async def until(self, pred: Callable[[], bool], timeout: float = 60, what: str = "condition") -> None:
        """Wait for a condition on what arrived so far (every wait has a timeout)."""
        await wait_until(pred, timeout, what)

    async def turn(self, prompt: str, timeout: float = TURN_S) -> None:
        """Send `prompt` and wait until its turn ends."""
        before = self.session.turns_done
        assert await self.session.prompt(prompt), f"the prompt was not accepted: {self.items[-5:]}"
        ended = await self.session.wait_turn_end(before, timeout)
        assert ended, f"turn for {prompt!r} did not end in {timeout}s: {self.items[-8:]}"

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

    async def close(self) -> None:
        """Close the session and wait (bounded) for its items to end."""
        await self.session.close()
        if self.task is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self.task, 10)


def asking(questions: list[Question], answer: Approver) -> Approver:
    """`answer`, with every question it is asked noted in `questions`.

    A `Policy` stays a policy, so the session records its answers as the policy's, not a person's.
    """
    if isinstance(answer, Policy):

        class Noting(Policy):
            async def __call__(self, q: Question) -> Answer:
                questions.append(q)
                return await answer(q)

        return Noting(answer.answer)

    async def person(q: Question) -> Answer:
        questions.append(q)
        return await answer(q)

    return person


def scripted(answers: list[Answer] | None, then: Answer) -> Approver:
    """A person who answers from `answers` in order, then `then` to every later question."""
    queue = list(answers or [])

    async def person(_: Question) -> Answer:
        return queue.pop(0) if queue else then

    return person


def collect(run: Run[Any]) -> None:
    """Collect the run's items in the background from now on (its session not started yet)."""
    session = run.session

    async def pump() -> None:
        async for i in session:
            run.items.append(i)

    run.task = asyncio.create_task(pump())


async def start(run: R, ready_s: float | None = READY_S) -> R:
    """Start the run's session, collect its items in the background, and wait (bounded) until it takes prompts.

    `ready_s=None` does not wait: for a fault under which the session must never become ready.
    """
    collect(run)
    try:
        await run.session.start()
        if ready_s is not None:
            ready = await run.session.wait_ready(ready_s)
            assert ready, f"the session never became ready: {run.items[-5:]}"
    except BaseException:
        await run.close()  # a session that never got ready leaves no process behind
        raise
    return run


async def started(session: S, ready_s: float = READY_S) -> Run[S]:
    """`session` started in a new `Run` (see `start`)."""
    return await start(Run(session), ready_s)


@contextlib.asynccontextmanager
async def running(run: R, ready_s: float = READY_S) -> AsyncIterator[R]:
    """`start`, and the session closed again when the block ends however it ends."""
    await start(run, ready_s)
    try:
        yield run
    finally:
        await run.close()


def open_run(
    argv: list[str],
    world: World,
    settings: Settings,
    approver: Approver,
    recording: Path | None = None,
    meta: dict[str, Any] | None = None,
    make: Callable[..., HarnessSession] | None = None,
) -> Run[Any]:
    """The session for `argv` in `world`, as the CLI would open it (not started yet: see `started`).

    The harness comes from the declarations (`open_session`); `make` builds a session class of the test's
    own instead (same arguments as the dsh session). The questions the approver is asked land in the run.
    """
    questions: list[Question] = []
    rec = Recorder(recording, meta or {}) if recording is not None else None
    noting = asking(questions, approver)
    env, cwd = world.env, str(world.workspace)
    if make is not None:
        session = make(argv, settings, noting, cwd=cwd, env=env, recorder=rec)
    else:
        session = open_session(argv, settings, noting, cwd=cwd, env=env, recorder=rec)
    return Run(session, world, recording, questions=questions)
