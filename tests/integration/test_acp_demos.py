"""Every (scenario, agent) pair `breaker-tui demo` offers plays its scenario to the outcome it is listed for.

A demo is how a person first sees the breaker act; a pair that plays something else (the agent stops its
own loop first, or cannot follow the script and answers as if it had) teaches them the wrong thing. So
each pair is either refused up front (`demo_problem`, named by `demo --list`) or run here as the demo
runs it (its world built by `DemoWorld`, the real agent installed as a person installs it, the mock
model on 127.0.0.1) and held to its scenario's outcome in `OUTCOMES`. The person answers every question
"allow once"; where the agent's own defaults answer its asks (`Preset.demo_defaults`), only the breaker's
own asks may reach them.

Every agent runs every scenario: how an agent follows a script is the agent's own (its tools, its loop
guard, its reasoning stream), so no pair stands for another. The whole table is one slow sweep; an
agent that is not installed is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import events as ev
from tests.integration.acp_helpers import need
from tests.integration.runs import READY_S, Run, open_run, running, scripted
from tui.demo import DemoWorld, demo_problem
from wrapper.harness.acp.presets import PRESETS, own_settings
from wrapper.harness.registry import known_agents
from wrapper.items import CallItem, EngineItem, PlanItem, StatusItem, VerdictItem
from wrapper.mock.scenarios import SCENARIOS
from wrapper.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(400)]

Outcome = Callable[[Run[Any]], str]  # "" when the run reached the scenario's outcome, else what it missed


def _denied(run: Run[Any]) -> str:
    return "" if any(v.verdict.kind == "deny" for v in run.verdicts()) else "the breaker denied nothing"


def _tripped(n: int = 1) -> Outcome:
    def check(run: Run[Any]) -> str:
        return "" if len(run.trips()) >= n else f"{len(run.trips())} reasoning trip(s), wanted {n}"

    return check


def _answered(text: str, clean: bool = False) -> Outcome:
    def check(run: Run[Any]) -> str:
        if text not in run.answer_text():
            return f"the answer lacks {text!r}: {run.answer_text()[-200:]!r}"
        return "a call was denied" if clean and _denied(run) == "" else ""

    return check


def _asked_locally(run: Run[Any]) -> str:
    return "" if any(q.from_breaker and q.local for q in run.questions) else "the breaker's local ask never came"


def _failed_at_the_provider(run: Run[Any]) -> str:
    ends = run.events(ev.TurnEnd)
    errors = [s for s in run.of(StatusItem) if s.kind in ("error", "warning") and "500" in s.text]
    return "" if errors or (ends and ends[-1].reason not in ("end_turn", "completed")) else "no provider error shown"


def _planned_and_edited(run: Run[Any]) -> str:
    plans = run.of(PlanItem)
    if not plans or len(plans[-1].entries) != 3:
        return f"no three-step plan: {plans[-1:]}"
    if not any(d.path.endswith("notes.txt") for c in run.of(CallItem) for d in c.diffs):
        return "no diff of notes.txt"
    if "on Monday" not in (run.workspace / "notes.txt").read_text():
        return "notes.txt was not edited"
    return _answered("now on Monday")(run)


def _stalled(run: Run[Any]) -> str:
    return "" if run.events(ev.ReasoningDelta) else "the stream never started"


def _ran_long(run: Run[Any]) -> str:
    return "" if run.of(CallItem) or run.verdicts() else "the long job never started"


GLUE = re.compile(r"\w[.!?][A-Z]\w")  # one thought's last sentence run into the next's first: "first.Now"


def glued(run: Run[Any]) -> list[str]:
    """Where the reasoning shown between two calls runs one step's thought into the next with no space."""
    found, shown = [], ""
    for item in run.items:
        event = item.event if isinstance(item, EngineItem) else None
        if isinstance(event, ev.ReasoningDelta):
            shown += event.text
        elif isinstance(event, (ev.StepStart, ev.ToolCall)) or isinstance(item, (CallItem, VerdictItem)):
            found += [m.group() for m in GLUE.finditer(shown)]
            shown = ""
    return found + [m.group() for m in GLUE.finditer(shown)]


OUTCOMES: dict[str, Outcome] = {
    "normal": _answered("Hello from the mock model", clean=True),
    "tool-loop": _denied,
    "stubborn-loop": _denied,
    "alias-ping-pong": _denied,
    "dev-server-loop": _asked_locally,
    "reasoning-loop": _tripped(),
    "reasoning-loop-twice": _tripped(2),
    "reasoning-loop-es": _tripped(),
    "sparkle-flood": _tripped(),
    "edit-check-cycle": _answered("All checks pass", clean=True),
    "same-check-six": _denied,
    "star-flood": _tripped(),
    "failing-tool": _denied,
    "read-loop": _denied,
    "http-500": _failed_at_the_provider,
    "hang": _stalled,
    "plan-and-edit": _planned_and_edited,
    "code-mode-loop": _denied,
    "growing-log-read": _answered("The build is progressing", clean=True),
    "counter-retry": _denied,
    "cosmetic-fetch": _denied,
    "sleeper": _ran_long,
}
WAITS = {"hang", "sleeper", "http-500"}  # the scenario may wait for the person's cancel (see `_play`)

PAIRS = [(s, a) for s in SCENARIOS for a in (None, *known_agents())]
IDS = [f"{s}-{a or 'dsh'}" for s in SCENARIOS for a in (None, *known_agents())]


def test_every_scenario_has_an_outcome() -> None:
    assert sorted(OUTCOMES) == sorted(SCENARIOS)


async def _play(run: Run[Any], scenario: str) -> None:
    """Send the scenario's prompt and wait for its turn to end; one that waits for the person (a stall, a long
    call, a provider an agent retries) is cancelled once its outcome shows, as the person would.
    """
    prompt = SCENARIOS[scenario][1]
    if scenario not in WAITS:
        await run.turn(prompt)
        return
    s = run.session
    before = s.turns_done
    assert await s.prompt(prompt)
    await run.until(lambda: OUTCOMES[scenario](run) == "" or s.turns_done > before, 120, f"{scenario} to show")
    if s.turns_done == before:
        assert await s.cancel()
        assert await s.wait_turn_end(before, 120), "the cancel did not end the turn"


@pytest.mark.parametrize(("scenario", "agent"), PAIRS, ids=IDS)
async def test_each_offered_pair_reaches_its_outcome_or_is_refused(
    scenario: str, agent: str | None, tmp_path: Path
) -> None:
    if why := demo_problem(scenario, agent):
        assert len(why) > 20, why  # refused up front, with its reason
        return
    if agent is not None:
        need(agent)
    world = DemoWorld(scenario, agent)
    try:
        if why := world.build(lambda _: None):
            pytest.skip(why)  # dsh could not be installed here
        assert world.world is not None
        run = open_run(world.argv, world.world, Settings(), scripted(None, "allow-once"), tmp_path / "rec.jsonl")
        async with running(run, READY_S):
            await _play(run, scenario)
            missed = OUTCOMES[scenario](run)
            assert not missed, f"{scenario} with {agent or 'dsh'}: {missed}"
            assert glued(run) == [], "reasoning of two steps shown as one run-on text"
            own = own_settings(PRESETS[agent], world.world.env, str(world.world.workspace), [agent]) if agent else None
            if own is not None and own.decide("execute", "", "true") == own.decide("edit", "", "") == "allow":
                theirs = [q.reason[:120] for q in run.questions if not q.from_breaker]
                assert theirs == [], "the agent's own asks reached the person, though its defaults answer them"
    finally:
        world.close()


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
