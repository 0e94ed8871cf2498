"""The demo's world gives an agent its own default settings; the tests' world keeps asking ones.

breaker-tui makes an agent ask before its commands and edits and answers each ask with the person's own
settings. In a demo those settings are the agent's defaults, so an agent whose defaults run the call
(`Preset.demo_defaults`) has its asks answered "allow" and only the breaker's own asks reach the person.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wrapper.harness.acp.presets import PRESETS, own_settings
from wrapper.harness.acp.world import make_acp_world
from wrapper.harness.registry import agent_world

ANSWERING = ["opencode", "claude", "codex"]  # their defaults run commands and edits (Gemini CLI's default asks)


@pytest.mark.parametrize("agent", ANSWERING)
def test_the_demo_world_answers_the_agents_own_asks_and_the_tests_world_asks(agent: str, tmp_path: Path) -> None:
    demo, careful = agent_world(agent, "normal"), make_acp_world(agent, "normal", tmp_path)
    try:
        for world, want in ((demo, "allow"), (careful, "ask")):
            own = own_settings(PRESETS[agent], world.env, str(world.workspace), [agent])
            assert own is not None
            assert own.decide("execute", "", "cat notes.txt") == want, (world.root, own.source)
            assert own.decide("edit", "", "") == want, (world.root, own.source)
    finally:
        demo.close()
        careful.close()
