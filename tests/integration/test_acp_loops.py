"""Loops in real ACP agents (opencode, Claude Code) against the mock model: refused, cancelled, re-prompted.

Each start of opencode costs about 5 s of CPU (Node and its bundle), Claude Code's about 1.5 s. A loop whose
handling differs per agent (how it asks, how its calls and reasoning arrive, how it takes a cancel) runs on
both; a loop whose difference from another is the engine's alone runs on Claude Code, and says why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import events as ev
from tests.integration.acp_helpers import AGENTS, acp_run
from wrapper.harness.acp.replay import AcpReplayer
from wrapper.harness.registry import replayer_for
from wrapper.records.replay import finding
from wrapper.records.sources import load
from wrapper.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.mark.parametrize("agent", AGENTS)
async def test_cosmetic_tool_loop_is_refused_at_the_fifth_call_and_its_recording_replays(
    agent: str, tmp_path: Path
) -> None:
    async with acp_run(agent, "tool-loop", tmp_path) as run:
        await run.turn("Read notes.txt.")
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
        denied = [v for v in run.verdicts() if v.verdict.kind == "deny"]
        assert "REPEAT_TOOL_BLOCKED" in denied[0].verdict.message
        assert any("reject_once" in s.text for s in run.status("notice")), "the refusal is not shown"
        # the agent asked about every call: four went to the person, the repeats were refused without asking
        assert len(run.questions) == 4
        ran = (run.world.workspace / "calls.log").read_text().splitlines()
        assert len(ran) == kinds.count("allow"), "a refused call ran anyway"
        assert run.events(ev.TurnEnd)[-1].reason == "end_turn"
        live = [(v.call_id, v.verdict.kind) for v in run.verdicts()]
    # the recording of this run replays (scan) to the live decisions: the agent's own frames, read back
    r = replayer_for(load(run.recording), Settings())
    assert isinstance(r, AcpReplayer)
    found = [f for f in (finding(step.item) for step in r.steps()) if f is not None]
    assert r.mismatches == []
    assert [(f["callId"], f["verdict"]) for f in found if f["kind"] == "verdict"] == live
    assert any(f["kind"] == "verdict" and f["verdict"] == "deny" for f in found)


# opencode runs this loop in test_acp_control.py's `--no-tui` test (the same scenario and prompt, through the
# headless runner, with the follow-up checked at the mock model): one start of it covers both.
@pytest.mark.parametrize("agent", ["claude"])
async def test_read_only_loop_that_never_asks_is_cancelled_with_one_followup(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "read-loop", tmp_path) as run:
        await run.turn("Read notes.txt.")
        assert run.questions == [], "reads should not ask"
        assert any(v.verdict.kind == "deny" for v in run.verdicts())
        followups = run.followups()
        assert len(followups) == 1, followups
        assert "exact:read:" in followups[0] and "Do not run it again" in followups[0]
        assert "stopped re-reading" in run.answer_text()
        assert len(run.events(ev.TurnEnd)) == 1, "the follow-up belongs to the same turn"
        asked = [r for r in run.world.mock.requests if "[breaker-tui]" in str(r["body"].get("messages"))]
        assert asked, "the follow-up never reached the model"


@pytest.mark.parametrize("agent", AGENTS)
async def test_looping_reasoning_is_cancelled_and_reprompted_once(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "reasoning-loop", tmp_path) as run:
        await run.turn("Check the adapter.")
        trips = run.trips()
        assert len(trips) == 1 and "follow-up prompt" in trips[0].sent, trips
        assert len(run.followups()) == 1 and "without re-deliberating" in run.followups()[0]
        assert "Answering directly" in run.answer_text()
        assert len(run.events(ev.TurnEnd)) == 1


# The agent's side of a second trip is the first trip's cancel again (run on both agents above); that it is
# not re-prompted is the monitor's choice: one agent.
@pytest.mark.parametrize("agent", ["claude"])
async def test_reasoning_that_loops_again_is_only_cancelled(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "reasoning-loop-twice", tmp_path) as run:
        await run.turn("Check the adapter.")
        sent = [t.sent for t in run.trips()]
        assert "follow-up prompt" in sent[0] and "over to you" in sent[1], sent
        assert len(run.followups()) == 1, "a second trip in the turn must not re-prompt"
        assert len(run.events(ev.TurnEnd)) == 1


# The agent runs each fetch as a shell command, as in the tool loop (both agents); that the spellings are one
# fetch is the engine's reading of the commands: one agent.
@pytest.mark.parametrize("agent", ["claude"])
async def test_a_cosmetic_fetch_echoing_its_spelling_is_refused_at_the_fifth(agent: str, tmp_path: Path) -> None:
    # one export in cosmetic spellings (tracking parameters, host case, `www.`, curl <-> wget, flags); each
    # failure names the host as spelled, which is the call's own echo: four run, the 5th is refused
    async with acp_run(agent, "cosmetic-fetch", tmp_path) as run:
        await run.turn("Fetch the weekly export.")
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
