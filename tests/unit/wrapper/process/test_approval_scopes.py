"""Answers mean what they say: allow once is one call, allow for the turn is the same local resource only.

Driven through `BridgeMonitor` and the session's `Approvals` (what the dsh session runs between the
bridge and the person), with a stand-in owner that collects what would go to the bridge: the bridge,
the socket and dsh are not under test here (tests/integration/test_approvals.py runs the real dsh).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from engine.breaker import Breaker
from tests.conftest import wait_until
from wrapper.harness.base import Approver, allow_all
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.approvals import Approvals
from wrapper.harness.dsh.monitor import BridgeMonitor
from wrapper.items import Answer, ApprovalItem, Item, Question, StatusItem
from wrapper.monitor import Info
from wrapper.process.child import Child
from wrapper.process.contain import Containment
from wrapper.settings import Settings

HEALTH = "http://127.0.0.1:18999/health"
ESCALATION = {"command": "echo x > ../outside.txt", "sandbox_permissions": "danger-full-access"}


class Owner:
    """What `Approvals` needs of its session, collecting what would go to the bridge, the screen and the file."""

    def __init__(self, approver: Approver) -> None:
        self.settings = Settings()
        self.monitor = BridgeMonitor(self.settings, Info(dsh=True, runner=True))
        self.monitor.handle(P.parse_inbound({"t": "ready", "sessionId": "s1", "model": "mock-model"}))
        self.info = self.monitor.info
        self.approver = approver
        self.child: Child | None = None
        self.contain: Containment | None = None
        self.approvals = Approvals(self)
        self.items: list[Item] = []
        self.records: list[tuple[str, dict[str, Any]]] = []
        self.sent: list[tuple[P.Out, dict[str, Any]]] = []
        self._tasks: set[asyncio.Future[Any]] = set()

    def _emit(self, item: Item) -> None:
        self.items.append(item)

    def _record(self, kind: str, body: dict[str, Any]) -> None:
        self.records.append((kind, body))

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, out: P.Out, extra: dict[str, Any] | None = None) -> bool:
        self.sent.append((out, extra or {}))
        return True

    async def cancel(self) -> bool:
        return True

    def reply_to(self, approval_id: str) -> tuple[P.ApprovalResponse, dict[str, Any]] | None:
        for out, extra in self.sent:
            if isinstance(out, P.ApprovalResponse) and out.id == approval_id:
                return out, extra
        return None


class Person:
    """A scripted person: answers in order, remembers every question it was asked."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[Question] = []

    async def __call__(self, q: Question) -> Answer:
        self.asked.append(q)
        return self.answers.pop(0) if self.answers else "deny"


async def approval(o: Owner, approval_id: str, call_id: str, reason: str = "") -> P.ApprovalResponse:
    """dsh asks for approval of a call; wait for the answer that goes back."""
    msg = {"t": "approval_request", "id": approval_id, "sessionId": "s1", "toolName": "bash", "callId": call_id}
    o.approvals.received(P.parse_inbound({**msg, "reason": reason}))  # type: ignore[arg-type]
    await wait_until(lambda: o.reply_to(approval_id) is not None, 10, f"the answer to {approval_id}")
    reply = o.reply_to(approval_id)
    assert reply is not None
    return reply[0]


async def call(o: Owner, n: int, args: dict[str, Any]) -> str:
    """One tool call as dsh makes it: the verdict, dsh's approval when the verdict asks, then the result.

    Returns what happened: allow, deny, or `ask:<outcome the bridge got>`.
    """
    r = o.monitor.handle(
        P.parse_inbound(
            {"t": "verdict_request", "id": f"v{n}", "sessionId": "s1", "callId": f"c{n}", "name": "bash", "args": args}
        )
    )
    assert isinstance(r.reply, P.Verdict)
    what: str = r.reply.kind
    if what == "ask":
        what = "ask:" + (await approval(o, f"a{n}", f"c{n}", r.reply.message)).outcome
    o.monitor.handle(
        P.parse_inbound({"t": "result_request", "id": f"r{n}", "sessionId": "s1", "callId": f"c{n}", "name": "bash"})
    )
    return what


def poll(n: int, url: str = HEALTH) -> dict[str, Any]:
    return {"command": f"curl -s -w 'code-{n}' -o /dev/null {url} || true"}


async def test_allow_once_is_this_call_only_and_the_sixth_repeat_asks_again() -> None:
    person = Person("allow-once", "allow-once", "deny")
    o = Owner(person)
    got = [await call(o, n, poll(n)) for n in range(7)]
    assert got == ["allow"] * 4 + ["ask:allowed-once", "ask:allowed-once", "ask:rejected"]
    assert len(person.asked) == 3 and all(q.from_breaker and q.local for q in person.asked)
    assert [h.fp for h in person.asked[1].hits] == ["net:127.0.0.1:18999/health"]


