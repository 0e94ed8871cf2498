"""Smoke tests for the other ACP agents (Codex, Gemini CLI): launch, prompt, a streamed tool call refused, cancel."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import events as ev
from tests.integration.acp_helpers import acp_run, group_gone

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
SMOKE = ("codex", "gemini")


@pytest.mark.parametrize("agent", SMOKE)
async def test_prompt_stream_and_a_refused_repeat(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "tool-loop", tmp_path) as run:
        await run.turn("Read notes.txt.")
        assert run.events(ev.ReasoningDelta), "no reasoning streamed"
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
        ran = (run.world.workspace / "calls.log").read_text().splitlines()
        assert len(ran) == kinds.count("allow")


@pytest.mark.parametrize("agent", SMOKE)
async def test_cancel_and_no_orphans(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "hang", tmp_path) as run:
        s = run.session
        await run.cancel_hanging_turn()
        pgid = s.proc.pgid if s.proc else None
    assert pgid is not None and group_gone(pgid)
