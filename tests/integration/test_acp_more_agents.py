"""Smoke tests for the agents added after the first four (Qwen Code, Kilo Code): the real agent, the mock model.

Each: launch, prompt, streamed reasoning, one tool call asked about and run, the 5th cosmetic repeat refused
before it ran (each of these agents asks before a shell command once its preset is applied); Qwen Code also
cancel, and no process of the agent's group left behind. Qwen Code's prompt and refused repeat are checked in
the first session of test_acp_sessions.py's resume test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import events as ev
from tests.integration.acp_helpers import acp_run, group_gone

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


# Qwen Code's run of this test is the first session of test_acp_sessions.py's resume test (the same scenario,
# prompt and checks): its start costs 3-4 s of CPU, and that test starts it three times already.
@pytest.mark.parametrize("agent", ["kilo"])
async def test_prompt_stream_and_a_refused_repeat(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "tool-loop", tmp_path) as run:
        await run.turn("Read notes.txt.")
        assert run.events(ev.ReasoningDelta), "no reasoning streamed"
        assert run.questions, "the agent never asked before a tool call (its preset did not make it ask)"
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
        ran = (run.world.workspace / "calls.log").read_text().splitlines()
        assert len(ran) == kinds.count("allow"), "a refused call ran, or an allowed one did not"


# Not Kilo Code: it is opencode's fork, and how it takes a cancel and which processes it starts are opencode's
# code, run with opencode in test_acp_control.py and test_acp_no_survivors.py (a start of either costs 5-7 s of
# CPU). Its own preset (how it is made to ask, pointed at the mock model) is the test above.
@pytest.mark.parametrize("agent", ["qwen"])
async def test_cancel_and_no_orphans(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "hang", tmp_path) as run:
        s = run.session
        await run.cancel_hanging_turn()
        await run.turn("Say hello.")  # the session takes a new prompt after the cancel
        pgid = s.proc.pgid if s.proc else None
    assert pgid is not None and group_gone(pgid)
