"""The pictures: the window as bars against the cap line, the replay as a scrubber with its marks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.tui.conftest import text_of
from tests.tui.test_snapshots import _recording
from tui.app import create_app
from tui.player import ReplaySource
from tui.widgets.scrubber import KNOB, MARK, scrubber
from tui.widgets.window import BAR_CELLS, bar
from wrapper.records.sources import load
from wrapper.settings import Settings


def test_bars_fill_to_the_cap_line_in_the_same_column_for_every_cap() -> None:
    rows = [bar(c, cap) for c, cap in ((1, 5), (5, 5), (6, 5), (6, 12), (3, float("inf")))]
    assert {r.index("│") for r in rows[:4]} == {BAR_CELLS}, "one cap line, one column"
    assert rows[1] == "█" * BAR_CELLS + "│ " and rows[2].endswith("│▶"), "at the cap full; past it ▶"
    assert rows[3].startswith("████") and rows[3][4] != "█", "half of 12 is half the bar"
    assert "│" not in rows[4], "no line where there is no cap"


def test_the_scrubber_marks_each_intervention_and_the_position() -> None:
    s = scrubber(50, 100, [10, 90], 20)
    assert len(s) == 20 and s.count(MARK) == 2 and s.index(KNOB) == 9
    assert s[:9].strip("━◆") == "" and s[10:].strip("─◆") == "", s


@pytest.mark.tui
async def test_the_replay_status_line_is_a_scrubber_with_a_mark_at_each_denial(tmp_path: Path) -> None:
    settings = Settings()
    src = ReplaySource(load(_recording(tmp_path)), settings, speed=1.0, paused=True)
    app = create_app(src, settings)
    async with app.run_test(size=(130, 38)) as pilot:
        await wait_until(lambda: src.total > 0 and bool(src.player.marks), 10, "the player loaded")
        app.refresh_view()
        await wait_until(lambda: MARK in text_of(app.w_status), 5, "the marks ahead on the scrubber")
        assert KNOB not in text_of(app.w_status), "nothing played yet"
        await pilot.press("n")
        await wait_until(lambda: src.position == src.player.marks[0], 5, "the first denial")
        app.refresh_view()
        await wait_until(lambda: KNOB in text_of(app.w_status), 5, "the knob at the denial")


def test_the_timeline_ticks_each_step_and_marks_each_verdict_and_trip() -> None:
    from engine import events as ev
    from engine.verdicts import Verdict
    from tui.widgets.timeline import Timeline
    from wrapper.items import EngineItem, VerdictItem

    t = Timeline()
    assert t.text(40) == ""
    t.saw(EngineItem(ev.TurnStart("a", 2)))
    for kind in ("allow", "allow", "deny"):
        t.saw(EngineItem(ev.StepStart("a", 2, 1)))
        t.saw(VerdictItem("a", "c", "bash", {}, Verdict(kind, "r")))
    assert t.text(40) == "turn 2 │✓│✓│✗"
    assert t.text(11) == "turn 2 …✓│✗", "the newest part is kept, in 11 cells"


@pytest.mark.tui
async def test_the_window_panel_title_is_the_turns_timeline() -> None:
    from tests.tui import scripts
    from tests.tui.conftest import make, settle

    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        app.refresh_view()
        await wait_until(lambda: "✗" in str(app.w_window.border_title), 5, "the denials on the timeline")
        title = str(app.w_window.border_title)
        assert title.startswith("window · turn 1 │") and title.count("✓") == 4 and title.count("✗") == 2, title
