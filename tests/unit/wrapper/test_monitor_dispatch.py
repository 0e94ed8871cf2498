"""`BridgeMonitor.handle`: the one dispatcher of bridge messages, tested without dsh, a socket or a screen."""

from __future__ import annotations

from typing import Any

from engine import events as ev
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.monitor import BridgeMonitor
from wrapper.items import EngineItem, ResultItem, StatusItem, VerdictItem
from wrapper.mock.scenarios import LOOP_SENTENCE
from wrapper.monitor import Info
from wrapper.settings import Settings


def handle(m: BridgeMonitor, **msg: Any) -> Any:
    return m.handle(P.parse_inbound(msg))


def fresh() -> BridgeMonitor:
    m = BridgeMonitor(Settings(), Info(dsh=True, runner=True))
    handle(m, t="ready", sessionId="s1", provider="mock", model="mock-model")
    return m


def test_hello_ready_and_status_update_the_status_line() -> None:
    m = BridgeMonitor(Settings(), Info(dsh=True))
    r = handle(m, t="hello", token="x", pid=42)
    assert r.connected and m.info.bridge == "connected" and "pid 42" in r.items[0].text
    r = handle(m, t="ready", sessionId="s1", model="mock-model")
    assert r.ready and m.info.session_id == "s1" and m.info.model == "mock-model"
    handle(m, t="status", sessionId="s1", status="running")
    assert m.info.busy


def test_verdicts_deny_the_fifth_cosmetic_repeat_and_say_what_to_record() -> None:
    m = fresh()
    kinds = []
    for n in range(5):
        cmd = "cat" + " " * (1 + n % 2) + "notes.txt; echo ran >> calls.log"
        r = handle(
            m, t="verdict_request", id=f"v{n}", sessionId="s1", callId=f"c{n}", name="bash", args={"command": cmd}
        )
        assert isinstance(r.reply, P.Verdict) and r.reply.id == f"v{n}"
        assert r.record["callId"] == f"c{n}" and isinstance(r.items[0], VerdictItem)
        kinds.append(r.reply.kind)
        # dsh reports a call it did not run as an error carrying the denial
        text, failed = ("ok", False) if r.reply.kind == "allow" else (f"Error: {r.reply.message}", True)
        rr = handle(
            m, t="result_request", id=f"r{n}", sessionId="s1", callId=f"c{n}", name="bash", text=text, isError=failed
        )
        assert isinstance(rr.reply, P.ResultResponse) and isinstance(rr.items[0], ResultItem)
        assert rr.alarm is None
    assert kinds == ["allow"] * 4 + ["deny"]
    assert "REPEAT_TOOL_BLOCKED" in r.reply.message


def test_events_feed_the_engine_and_a_looping_stream_trips() -> None:
    m = fresh()
    handle(m, t="request_start", sessionId="s1", turn=1, step=1)
    trips = []
    for i in range(40):
        chunk = {"type": "reasoning-delta", "text": LOOP_SENTENCE.format(i=i)}
        r = handle(m, t="event", sessionId="s1", event={"type": "assistant/chunk", "data": {"chunk": chunk}})
        assert isinstance(r.items[0], EngineItem) and isinstance(r.items[0].event, ev.ReasoningDelta)
        trips += r.trips
    assert len(trips) == 1 and trips[0].action == "abort_retry"
    cmd = m.trip_command(trips[0])
    assert cmd is not None and cmd.retry


def test_request_errors_are_forwarded_unless_ours() -> None:
    m = fresh()
    r = handle(m, t="request_error", sessionId="s1", message="boom", code="HTTP_500")
    assert isinstance(r.items[0], StatusItem) and "boom" in r.items[0].text
    assert handle(m, t="request_error", sessionId="s1", message="x", code="ABORTED", ours=True).items == []


def test_an_approval_is_handed_to_the_driver_with_nothing_answered_yet() -> None:
    m = fresh()
    r = handle(m, t="approval_request", id="a1", sessionId="s1", toolName="bash", callId="c1", reason="asks")
    assert r.approval is not None and r.reply is None and r.items == []
    q = m.question(r.approval)
    out = m.answer(r.approval, q, "deny")
    assert out.outcome == "rejected"
