"""Looping and degenerate reasoning streams against a real dsh: aborted, retried with thinking off, then terminal."""

from __future__ import annotations

from typing import Any

import pytest

from engine import events as ev
from wrapper.items import EngineItem, TripItem

pytestmark = pytest.mark.integration


def _thinking(world: Any) -> list[str]:
    return [r["body"].get("thinking", {}).get("type", "?") for r in world.mock.main_requests()]


async def test_reasoning_loop_is_aborted_and_retried_with_thinking_off(run_factory: Any) -> None:
    run = await run_factory("reasoning-loop")
    await run.turn("Check the adapter")
    trips = run.of(TripItem)
    assert len(trips) == 1
    assert trips[0].trip.action == "abort_retry" and trips[0].trip.stream == "reasoning"
    assert trips[0].trip.rule in ("exact-repeat", "low-novelty")
    assert _thinking(run.world) == ["enabled", "disabled"], "the retried step ran with thinking off"
    ends = [i.event for i in run.of(EngineItem) if isinstance(i.event, ev.TurnEnd)]
    assert ends[-1].reason == "completed"
    answer = "".join(i.event.text for i in run.of(EngineItem) if isinstance(i.event, ev.AnswerDelta))
    assert "Answering directly" in answer


async def test_second_trip_in_a_turn_is_terminal(run_factory: Any) -> None:
    run = await run_factory("reasoning-loop-twice")
    await run.turn("Check the adapter")
    actions = [t.trip.action for t in run.of(TripItem)]
    assert actions == ["abort_retry", "abort"]
    assert _thinking(run.world) == ["enabled", "disabled"], "no third request: the second abort ended the turn"
    ends = [i.event for i in run.of(EngineItem) if isinstance(i.event, ev.TurnEnd)]
    assert ends[-1].reason == "error"
    # the session keeps working: the next turn starts clean (thinking on again)
    run.world.mock.scenario = "normal"
    await run.turn("Say hello")
    assert _thinking(run.world)[-1] == "enabled"


async def test_star_flood_trips_the_degeneracy_lens(run_factory: Any) -> None:
    run = await run_factory("star-flood")
    await run.turn("Summarise the plan")
    trips = run.of(TripItem)
    assert trips and trips[0].trip.rule == "symbol-flood"
    assert "meaningless" in trips[0].trip.descriptor["evidence"]
    assert _thinking(run.world) == ["enabled", "disabled"]
