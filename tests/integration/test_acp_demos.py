"""A demo plays its scenario through a real agent the way a person's own agent would run it.

The demo's private home holds the agent's own default settings (`Preset.demo_defaults`), which answer
the asks breaker-tui makes the agent send, so only the breaker's own asks reach the person.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.acp_helpers import need
from tests.integration.runs import READY_S, open_run, running, scripted
from tui.demo import DemoWorld
from wrapper.mock.scenarios import SCENARIOS
from wrapper.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]


# Each agent's defaults are its own (`Preset.demo_defaults`); the sweep above holds every agent to them. This
# one is quick, on Claude Code (the cheapest start, and it asks before every command).
async def test_a_demo_answers_the_agents_own_asks_and_the_breakers_ask_reaches_the_person(tmp_path: Path) -> None:
    need("claude")
    world = DemoWorld("dev-server-loop", "claude")
    try:
        assert world.build(lambda _: None) == "" and world.world is not None
        run = open_run(world.argv, world.world, Settings(), scripted(None, "deny"), tmp_path / "r.jsonl")
        async with running(run, READY_S):
            await run.turn(SCENARIOS["dev-server-loop"][1])
            asked = [(q.from_breaker, q.local) for q in run.questions]
            assert asked and all(a == (True, True) for a in asked), asked  # the local-address ask, only
            allowed = [a for a in run.answers() if a.by == "policy" and a.answer == "allow-once"]
            assert len(allowed) == 4, (
                run.answers()
            )  # claude asked about the four polls before it: its defaults said yes
    finally:
        world.close()