async def test_allow_turn_covers_the_same_local_url_but_an_escalation_still_asks() -> None:
    person = Person("allow-turn", "deny")
    o = Owner(person)
    got = [await call(o, n, poll(n)) for n in range(7)]
    assert got == ["allow"] * 4 + ["ask:allowed-once", "allow", "allow"], "the approved URL repeats freely"
    assert await call(o, 7, ESCALATION) == "allow", "the breaker has nothing against it"
    reply = await approval(o, "esc", "c7", "sandbox: danger-full-access")  # dsh's own escalation approval
    assert reply.outcome == "rejected", "the person's deny, not the earlier allow-turn, decided it"
    assert len(person.asked) == 2 and not person.asked[1].from_breaker and person.asked[1].call_id == "c7"
    answered = [i for i in o.items if isinstance(i, ApprovalItem) and i.answer is not None]
    assert [(i.answer, i.by) for i in answered] == [("allow-turn", "person"), ("deny", "person")]


async def test_allow_turn_then_a_different_local_url_asks() -> None:
    person = Person("allow-turn", "deny")
    o = Owner(person)
    for n in range(5):
        await call(o, n, poll(n))
    other = "http://127.0.0.1:18999/ready"
    got = [await call(o, n, poll(n, other)) for n in range(5, 10)]
    assert got == ["allow"] * 4 + ["ask:rejected"]
    assert [h.fp for h in person.asked[1].hits] == ["net:127.0.0.1:18999/ready"]


async def test_the_question_carries_the_earlier_repeats_and_the_whole_command() -> None:
    person = Person("deny")
    o = Owner(person)
    tail = " " * 4000 + "; echo PWNED > pwned.txt"
    for n in range(4):
        await call(o, n, poll(n))
    await call(o, 4, {"command": f"curl -s -o /dev/null {HEALTH}{tail}"})
    q = person.asked[0]
    assert q.args == {"command": f"curl -s -o /dev/null {HEALTH}{tail}"}, "nothing cut"
    assert q.earlier == tuple(poll(n) for n in range(4)), "the four polls it repeats, oldest first"


async def test_a_policy_answer_is_recorded_and_shown_as_the_policy() -> None:
    o = Owner(allow_all)
    got = [await call(o, n, poll(n)) for n in range(6)]
    assert got == ["allow"] * 4 + ["ask:allowed-once"] * 2, "allow once, so the policy is asked each time"
    answered = [i for i in o.items if isinstance(i, ApprovalItem) and i.answer is not None]
    assert [(i.answer, i.by) for i in answered] == [("allow-once", "policy")] * 2
    assert all(extra["by"] == "policy" for out, extra in o.sent if isinstance(out, P.ApprovalResponse))


async def test_a_flood_of_approvals_is_bounded_and_declined_by_policy() -> None:
    never = asyncio.get_running_loop().create_future()
    asked: list[Question] = []

    async def slow_person(q: Question) -> Answer:
        asked.append(q)
        return await never  # type: ignore[no-any-return]

    o = Owner(slow_person)
    for n in range(3000):
        msg = {"t": "approval_request", "id": f"f{n}", "sessionId": "s1", "toolName": "bash", "callId": f"x{n}"}
        o.approvals.received(P.parse_inbound(msg))  # type: ignore[arg-type]
    await wait_until(lambda: len([s for s in o.sent if isinstance(s[0], P.ApprovalResponse)]) >= 3000 - 64, 60)
    await wait_until(lambda: len(asked) == 64, 10, "the first 64 questions")
    replies = [(out, extra) for out, extra in o.sent if isinstance(out, P.ApprovalResponse)]
    assert len(replies) == 3000 - 64, "the 64 put to the person wait for them"
    assert all(out.outcome == "rejected" and extra["by"] == "policy" for out, extra in replies)
    warnings = [i for i in o.items if isinstance(i, StatusItem) and i.kind == "warning"]
    assert len(warnings) == 1 and "declined by policy" in warnings[0].text
    never.cancel()


async def test_one_open_question_per_call() -> None:
    never = asyncio.get_running_loop().create_future()
    asked: list[Question] = []

    async def slow_person(q: Question) -> Answer:
        asked.append(q)
        return await never  # type: ignore[no-any-return]

    o = Owner(slow_person)
    for approval_id in ("d1", "d2"):
        msg = {"t": "approval_request", "id": approval_id, "sessionId": "s1", "toolName": "bash", "callId": "same"}
        o.approvals.received(P.parse_inbound(msg))  # type: ignore[arg-type]
    await wait_until(lambda: o.reply_to("d2") is not None, 10, "the second question declined")
    assert len(asked) == 1 and o.reply_to("d1") is None
    never.cancel()


