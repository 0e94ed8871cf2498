"""An agent's own ask that reaches the person says it is the agent's own: breaker-tui's check found no repeat.

Gemini CLI's demo keeps its default mode, which asks before shell commands (its one allow-all is the
`--yolo` flag, and its `tools.allowed` makes it run a listed call without asking at all), so its asks
reach the person: each must read as Gemini's own, and the breaker's local-address ask as the breaker's.
Gemini runs it: the one demo whose agent's own asks reach the person, and the cheapest start.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.acp_helpers import need
from tests.integration.runs import READY_S, open_run, running, scripted
from tui.demo import DemoWorld
from wrapper.mock.scenarios import SCENARIOS
from wrapper.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


async def test_geminis_own_asks_reach_the_person_named_as_its_own_and_the_repeat_as_the_breakers(
    tmp_path: Path,
) -> None:
    need("gemini")
    world = DemoWorld("dev-server-loop", "gemini")
    try:
        assert world.build(lambda _: None) == "" and world.world is not None
        run = open_run(world.argv, world.world, Settings(), scripted(None, "deny"), tmp_path / "r.jsonl")
        async with running(run, READY_S):
            await run.turn(SCENARIOS["dev-server-loop"][1])
            theirs = [q.reason for q in run.questions if not q.from_breaker]
            assert len(theirs) == 4, [q.reason[:100] for q in run.questions]  # the four polls, Gemini's default
            own = "(its own ask: breaker-tui's check found no repeat; its options: "
            assert all(r.startswith("gemini asks permission for: curl ") and own in r for r in theirs), theirs
            ours = [q for q in run.questions if q.from_breaker]
            assert ours and all(q.local and "its own ask" not in q.reason for q in ours), ours
    finally:
        world.close()
