"""The agent's open permission requests that wait for a person: one at a time, bounded, closed when gone.

An agent may send any number of `session/request_permission` at once (3,000 in a probe). Each one
that needs a person is queued here and put to the approver one at a time, so the screen holds one
modal, never thousands; past `QUEUE_MAX` waiting, a request is refused at once by policy (fail
closed) and the person is told how many were. When the agent exits, or the turn is cancelled, every
open question is closed (`ApprovalClosed`, so the modal goes away and says why) and its approver
call is cancelled, so a late key press answers nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wrapper.harness.acp.monitor import AcpMonitor
from wrapper.harness.acp.reaction import Reaction
from wrapper.harness.acp.rpc import AgentProcess
from wrapper.harness.base import Approver
from wrapper.items import Answer, ApprovalClosed, Item, Question, StatusItem
from wrapper.process.multiplexer import answer_refusal, tree

QUEUE_MAX = 32  # questions waiting for a person; more than this at once is a flood, refused by policy


@dataclass
class Ask:
    """One open permission request."""

    proc: AgentProcess
    rid: Any
    params: dict[str, Any]
    question: Question
    task: asyncio.Task[Any] | None = None


def key_of(rid: Any) -> str:
    """A dict key for any JSON-RPC id (an agent may send a list or an object as its id)."""
    try:
        return json.dumps(rid, sort_keys=True)
    except (TypeError, ValueError):
        return repr(rid)


class OpenAsks:
    """Questions to the approver, one at a time, with the answers sent back to the agent."""

    def __init__(
        self,
        acp: AcpMonitor,
        approver: Approver,
        emit: Callable[[Item], None],
        record: Callable[[str, dict[str, Any]], None],
        react: Callable[[Reaction], None],
        timeout_s: Callable[[], float],
        answered_by: str = "person",
    ) -> None:
        self.acp = acp
        self.approver = approver
        self.emit = emit
        self.record = record
        self.react = react
        self.timeout_s = timeout_s
        self.answered_by = answered_by
        self.open: dict[str, Ask] = {}
        self.refused_in_flood = 0
        self._one_at_a_time = asyncio.Lock()

    def add(self, proc: AgentProcess, rid: Any, params: dict[str, Any], q: Question) -> asyncio.Task[Any]:
        """Queue a question (or refuse it at once when too many wait); returns the task that answers it."""
        key = key_of(rid)
        if len(self.open) >= QUEUE_MAX:
            self.refused_in_flood += 1
            if self.refused_in_flood == 1 or self.refused_in_flood % 500 == 0:
                self.emit(
                    StatusItem(
                        "warning",
                        f"the agent sent more than {QUEUE_MAX} permission requests at once: the ones past that"
                        f" are refused by policy ({self.refused_in_flood} so far)",
                    )
                )
            why = f"more than {QUEUE_MAX} permission requests waiting (a flood)"
            r = self.acp.answered(params, q, "deny", "policy", why)
            self.record("note", {"what": "answer", "rid": rid, "answer": "deny", "by": "policy", "why": why})
            self.react(r)
            return asyncio.ensure_future(proc.respond(rid, r.reply))
        ask = Ask(proc, rid, params, q)
        self.open[key] = ask
        ask.task = asyncio.ensure_future(self._ask(key, ask))
        return ask.task

    async def _ask(self, key: str, ask: Ask) -> None:
        async with self._one_at_a_time:
            if self.open.get(key) is not ask:
                return  # closed while it waited for its turn
            limit = self.timeout_s()
            by, why = self.answered_by, ""
            answer: Answer
            try:
                answer = await asyncio.wait_for(self.approver(ask.question), limit or None)
            except TimeoutError:  # nobody answered in time: fail closed
                self.emit(StatusItem("warning", f"no answer within {limit:g} s; declining"))
                answer, by, why = "deny", "timeout", f"no answer within {limit:g} s"
            except asyncio.CancelledError:
                raise
            except Exception as e:  # an approver failure fails closed
                self.emit(StatusItem("error", f"the approver failed ({e!r}); declining"))
                answer, by, why = "deny", "engine", "the approver failed"
            if self.open.pop(key, None) is not ask:
                return  # answered `cancelled` meanwhile (the turn was cancelled, the agent exited)
            pid = ask.proc.pid if by == "person" and answer in ("allow-once", "allow-turn") else None
            if pid and (typed := answer_refusal(tree(pid))):
                self.emit(StatusItem("error", typed))  # a process of the session drives the terminal's multiplexer
                answer, by, why = "deny", "engine", typed
            self.record("note", {"what": "answer", "rid": ask.rid, "answer": answer, "by": by, "why": why})
            r = self.acp.answered(ask.params, ask.question, answer, by, why)
            await ask.proc.respond(ask.rid, r.reply)
            self.react(r)

    async def close_all(self, reason: str, tell_agent: bool) -> None:
        """Close every open question: the screen is told (`ApprovalClosed`), a late answer does nothing.

        `tell_agent`: the agent is alive (a cancelled turn), so each request is answered `cancelled`.
        """
        for key, ask in list(self.open.items()):
            self.open.pop(key, None)
            if ask.task is not None and not ask.task.done():
                ask.task.cancel()
            self.record(
                "note",
                {
                    "what": "answer",
                    "rid": ask.rid,
                    "answer": "cancel-turn",
                    "by": "engine",
                    "why": reason,
                    "closed": reason,
                },
            )
            self.emit(ApprovalClosed(ask.question.id, reason))
            if tell_agent:
                r = self.acp.answered(ask.params, ask.question, "cancel-turn", "engine", reason)
                with contextlib.suppress(Exception):
                    await ask.proc.respond(ask.rid, r.reply)
                self.emit_items(r.items)

    def emit_items(self, items: list[Item]) -> None:
        """Show what an answer produced."""
        for i in items:
            self.emit(i)