async def test_a_late_answer_to_a_closed_question_does_nothing() -> None:
    gate = asyncio.get_running_loop().create_future()

    async def late_person(q: Question) -> Answer:
        return await gate  # type: ignore[no-any-return]

    o = Owner(late_person)
    for n in range(4):
        await call(o, n, poll(n))
    r = o.monitor.handle(
        P.parse_inbound(
            {"t": "verdict_request", "id": "v4", "sessionId": "s1", "callId": "c4", "name": "bash", "args": poll(4)}
        )
    )
    assert isinstance(r.reply, P.Verdict) and r.reply.kind == "ask"
    msg = {"t": "approval_request", "id": "a4", "sessionId": "s1", "toolName": "bash", "callId": "c4"}
    o.approvals.received(P.parse_inbound(msg))  # type: ignore[arg-type]
    await wait_until(lambda: any(isinstance(i, ApprovalItem) for i in o.items), 10, "the question")
    o.approvals.close("a4", "nobody answered in time; the bridge declined it", by="timeout")
    await wait_until(lambda: any(k == "out" and b.get("by") == "timeout" for k, b in o.records), 10, "the decline")
    gate.set_result("allow-turn")
    await wait_until(lambda: any(b.get("what") == "late-answer" for _, b in o.records), 10, "the late answer")
    assert o.reply_to("a4") is None, "nothing is sent for a closed question"
    assert await call(o, 5, poll(5)) == "deny", "no exemption: the declined ask refused local repeats"
    answered = [i for i in o.items if isinstance(i, ApprovalItem) and i.answer is not None]
    assert [(i.answer, i.by) for i in answered] == [("deny", "timeout")]


def test_engine_allow_once_then_allow_turn_scopes() -> None:
    b = Breaker()

    def curl(n: int, url: str = HEALTH) -> str:
        return b.check_tool("A", f"c{n}", "bash", poll(n, url)).kind

    assert [curl(n) for n in range(5)] == ["allow"] * 4 + ["ask"]
    assert b.resolve_ask("A", "c4", True).kind == "allow"  # once
    assert curl(5) == "ask", "allow once did not exempt the next repeat"
    assert b.resolve_ask("A", "c5", True, "turn").kind == "allow"
    v = b.check_tool("A", "c6", "bash", poll(6))
    assert v.kind == "allow" and v.note == "approved", "covered by the allow-for-the-turn, and says so"
    remote = [b.check_tool("A", f"r{n}", "bash", poll(n, "http://10.attacker.example/x")).kind for n in range(5)]
    assert remote == ["allow"] * 4 + ["deny"], "a remote repeat is never covered"


async def test_a_question_dsh_asks_for_its_own_reasons_shows_the_calls_it_repeats() -> None:
    """dsh's own approval (an escalation, a tool its profile asks for) about the third copy of a command: the
    person sees the two earlier copies, not "no earlier repeat" (a re-spelling counts; another command not).
    """
    person = Person("deny")
    o = Owner(person)
    first, respelled, other = {"command": "make  build"}, {"command": "make 'build'"}, {"command": "ls"}
    for n, args in enumerate((first, other, respelled)):
        await call(o, n, args)
    o.monitor.handle(
        P.parse_inbound(
            {"t": "verdict_request", "id": "v3", "sessionId": "s1", "callId": "c3", "name": "bash", "args": first}
        )
    )
    await approval(o, "a3", "c3", "sandbox: danger-full-access")
    q = person.asked[0]
    assert not q.from_breaker and q.earlier == (first, respelled)


async def test_a_late_deny_is_recorded_and_not_said_again() -> None:
    """A question denied because the child stopped: the person's (or the screen's) deny comes after the
    bridge closed it, and was said as "came after the approval closed; it was not applied" though it was.
    """
    gate = asyncio.get_running_loop().create_future()

    async def late_person(q: Question) -> Answer:
        return await gate  # type: ignore[no-any-return]

    o = Owner(late_person)
    msg = {"t": "approval_request", "id": "a1", "sessionId": "s1", "toolName": "bash", "callId": "c1"}
    o.approvals.received(P.parse_inbound(msg))  # type: ignore[arg-type]
    await wait_until(lambda: any(isinstance(i, ApprovalItem) for i in o.items), 10, "the question")
    o.approvals.close("a1", "the dsh bridge disconnected")
    gate.set_result("deny")
    await wait_until(lambda: any(b.get("what") == "late-answer" for _, b in o.records), 10, "the late answer")
    said = [i.text for i in o.items if isinstance(i, StatusItem)]
    assert not any("came after the approval closed" in t for t in said), said
