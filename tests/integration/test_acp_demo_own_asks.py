"""Kilo's and Qwen Code's own settings answer their own asks: in the demo, and as a person sets them.

Each agent's demo home is its own (`Preset.demo_defaults`), read by its own reader (`own.py`): Kilo's shell
table allows its commands, Qwen's approval mode is `yolo`. Both still ask (breaker-tui makes them), so the
repeat check runs before each call, and only the breaker's local-address ask reaches the person. A person's
own allow-all (Kilo's inline `permission`, Qwen's `--yolo`) runs the work without a question while the 5th
cosmetic repeat is still refused before it runs. Each agent runs because what its settings say, and whether
it still asks under them, is its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.acp_helpers import acp_run, need
from tests.integration.runs import READY_S, open_run, running, scripted
from tui.demo import DemoWorld
from wrapper.items import ApprovalItem
from wrapper.mock.scenarios import SCENARIOS
from wrapper.mock.world import World
from wrapper.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.mark.parametrize("agent", ["kilo", "qwen"])
async def test_the_demo_answers_the_agents_own_asks_and_the_breakers_ask_reaches_the_person(
    agent: str, tmp_path: Path
) -> None:
    need(agent)
    world = DemoWorld("dev-server-loop", agent)
    try:
        assert world.build(lambda _: None) == "" and world.world is not None
        run = open_run(world.argv, world.world, Settings(), scripted(None, "deny"), tmp_path / "r.jsonl")
        async with running(run, READY_S):
            await run.turn(SCENARIOS["dev-server-loop"][1])
            asked = [(q.from_breaker, q.local, q.reason[:100]) for q in run.questions]
            assert asked and all(a[:2] == (True, True) for a in asked), asked  # the local-address ask, only
            allowed = [a for a in run.answers() if a.by == "policy" and a.answer == "allow-once"]
            assert len(allowed) == 4, run.answers()  # the four polls before it: its demo settings said yes
            assert all(f"your {agent} settings" in a.why for a in allowed), allowed
    finally:
        world.close()


def _kilo_allows_all(world: World) -> None:
    """The person's inline Kilo config allows commands and edits (the mock provider stays beside it)."""
    cfg = json.loads(world.env["KILO_CONFIG_CONTENT"])
    cfg["permission"] = {"bash": "allow", "edit": "allow"}
    world.env["KILO_CONFIG_CONTENT"] = json.dumps(cfg)


@pytest.mark.parametrize(
    ("agent", "typed", "why"), [("kilo", [], "KILO_CONFIG_CONTENT"), ("qwen", ["--yolo"], "--yolo")]
)
async def test_the_persons_allow_all_answers_every_ask_and_the_5th_repeat_is_refused_before_it_runs(
    agent: str, typed: list[str], why: str, tmp_path: Path
) -> None:
    write = _kilo_allows_all if agent == "kilo" else None
    async with acp_run(agent, "stubborn-loop", tmp_path, command=[agent, *typed], before=write) as run:
        await run.turn("Read notes.txt.", timeout=300)
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
        assert run.questions == [], "their allow-all settings still asked"
        answered = [i for i in run.items if isinstance(i, ApprovalItem) and i.answer is not None]
        assert len(answered) >= 4 and all(a.by == "policy" and why in a.why for a in answered[:4]), answered[:4]
        ran = (run.world.workspace / "calls.log").read_text().splitlines()
        assert len(ran) == 4, "a refused repeat ran"
