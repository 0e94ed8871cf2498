"""A local-only repeat asks the operator through dsh's own approval flow; the answer has the seeds' effect."""

from __future__ import annotations

import json
from typing import Any

import pytest

from wrapper.items import ApprovalItem
from wrapper.mock import scenarios
from wrapper.mock.scenarios import Reply, ToolCallSpec, Turn, dev_server_loop

pytestmark = pytest.mark.integration


def _events(run: Any, kind: str) -> list[dict[str, Any]]:
    """dsh's own durable events of one type, from the recording of the bridge feed."""
    import json

    out = []
    for line in run.session.recorder.path.read_text().splitlines():
        r = json.loads(line)
        if r.get("t") == "event" and r.get("event", {}).get("type") == kind:
            out.append(r["event"]["data"])
    return out


async def test_allow_once_allows_this_call_only_and_the_next_repeat_asks_again(run_factory: Any) -> None:
    run = await run_factory("dev-server-loop", answers=["allow-once", "allow-once", "deny"])
    await run.turn("Wait for the dev server")
    kinds = [v.verdict.kind for v in run.verdicts()]
    assert kinds == ["allow"] * 4 + ["ask", "ask", "ask"], (kinds, _story(run))
    q = run.questions[0]
    assert q.from_breaker and q.local and [h.fp for h in q.hits] == ["net:127.0.0.1:18999/health"]
    assert len(q.earlier) == 4, "the question shows the four polls it repeats"
    asked = _events(run, "approval/asked")
    decided = _events(run, "approval/decided")
    assert len(asked) == 3 and "LOCAL address" in asked[0]["reason"]
    assert [d["outcome"] for d in decided] == ["allowed-once", "allowed-once", "rejected"]
    assert not run.session.breaker.snapshot().agents[0].local_exempt, "allow once exempts nothing"


def _story(run: Any) -> str:
    """What the engine saw, in order (for a failed assertion): verdicts with their rule, results, turn events."""
    out = []
    for line in run.session.recorder.path.read_text().splitlines():
        r = json.loads(line)
        t = r.get("t")
        if t == "verdict":
            v = r.get("verdict") or {}
            out.append(f"verdict {r.get('callId')} {v.get('kind')} rule={v.get('rule')} src={v.get('source')}")
        elif t in ("result_request", "request_start", "status"):
            said = str(r.get("result", r.get("status", "")))[:80]
            out.append(f"{t} {r.get('callId', '')} turn={r.get('turn')} {said}")
        elif t == "event" and r["event"].get("type") in ("tool/result", "user/message", "turn/start"):
            out.append(f"event {r['event']['type']} {json.dumps(r['event'].get('data'))[:160]}")
    return "\n".join(out)


def poll_then_escalate(turn: Turn) -> Reply:
    """Four local polls, the 5th asks (answered allow-turn), a 6th covered, then a sandbox escalation."""
    if turn.index < 6:
        return dev_server_loop(turn)
    if turn.index == 6:
        escalate = {
            "command": "echo ESCALATED > ../outside-escalated.txt",
            "description": "Write outside the workspace",
            "sandbox_permissions": "danger-full-access",
            "justification": "the marker lives outside the workspace",
        }
        return Reply(reasoning=["Now write the marker outside."], tool_calls=[ToolCallSpec("bash", escalate)])
    return Reply(reasoning=["Done."], content="Polled, then tried the escalated write.")


async def test_allow_turn_on_a_local_poll_leaves_an_escalation_its_own_question(
    run_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After `t` on a local poll, a danger-full-access escalation ran without a question."""
    monkeypatch.setitem(scenarios.SCENARIOS, "poll-escalate", (poll_then_escalate, "Poll, then write.", "test only"))
    run = await run_factory("poll-escalate", answers=["allow-turn", "deny"])
    await run.turn("Poll, then write", timeout=90)
    kinds = [v.verdict.kind for v in run.verdicts()]
    assert kinds == ["allow"] * 4 + ["ask", "allow", "allow"], kinds
    assert len(run.questions) == 2, [q.reason for q in run.questions]
    esc = run.questions[1]
    assert not esc.from_breaker and esc.args is not None and "danger-full-access" in str(esc.args)
    decided = [d["outcome"] for d in _events(run, "approval/decided")]
    assert decided == ["allowed-once", "rejected"], decided
    outside = run.world.workspace.parent / "outside-escalated.txt"
    assert not outside.exists(), "the person's deny held: the escalated write did not run"
    answered = [i for i in run.of(ApprovalItem) if i.answer is not None]
    assert [(i.answer, i.by) for i in answered] == [("allow-turn", "person"), ("deny", "person")]
    recorded = [json.loads(line) for line in run.session.recorder.path.read_text().splitlines()]
    by = [r.get("by") for r in recorded if r.get("t") == "approval_response"]
    assert by == ["person", "person"], "the recording says who answered"
    assert run.verdicts()[5].verdict.note == "approved", "the 6th poll ran under the allow-turn, and says so"


async def test_decline_refuses_local_repeats_until_the_next_message(run_factory: Any) -> None:
    run = await run_factory("dev-server-loop", answers=["deny"])
    await run.turn("Wait for the dev server")
    vs = run.verdicts()
    assert [v.verdict.kind for v in vs] == ["allow"] * 4 + ["ask", "deny", "deny"], _story(run)
    assert vs[5].verdict.note == "refused" and "REPEAT_TOOL_BLOCKED" in vs[5].verdict.message
    assert _events(run, "approval/decided")[0]["outcome"] == "rejected"
    assert len(run.questions) == 1, "a refused turn never asks again"
    last = run.world.mock.main_requests()[-1]["body"]["messages"]
    tool_texts = [str(m.get("content")) for m in last if m.get("role") == "tool"]
    assert "rejected" in tool_texts[4] and "LOCAL address" in tool_texts[5]
