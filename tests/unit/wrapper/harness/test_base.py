"""`first_set`: the one wait for whichever of a session's events comes first (ready, a turn's end, exited)."""

from __future__ import annotations

import asyncio

from wrapper.harness.base import first_set


async def test_it_returns_when_any_one_event_is_set_and_cancels_its_other_waiters() -> None:
    ready, exited = asyncio.Event(), asyncio.Event()
    before = asyncio.all_tasks()
    asyncio.get_running_loop().call_soon(exited.set)
    await first_set(ready, exited, timeout=None)
    assert exited.is_set() and not ready.is_set()
    left = [t for t in asyncio.all_tasks() - before if not (t.done() or t.cancelling())]
    assert left == [], "the waiter on the event that was not set is cancelled, not left pending"


async def test_it_returns_at_the_timeout_with_nothing_set() -> None:
    ready, exited = asyncio.Event(), asyncio.Event()
    await first_set(ready, exited, timeout=0)
    assert not ready.is_set() and not exited.is_set()
