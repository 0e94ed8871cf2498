"""The screen fits and stays true: decisions on one line, the window at 60x20, panels current, gutters kept."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.command import CommandPalette
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import DataTable

from engine import events as ev
from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import cut_sideways, make, settle, text_of
from tests.tui.test_modes import SCREENS, footer
from tui.app import create_app
from tui.screens.approval import ApprovalScreen
from tui.screens.call import CallScreen, ConfirmScreen, StepsScreen
from tui.screens.help import HelpScreen
from tui.screens.sessions import SessionsScreen
from tui.sources import ScriptedSource
from tui.widgets.line import Line
from wrapper.items import EngineItem
from wrapper.settings import Settings


async def test_denials_go_to_one_notice_line_not_a_stack_of_toasts() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, src, pilot)
        assert not [n for n in app._notifications if "denied" in n.message], "no toast per denial"
        notice = app.w_notice
        assert notice.display and notice.region.height == 1
        text = text_of(notice)
        assert "⛔ denied bash (repeat)" in text and "2 this turn" in text, text
        assert notice.region.bottom <= app.w_prompt.region.y, "the notice sits above the prompt, not over the stream"
        src.feed(*scripts.turn(2, "next"))
        await wait_until(lambda: not notice.display, 5, "a new turn starts the notice over")


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_ctrl_b_shows_the_window_and_the_scores_in_full_on_a_narrow_terminal(size: tuple[int, int]) -> None:
    app, src = make(scripts.tool_loop())
    w, h = size
    async with app.run_test(size=size) as pilot:
        await settle(app, src, pilot)
        await pilot.press("ctrl+b")
        await wait_until(lambda: app.main.has_class("stacked") and app.w_window.region.height > 0, 5, "panel view")
        app.refresh_view()
        table = app.query_one("#window", DataTable)
        await wait_until(lambda: table.row_count > 0, 5, "the window's rows")
        win, scores = table.region, app.w_scores.region
        assert win.height >= 5 and win.bottom <= scores.y, (win, scores)
        assert scores.bottom <= app.w_prompt.region.y <= h, (scores, app.w_prompt.region)
        assert win.right <= w and scores.right <= w
        assert cut_sideways(app.screen) == [], "a fingerprint too long for the panel ends in `…`, not out of sight"
        assert "ctrl+q" in footer(app.screen).values()
        await pilot.press("ctrl+b")
        await wait_until(lambda: app.w_stream.region.height > 0, 5, "the stream back")


async def test_the_scores_panel_follows_the_turn_and_the_width() -> None:
    msgs = [*scripts.tool_loop(), *scripts.turn(2, "again"), scripts.reasoning("more", turn=2)]
    app, src = make(msgs)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        title = app.query_one("#scores-title")
        await wait_until(lambda: "turn 2" in text_of(title), 5, "the scores at turn 2")
        assert "turn 2" in text_of(app.w_status)
        before = text_of(app.query_one("#rep"))
        await pilot.resize_terminal(110, 40)
        await wait_until(lambda: text_of(app.query_one("#rep")) != before, 5, "bars redrawn for the new width")


async def test_the_trip_banner_ends_with_its_turn() -> None:
    app, src = make(scripts.reasoning_loop())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        assert app.w_banner.has_class("tripped")
        assert "esc cancel" in text_of(app.w_banner) and "ctrl+k kill" in text_of(app.w_banner)
        app._receive(EngineItem(ev.TurnEnd(scripts.SID, 1, "completed")))
        await wait_until(lambda: not app.w_banner.has_class("tripped"), 5, "the banner to go")


@pytest.mark.parametrize("size", [(60, 20), (120, 40)])
async def test_a_trip_moves_nothing_on_the_screen(size: tuple[int, int]) -> None:
    """The trip's banner takes the title row: no row appears, so nothing is laid out again (a layout
    pass of the whole screen stalled a fast stream for 40-90 ms on 2 cores) and the stream keeps its rows.
    """
    app, src = make([scripts.ready(), *scripts.turn(1, "Check the adapter")])
    async with app.run_test(size=size) as pilot:
        await settle(app, src, pilot)
        assert "breaker-tui" in text_of(app.w_banner), "the title row shows the title"
        regions = {w.id: w.region for w in app.main.query("*") if w.id and w.display}
        for msg in scripts.reasoning_loop()[2:]:
            src.feed(msg)
        await wait_until(lambda: app.w_banner.has_class("tripped"), 10, "the trip")
        await settle(app, src, pilot)
        assert "TRIP" in text_of(app.w_banner)
        banner = app.w_banner
        row = banner.render_lines(Region(0, 0, banner.size.width, 1))[0].text
        assert "TRIP" in row and "esc cancel" in row and "ctrl+k kill" in row, f"the keys shown at {size}: {row!r}"
        after = {w.id: w.region for w in app.main.query("*") if w.id and w.display}
        assert after == regions, "no widget moved or appeared for the trip"
        app._receive(EngineItem(ev.TurnEnd(scripts.SID, 1, "completed")))
        await wait_until(lambda: "breaker-tui" in text_of(app.w_banner), 5, "the title back")


async def test_wrapped_lines_keep_their_gutter() -> None:
    long = "I need to verify the adapter accepts this reasoning effort value and check it again. " * 3
    app, src = make([scripts.ready(), *scripts.turn(1, "x"), scripts.reasoning(long + "\n"), scripts.answer("ok")])
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(app, src, pilot)
        rows = [r.text for r in app.w_stream._log.lines]
        body = [r for r in rows if "adapter" in r or "again" in r or "reasoning effort" in r]
        assert len(body) > 2, rows
        start = rows.index(body[0])
        block = rows[start : start + len(body)]
        assert all(r.startswith("│ ") for r in block), block


@pytest.mark.parametrize("width", [100, 120])
async def test_the_scores_panel_keeps_its_labels_whole_at_100_columns(width: int) -> None:
    """At 100 columns Rich cut the labels with the values (`reason… 29 / 120,000 chars`, `local n…`)."""
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(app, src, pilot)

        def shown() -> str:  # each line as drawn: at its own width (`text_of` renders 200 wide)
            out = []
            for line in app.w_scores.query(Line):
                console = Console(width=line.content_region.width, record=True, file=io.StringIO())
                console.print(line.content)
                out.append(console.export_text())
            return "\n".join(out)

        await wait_until(lambda: "retries" in shown(), 5, "the scores")
        text = shown()
        assert "reason…" not in text and "local n…" not in text, text
        assert "denied 2 · asked 0" in text, text
        for label in ("reasoning", "trips", "tools"):
            line = next(row for row in text.splitlines() if row.lstrip().startswith(label))
            assert line.rstrip()[-1] != "…", f"{label}'s row is cut: {line!r}"


# -- every screen at 60x20: its key lines in view as it opens, without scrolling --------------------------------


LONG = "cat notes.txt; echo ran >> calls.log"  # the tool-loop demo's call: its rows wrapped at 60 columns


def _steps_of_a_dsh_loop(tmp_path: Path) -> Any:
    """The steps of dsh calls whose rows are longer than 60 columns (an ACP script's rows are short)."""
    msgs = [scripts.ready(), *scripts.turn(1, "Run the tests")]
    for n in range(3):
        msgs += scripts.call(
            n,
            "bash",
            {"command": LONG + " " * n},
            result="\n".join(f"test_{i} FAILED" for i in range(15)),
            is_error=n == 2,
        )
    app, src = make(msgs)

    async def open_it(pilot: Any) -> None:
        await settle(app, src, pilot)
        await pilot.press("ctrl+g")
        await wait_until(lambda: isinstance(app.screen, StepsScreen), 5, "the steps on top")

    return app, src, open_it


async def _opener(kind: type[Screen[Any]], tmp_path: Path) -> Any:
    if kind is StepsScreen:
        return _steps_of_a_dsh_loop(tmp_path)
    return await SCREENS[kind](tmp_path)


# what a person opens each screen for: seen whole on the screen the moment it is up
KEY_LINES: dict[type[Screen[Any]], list[str]] = {
    ApprovalScreen: ["net:127.0.0.1:3000/health", "5/5", "d · deny this call"],  # why it asks, and the way out
    HelpScreen: ["keys · live mode", "enter", "esc close"],
    CallScreen: ["$ ./checklist.sh ✔ · 13 lines", "esc closes"],
    StepsScreen: ["✔ · 15 lines", "✘ · 15 lines", "3 calls"],
    SessionsScreen: ["past sessions", "esc close"],
    ConfirmScreen: ["switch to a mode that never asks?", "Yes (y)", "No (n)"],
    CommandPalette: ["Search for commands"],
}


def _on_screen(app: Any) -> list[str]:
    """The rows the terminal shows now, as text (the screen's compositor: what is drawn, scrolled as it is)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def test_every_screen_the_app_pushes_has_its_key_lines() -> None:
    assert set(KEY_LINES) == set(SCREENS), "a screen without its key lines at 60x20"


@pytest.mark.parametrize("kind", list(KEY_LINES), ids=[c.__name__ for c in KEY_LINES])
async def test_at_60x20_every_screen_shows_its_key_lines_without_scrolling(
    tmp_path: Path, kind: type[Screen[Any]]
) -> None:
    app, _, open_it = await _opener(kind, tmp_path)
    async with app.run_test(size=(60, 20)) as pilot:
        await open_it(pilot)
        await pilot.pause()
        shown = KEY_LINES[kind]
        await wait_until(lambda: all(any(k in row for row in _on_screen(app)) for k in shown), 10, f"{shown} shown")
        screen = Region(0, 0, 60, 20)
        for w in app.screen.children:  # each box is inside the terminal: no border or button cut off
            if w.display and w.region.area:
                assert screen.contains_region(w.region), (w, w.region)
        assert cut_sideways(app.screen) == [], "nothing scrolls sideways at 60 columns"
        if kind is StepsScreen:
            rows = [row for row in _on_screen(app) if "$ cat notes.txt" in row]
            assert len(rows) == 3 and all("· 15 lines" in row for row in rows), "one row a call, its tail on it"


async def test_a_title_too_long_for_the_banner_keeps_its_start_on_the_row() -> None:
    """A replay's title is its file's name: wrapped, the banner's one row read `breaker-tui — replay:`."""
    s = Settings()
    name = "20261206-144655-dev-session-65c6d8bc-3f15-4a99-bec4-125f26890c2e.jsonl"
    src = ScriptedSource(scripts.tool_loop(), s, title=f"replay: {name}")
    app = create_app(src, s)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, src, pilot)
        app._clear_banner()
        await pilot.pause()
        top = _on_screen(app)[0]
        assert "replay: 20261206-144655-dev-session" in top and top.rstrip().endswith("…"), top


async def test_a_calls_long_output_wraps_at_60_columns_rather_than_scroll_sideways() -> None:
    msgs = [scripts.ready(), *scripts.turn(1, "Run it")]
    msgs += scripts.call(0, "bash", {"command": "./long.sh"}, result="x" * 150 + "\nshort")
    app, src = make(msgs)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(app, src, pilot)
        await pilot.press("ctrl+d")
        await wait_until(lambda: isinstance(app.screen, CallScreen), 10, "the call opened")
        await pilot.pause()
        assert cut_sideways(app.screen) == []
        assert any(row.count("x") > 40 for row in _on_screen(app)), "the long line is shown, wrapped"
