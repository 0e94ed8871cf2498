"""Approvals in flight: an answer counts only while the bridge is still waiting for it.

The bridge gives up on an approval when it times out, when the child exits or when the channel
goes away; the agent has then already received a decline. From that moment the question is
closed: `ApprovalClosed` tells the screen (so the modal can close and say why), the recording
gets the decline the agent really received, and an answer that arrives later is recorded as late
and never applied (no exemption, no allow in the record).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.owner import BridgeOwner
from wrapper.items import Answer, ApprovalClosed, ApprovalItem, Question, StatusItem


class Approvals:
    """The session's open approvals, by bridge id."""

    def __init__(self, session: BridgeOwner) -> None:
        self.session = session
        self._open: dict[str, asyncio.Future[str]] = {}
        self._answered: dict[str, tuple[P.ApprovalRequest, str]] = {}  # recent answers, by bridge id

    def received(self, msg: P.ApprovalRequest) -> None:
        """Register the approval before anything else is read from the bridge, then ask in a task.

        Registering first matters: the bridge's `closed` for this id may be the very next line.
        """
        self._open[msg.id] = asyncio.get_running_loop().create_future()
        self.session._spawn(self.ask(msg))

    def close(self, approval_id: str, reason: str) -> None:
        """The bridge stopped waiting for `approval_id`; if our answer crossed its timeout, record the truth."""
        fut = self._open.get(approval_id)
        if fut is not None and not fut.done():
            fut.set_result(reason)
            return
        crossed = self._answered.pop(approval_id, None)
        if crossed is not None:
            msg, answer = crossed
            s = self.session
            s._record(
                "out",
                {
                    "t": "approval_response",
                    "id": msg.id,
                    "outcome": "rejected",
                    "answer": "deny",
                    "closed": reason,
                    "callId": msg.callId,
                    "sessionId": msg.sessionId,
                    "delivered": False,
                },
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
            self._open.pop(msg.id, None)
            await self._gave_up(msg, q, closed.result(), None)
            return
        answer = s.monitor.auto_answer(q)
        by = "allowed for the rest of the turn" if answer else "operator"
        if answer is not None:
            self._open.pop(msg.id, None)
        else:
            asking: asyncio.Future[Answer] = asyncio.ensure_future(s.approver(q))
            waiting: set[asyncio.Future[Any]] = {asking, closed}
            try:
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self._open.pop(msg.id, None)
            if closed.done():
                await self._gave_up(msg, q, closed.result(), asking)
                return
            try:
                answer = asking.result()
            except Exception as e:  # an approver failure fails closed
                s._emit(StatusItem("error", f"the approver failed ({type(e).__name__}); declining"))
                answer = "deny"
        reply = s.monitor.answer(msg, q, answer)
        self._answered[msg.id] = (msg, answer)
        while len(self._answered) > 256:
            del self._answered[next(iter(self._answered))]
        await s._send(reply, {"answer": answer, "callId": q.call_id, "sessionId": q.agent})
        if answer == "cancel-turn":
            await s.cancel()
        s._emit(ApprovalItem(q, answer, by))

    async def _gave_up(
        self, msg: P.ApprovalRequest, q: Question, reason: str, asking: asyncio.Future[Answer] | None
    ) -> None:
        s = self.session
        # the agent was declined: keep the engine in step with that, and record it as it happened
        reply = s.monitor.answer(msg, q, "deny")
        s._record(
            "out",
            {
                **reply.model_dump(exclude_none=True),
                "answer": "deny",
                "closed": reason,
                "callId": msg.callId,
                "sessionId": msg.sessionId,
                "delivered": False,
            },
        )
        s._emit(ApprovalClosed(msg.id, reason))
        late: Answer | None = None
        if asking is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                late = await asking
        if late is not None:
            s._record(
                "note",
                {"what": "late-answer", "id": msg.id, "answer": late, "text": f"answered {late} after: {reason}"},
            )
            s._emit(
                StatusItem(
                    "notice", f"the answer '{late}' came after the approval closed ({reason}); it was not applied"
                )
            )
