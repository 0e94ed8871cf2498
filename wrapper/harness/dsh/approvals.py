"""Approvals in flight: an answer counts only while the bridge is still waiting for it, and a flood is bounded.

The bridge gives up on an approval when it times out, when the child exits or when the channel
goes away; the agent has then already received a decline. From that moment the question is
closed: `ApprovalClosed` tells the screen (so the modal can close and say why), the recording
gets the decline the agent really received, and an answer that arrives later is recorded as late
and never applied (no exemption, no allow in the record).

Each answer is recorded and shown with who gave it (`wrapper.items.By`): the person, the policy
(`--approvals`, the headless default), the engine, or the timeout. Nothing here answers a question
from an earlier answer: each approval dsh asks for (a sandbox escalation, a breaker ask) gets its own.

A person can read one question at a time: one question is open per call, and past `MAX_WAITING`
open questions a further request is declined at once by policy (fail closed), with one status line
when the bound is reached and one when the queue has drained, so a flood neither piles up screens
nor freezes the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

from wrapper.harness.base import answered_by
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.owner import BridgeOwner
from wrapper.items import Answer, ApprovalClosed, ApprovalItem, Question, StatusItem
from wrapper.process.multiplexer import SAMPLE_S, holders, refusal, tree

MAX_WAITING = 64  # questions open at once; past this a further request is declined by policy (a flood)


def session_pids(s: BridgeOwner) -> list[int]:
    """The processes of the session: dsh's tree, and the tools that left it (re-parented to the monitor)."""
    # a stand-in owner without a child (the unit tests' scripted sessions) has nothing to check
    child, contain = getattr(s, "child", None), getattr(s, "contain", None)
    if child is None or child.pid is None:
        return []
    return [*tree(child.pid), *(p.pid for p in (contain.targets() if contain is not None else []))]


def typed_by_session(s: BridgeOwner, seen: list[str]) -> str:
    """Why a person's "allow" may have been typed by the agent (`wrapper.process.multiplexer`): what was
    `seen` while the question was open, or what holds the multiplexer now; raised as an alarm ("" for none).
    """
    why = refusal(seen) or refusal(holders(session_pids(s)))
    if why:
        s._record("note", {"what": "alarm", "text": why})
        s._emit(StatusItem("error", why))
    return why


async def watch_typing(s: BridgeOwner, seen: list[str]) -> None:
    """While a person's answer is awaited: note the first process of the session that can type for them."""
    while not seen:
        # the session's processes are listed here (the containment's records belong to the event loop);
        # their sockets are read in a thread
        found = await asyncio.to_thread(holders, session_pids(s))
        seen.extend(found[:1])
        await asyncio.sleep(SAMPLE_S)


