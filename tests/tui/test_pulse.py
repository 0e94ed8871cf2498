"""A silent model is never shown as a frozen `working…`: the turn's clock ticks, the streamed count
grows, and a silence is named. The clock is a fake one the test moves, so nothing waits.
"""

from __future__ import annotations

import pytest

from engine import events as ev
from tests.conftest import wait_until
from tests.tui import scripts as S
from tests.tui.conftest import running, text_of
from tui.widgets.pulse import SILENT_AFTER_S, Pulse, seconds
from wrapper.items import EngineItem, StatusItem


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_clock_starts_with_the_work_counts_the_stream_and_names_a_silence() -> None:
    clock = FakeClock()
    p = Pulse(clock=clock)
    assert p.parts() == [], "idle: nothing to say"
    p.busy(True)
    clock.now += 3
    p.saw(EngineItem(ev.AnswerDelta("a", "x" * 400)))
    assert [t for t, _ in p.parts()] == ["working 3s", "~100 tok"]
    clock.now += SILENT_AFTER_S + 2
    texts = dict(p.parts())
    assert "working 15s" in texts and texts["nothing from the model for 12s"] is True
    p.saw(StatusItem("started", ""))  # any sign of life ends the silence
    assert len(p.parts()) == 2
    p.busy(False)
    assert p.parts() == []


def test_a_question_waiting_for_the_person_is_not_the_model_s_silence() -> None:
    """Minutes with the approval modal open read as `nothing from the model for 2m13s`: the agent was
    held for the person, so the wait is theirs, and the silence counts again from the answer.
    """
    clock = FakeClock()
    p = Pulse(clock=clock)
    p.busy(True)
    clock.now += 5
    p.asking(True)
    clock.now += 133
    texts = [t for t, _ in p.parts()]
    assert texts == ["working 2m18s", "waiting for your answer 2m13s"], texts
    assert p.silent_for() == 0
    p.asking(False)  # answered
    clock.now += 3
    assert [t for t, _ in p.parts()] == ["working 2m21s"]
    clock.now += SILENT_AFTER_S
    assert dict(p.parts())["nothing from the model for 13s"] is True, "counted from the answer"


def test_durations_stay_short() -> None:
    assert [seconds(s) for s in (7, 65, 3720)] == ["7s", "1m05s", "1h02m"]


@pytest.mark.tui
async def test_the_status_line_ticks_while_the_model_is_silent() -> None:
    clock = FakeClock()
    async with running([S.ready(), *S.turn(1, "hello")], size=(120, 30)) as (app, src, _pilot):
        app.pulse = Pulse(clock=clock)
        src.info.busy, src.info.child = True, "running"
        app.refresh_view()
        await wait_until(lambda: "working 0s" in text_of(app.w_status), 5, "the clock on the status line")
        src.feed(S.answer("word " * 40))
        clock.now += 4
        await wait_until(lambda: "~50 tok" in text_of(app.w_status), 5, "the streamed count")
        assert "working 4s" in text_of(app.w_status)
        clock.now += SILENT_AFTER_S + 1
        app.refresh_view()
        await wait_until(lambda: "nothing from the model for 11s" in text_of(app.w_status), 5, "the silence named")


@pytest.mark.tui
async def test_an_agent_that_takes_long_to_open_its_session_is_timed_until_it_has() -> None:
    clock = FakeClock()
    async with running([], size=(120, 30)) as (app, src, _pilot):
        app.pulse = Pulse(clock=clock)
        src.info.child = "running"
        clock.now += 7
        app.refresh_view()
        await wait_until(lambda: "starting 7s" in text_of(app.w_status), 5, "the start clock")
        src.feed(S.ready())
        await wait_until(lambda: "starting" not in text_of(app.w_status), 5, "the session open")
