"""Asks waiting for a person: the server holds them until `breaker-tui watch` answers or a bound passes.

The engine asks (rather than refuses) when a repeat only local addresses make, or a local service that keeps
failing, may be the person's to decide. An agent's hook cannot show a question (Gemini hangs on `ask`, Codex
runs the call), so the server keeps the call waiting and offers it to every `watch` connected to its
owner-only socket; the first answer wins. No answer within the bound (`[hooks] ask_wait_s`) and the call is
refused with a reason saying so (Claude gets its own permission prompt instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from wrapper.settings import ASK_WAIT_S  # below the hook's 20 s wait for the server, itself below the agents' 30 s

Answer = Literal["allow-once", "allow-turn", "deny"]
ANSWERS: tuple[Answer, ...] = ("allow-once", "allow-turn", "deny")


@dataclass
class Ask:
    """One call waiting for a person's answer."""

    agent: str
    session: str
    call_id: str
    tool: str
    args: Any
    reason: str
    rule: str
    cwd: str = ""
    id: str = ""
    since: float = field(default_factory=time.time)
    deadline: float = 0.0  # wall-clock time the call is refused at when no one answers
    answer: asyncio.Future[Answer | None] | None = None  # None: no watch is left to answer it

    def shown(self) -> dict[str, Any]:
        """What a watch shows: the call, why it is asked, whose session, and until when."""
        return {
            "id": self.id,
            "agent": self.agent,
            "session": self.session,
            "cwd": self.cwd,
            "tool": self.tool,
            "args": self.args,
            "reason": self.reason,
            "rule": self.rule,
            "since": self.since,
            "deadline": self.deadline,
        }


class Asks:
    """The pending asks and the watches connected to answer them."""

    def __init__(self, wait_s: float = ASK_WAIT_S) -> None:
        self.wait_s = wait_s
        self.pending: dict[str, Ask] = {}
        self.watches = 0
        self.version = 0  # counts the changes of `pending`
        self._ids = itertools.count(1)
        self._changed = asyncio.Event()

    @property
    def watched(self) -> bool:
        """Whether a person can answer now (a watch is connected)."""
        return self.watches > 0

    async def hold(self, ask: Ask) -> Answer | None:
        """Offer `ask` to the watches and wait for the first answer; None when none came within `wait_s`, or
        when the last watch went away first (`watched` then says so).
        """
        ask.id = f"a{next(self._ids)}"
        ask.deadline = time.time() + self.wait_s
        ask.answer = asyncio.get_running_loop().create_future()
        self.pending[ask.id] = ask
        self._change()
        try:
            return await asyncio.wait_for(asyncio.shield(ask.answer), self.wait_s)
        except TimeoutError:
            return None
        finally:
            self.pending.pop(ask.id, None)
            self._change()

    def answer(self, ask_id: str, answer: str) -> bool:
        """A watch's answer to a pending ask; False when it is no longer pending (answered, or timed out)."""
        a = self.pending.get(ask_id)
        if a is None or a.answer is None or a.answer.done() or answer not in ANSWERS:
            return False
        a.answer.set_result(answer)
        return True

    def withdraw(self, ask_id: str) -> None:
        """Nobody waits for this ask's answer any more (its hook went away): it ends now, unanswered."""
        a = self.pending.get(ask_id)
        if a is not None and a.answer is not None and not a.answer.done():
            a.answer.set_result(None)

    def shown(self) -> list[dict[str, Any]]:
        """Every pending ask, oldest first."""
        return [a.shown() for a in self.pending.values()]

    async def changed(self, since: int) -> None:
        """Returns once the pending asks differ from what they were at `version` `since`."""
        while self.version == since:
            await self._changed.wait()

    def _change(self) -> None:
        # every waiter wakes on the set; the fresh event makes the next wait wait again
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    @contextlib.contextmanager
    def watching(self) -> Any:
        """Counts one connected watch for the block's length; when the last one goes, nobody is left to answer
        the pending asks, so they are settled at once rather than at their bound.
        """
        self.watches += 1
        try:
            yield
        finally:
            self.watches -= 1
            for a in self.pending.values() if not self.watches else ():
                if a.answer is not None and not a.answer.done():
                    a.answer.set_result(None)