class Approvals:
    """The session's open approvals, by bridge id."""

    def __init__(self, session: BridgeOwner) -> None:
        self.session = session
        self._open: dict[str, asyncio.Future[str]] = {}
        self._answered: dict[str, tuple[P.ApprovalRequest, str]] = {}  # recent answers, by bridge id
        self._calls: dict[tuple[str, str], str] = {}  # (agent, call id) -> the bridge id of its open question
        self._waiting: set[str] = set()  # bridge ids put to the approver and not answered yet
        self._flooded = 0  # requests declined by the bound since it was last reached

    def received(self, msg: P.ApprovalRequest) -> None:
        """Register the approval before anything else is read from the bridge, then ask in a task.

        Registering first matters: the bridge's `closed` for this id may be the very next line. The
        bound and the one-question-per-call rule are decided here, before any task waits on a person.
        """
        self._open[msg.id] = asyncio.get_running_loop().create_future()
        key = (msg.sessionId or "main", msg.callId) if msg.callId else None
        if key is not None and key in self._calls:
            why = "a question about this call is already open"
            self.session._spawn(self._declined(msg, why, apply=False))
            return
        if len(self._waiting) >= MAX_WAITING:
            if not self._flooded:
                self.session._emit(
                    StatusItem(
                        "warning",
                        f"{MAX_WAITING} approvals are waiting: further requests are declined by policy "
                        "(fail closed) until some are answered",
                    )
                )
            self._flooded += 1
            self.session._spawn(self._declined(msg, f"more than {MAX_WAITING} approvals waiting", apply=True))
            return
        self._waiting.add(msg.id)
        if key is not None:
            self._calls[key] = msg.id
        self.session._spawn(self.ask(msg))

    def _done(self, msg: P.ApprovalRequest) -> None:
        """The question of `msg` is no longer open: free its call and its place in the queue."""
        self._open.pop(msg.id, None)
        self._waiting.discard(msg.id)
        key = (msg.sessionId or "main", msg.callId) if msg.callId else None
        if key is not None and self._calls.get(key) == msg.id:
            del self._calls[key]
        if self._flooded and len(self._waiting) < MAX_WAITING // 2:
            n, self._flooded = self._flooded, 0
            self.session._emit(
                StatusItem("notice", f"{n} approval request(s) were declined by policy while the queue was full")
            )

    def close(self, approval_id: str, reason: str, by: str = "engine") -> None:
        """The bridge stopped waiting for `approval_id`; if our answer crossed that, record the truth.

        `by` is who declined it: `timeout` (nobody answered in time) or `engine` (the agent or bridge went away).
        """
        fut = self._open.get(approval_id)
        if fut is not None and not fut.done():
            fut.set_result(f"{by}\x00{reason}")
            return
        crossed = self._answered.pop(approval_id, None)
        if crossed is not None:
            msg, answer = crossed
            s = self.session
            s._record(
                "out",
                _undelivered_denial({"t": "approval_response", "id": msg.id, "outcome": "rejected"}, msg, by, reason),
            )
            s._record("note", {"what": "late-answer", "id": msg.id, "answer": answer, "text": f"crossed: {reason}"})
            s._emit(ApprovalClosed(msg.id, reason))

    def close_all(self, reason: str) -> None:
        """Close every open approval (the child exited, the bridge went away)."""
        for approval_id in list(self._open):
            self.close(approval_id, reason)

    async def ask(self, msg: P.ApprovalRequest) -> None:
        """Put one approval to the person (or the policy) and answer the bridge, unless it gave up first."""
        s = self.session
        q = dataclasses.replace(s.monitor.question(msg), id=msg.id)
        s._emit(ApprovalItem(q))
        closed = self._open.get(msg.id) or asyncio.get_running_loop().create_future()
        self._open[msg.id] = closed
        if closed.done():  # the bridge gave up before we even asked
            self._done(msg)
            await self._gave_up(msg, q, closed.result(), None)
            return
        by, why = answered_by(s.approver), ""
        asking: asyncio.Future[Answer] = asyncio.ensure_future(s.approver(q))
        waiting: set[asyncio.Future[Any]] = {asking, closed}
        seen: list[str] = []  # a process of the session seen able to type into the terminal meanwhile
        watch = asyncio.ensure_future(watch_typing(s, seen)) if by == "person" else None
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._done(msg)
            if watch is not None:
                watch.cancel()
        if closed.done():
            await self._gave_up(msg, q, closed.result(), asking)
            return
        answer: Answer
        try:
            answer = asking.result()
        except Exception as e:  # an approver failure fails closed
            s._emit(StatusItem("error", f"the approver failed ({type(e).__name__}); declining"))
            answer, by, why = "deny", "engine", "the approver failed"
        if by == "person" and answer in ("allow-once", "allow-turn") and (typed := typed_by_session(s, seen)):
            answer, by, why = "deny", "engine", typed
        await self._reply(msg, q, answer, by, why)

    async def _reply(self, msg: P.ApprovalRequest, q: Question, answer: Answer, by: str, why: str) -> None:
        """Apply an answer, send it, record and show it with who gave it."""
        s = self.session
        reply = s.monitor.answer(msg, q, answer)
        self._answered[msg.id] = (msg, answer)
        while len(self._answered) > 256:
            del self._answered[next(iter(self._answered))]
        extra: dict[str, Any] = {"answer": answer, "by": by, "callId": q.call_id, "sessionId": q.agent}
        if why:
            extra["why"] = why
        await s._send(reply, extra)
        if answer == "cancel-turn":
            await s.cancel()
        s._emit(ApprovalItem(q, answer, by, why))

    async def _declined(self, msg: P.ApprovalRequest, why: str, apply: bool) -> None:
        """Decline a request nobody is asked about (the flood bound, a second question for one call).

        `apply`: keep the engine in step (the call is refused); a duplicate leaves the open question's
        call alone, so its own answer still decides it.
        """
        s = self.session
        self._open.pop(msg.id, None)
        q = dataclasses.replace(s.monitor.question(msg), id=msg.id)
        if apply:
            await self._reply(msg, q, "deny", "policy", why)
            return
        reply = P.ApprovalResponse(id=msg.id, outcome="rejected")
        await s._send(reply, {"answer": "deny", "by": "policy", "why": why, "callId": q.call_id, "sessionId": q.agent})
        s._emit(ApprovalItem(q, "deny", "policy", why))

    async def _gave_up(
        self, msg: P.ApprovalRequest, q: Question, closed: str, asking: asyncio.Future[Answer] | None
    ) -> None:
        s = self.session
        by, _, reason = closed.partition("\x00")
        # the agent was declined: keep the engine in step with that, and record it as it happened
        reply = s.monitor.answer(msg, q, "deny")
        s._record("out", _undelivered_denial(reply.model_dump(exclude_none=True), msg, by, reason))
        s._emit(ApprovalClosed(msg.id, reason))
        s._emit(ApprovalItem(q, "deny", by, reason))
        late: Answer | None = None
        if asking is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                late = await asking
        if late is not None:
            s._record(
                "note",
                {"what": "late-answer", "id": msg.id, "answer": late, "text": f"answered {late} after: {reason}"},
            )
        if late is not None and late != "deny":  # a late deny is what was applied: recorded, not news
            s._emit(
                StatusItem(
                    "notice", f"the answer '{late}' came after the approval closed ({reason}); it was not applied"
                )
            )


def _undelivered_denial(reply: dict[str, Any], msg: P.ApprovalRequest, by: str, reason: str) -> dict[str, Any]:
    """The record of a denial the bridge never got (it had stopped waiting): who declined it and why."""
    return {
        **reply,
        "answer": "deny",
        "by": by,
        "why": reason,
        "closed": reason,
        "callId": msg.callId,
        "sessionId": msg.sessionId,
        "delivered": False,
    }
