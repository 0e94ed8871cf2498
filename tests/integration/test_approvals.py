"""A local-only repeat asks the operator through dsh's own approval flow; the answer has the seeds' effect."""

from __future__ import annotations

from typing import Any

import pytest

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


async def test_approve_exempts_local_repeats_for_the_turn(run_factory: Any) -> None:
    run = await run_factory("dev-server-loop", answers=["allow-once"])
    await run.turn("Wait for the dev server")
    kinds = [v.verdict.kind for v in run.verdicts()]
    assert kinds == ["allow"] * 4 + ["ask", "allow", "allow"], kinds
    q = run.questions[0]
    assert q.from_breaker and q.local and [h.fp for h in q.hits] == ["net:127.0.0.1:18999/health"]
    asked = _events(run, "approval/asked")
    decided = _events(run, "approval/decided")
    assert len(asked) == 1 and "LOCAL address" in asked[0]["reason"]
    assert decided[0]["outcome"] == "allowed-once"
    assert run.session.breaker.snapshot().agents[0].local_exempt


async def test_decline_refuses_local_repeats_until_the_next_message(run_factory: Any) -> None:
    run = await run_factory("dev-server-loop", answers=["deny"])
    await run.turn("Wait for the dev server")
    vs = run.verdicts()
    assert [v.verdict.kind for v in vs] == ["allow"] * 4 + ["ask", "deny", "deny"]
    assert vs[5].verdict.note == "refused" and "REPEAT_TOOL_BLOCKED" in vs[5].verdict.message
    assert _events(run, "approval/decided")[0]["outcome"] == "rejected"
    assert len(run.questions) == 1, "a refused turn never asks again"
    last = run.world.mock.main_requests()[-1]["body"]["messages"]
    tool_texts = [str(m.get("content")) for m in last if m.get("role") == "tool"]
    assert "rejected" in tool_texts[4] and "LOCAL address" in tool_texts[5]
