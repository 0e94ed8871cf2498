"""Repeated tool calls against a real dsh: denied before they run, and the model is told why."""

from __future__ import annotations

from typing import Any

from engine.scores import Snapshot

pytestmark = __import__("pytest").mark.integration


def _tool_texts(world: Any) -> list[str]:
    """Every tool message the model received, in order (from the mock's request log)."""
    last = world.mock.main_requests()[-1]["body"]["messages"]
    return [str(m.get("content")) for m in last if m.get("role") == "tool"]


async def test_fifth_cosmetic_repeat_is_denied_before_it_runs(run_factory: Any) -> None:
    run = await run_factory("tool-loop")
    await run.turn("Read notes.txt")
    kinds = [v.verdict.kind for v in run.verdicts()]
    assert kinds == ["allow"] * 4 + ["deny", "deny"]
    denied = run.verdicts()[4].verdict
    assert [h.fp for h in denied.hits] == ["cmd:cat:cat notes.txt; echo ran >> calls.log", "sink:calls.log"]
    # the command appends to calls.log each time it really runs: four runs, not six
    assert (run.world.workspace / "calls.log").read_text().count("ran") == 4
    texts = _tool_texts(run.world)
    assert len(texts) == 6
    assert texts[4].startswith("Error: REPEAT_TOOL_BLOCKED:")
    assert "cmd:cat:cat notes.txt; echo ran >> calls.log 5/5" in texts[4]
    assert "Previous tool result:\nThe release is on Friday." in texts[4], "the model is shown what it already has"
    snap: Snapshot = run.session.breaker.snapshot()
    row = next(r for r in snap.agents[0].window if r.fingerprint == "sink:calls.log")
    assert row.count == 6 and row.hit


async def test_host_alias_ping_pong_is_caught_on_net(run_factory: Any) -> None:
    run = await run_factory("alias-ping-pong")
    await run.turn("Fetch the dataset")
    vs = run.verdicts()
    assert [v.verdict.kind for v in vs[:5]] == ["allow"] * 4 + ["deny"]
    hits = [h.fp for h in vs[4].verdict.hits]
    assert "net:open.canada.ca/data/x.csv" in hits and "sink:data.csv" in hits
    assert not any(h.startswith("exact:") for h in hits), "the spellings differ, only the resource repeats"
    assert "REPEAT_TOOL_BLOCKED" in _tool_texts(run.world)[4]


async def test_failing_call_is_steered_then_denied(run_factory: Any) -> None:
    run = await run_factory("failing-tool")
    await run.turn("Run the script")
    from wrapper.items import ResultItem

    results = run.of(ResultItem)
    assert results[0].rewrite is None and results[0].is_error
    assert results[1].rewrite is not None and results[1].rewrite.reason == "steer"
    kinds = [(v.verdict.kind, v.verdict.source) for v in run.verdicts()]
    assert kinds[3] == ("deny", "failure"), kinds
    texts = _tool_texts(run.world)
    assert "[thinking-breaker] The tool" in texts[1] and "ZeroDivisionError" in texts[1]
    assert "Blocked by thinking-breaker" in texts[3]
