"""A harness session started for a test, its items collected as they come: one way for every test to do it.

Each session test started the session, ran a task draining its items into a list, waited for it to be
ready, and at the end closed it and waited for the task; the copies differed only in their timeouts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from wrapper.harness.base import HarnessSession
from wrapper.items import Item

S = TypeVar("S", bound=HarnessSession)


@dataclass
class Pumped(Generic[S]):
    """A started session and everything it has emitted so far."""

    session: S
    items: list[Item] = field(default_factory=list)
    task: asyncio.Task[None] | None = None

    async def close(self) -> None:
        """Close the session and wait for its items to end."""
        await self.session.close()
        if self.task is not None:
            await asyncio.wait_for(self.task, 10)


async def started(session: S, ready_s: float) -> Pumped[S]:
    """Start `session`, collect its items in the background, and wait (bounded) until it takes prompts."""
    p = Pumped(session)

    async def pump() -> None:
        async for i in session:
            p.items.append(i)

    p.task = asyncio.create_task(pump())
    try:
        await session.start()
        assert await session.wait_ready(ready_s), f"the session never became ready: {p.items[-5:]}"
    except BaseException:
        await p.close()  # a session that never got ready leaves no process behind
        raise
    return p
