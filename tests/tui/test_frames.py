"""Frames: the stream is written once a frame (not once a batch), timed per line, its scrollbar
redrawn at a bounded rate, its rows sent without a copy, and the collector tuned while the app runs.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import random
import re
import time
from types import SimpleNamespace
from typing import Any

import pytest
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import running, stream_text
from tui.app import GC_YOUNG
from tui.screens.main import MainScreen
from tui.widgets import streamlog
from tui.widgets.compositor import FrameCompositor
from tui.widgets.streamlog import BAR_PERIOD_S, StreamLog


async def test_batches_arriving_between_frames_are_written_by_the_frame_once() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "go")], (100, 30)) as (app, src, _pilot):
        stream = app.w_stream
        main = app.screen
        assert isinstance(main, MainScreen) and main.frames_write
        asked, writes, frames = stream.frames_asked, stream.writes, main.frames
        for n in range(40):  # one item per batch: each is drained on its own
            src.feed(scripts.reasoning(f"piece{n} "))
            await asyncio.sleep(0)
        await wait_until(lambda: "piece39" in stream_text(app), 10, "the last piece on screen")
        batches = stream.frames_asked - asked
        assert batches >= 20, "the items came in many batches"
        assert stream.writes - writes <= main.frames - frames + 1, "the log is written once a frame at most"


async def test_with_another_screen_on_top_what_arrives_is_still_written() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "go")], (100, 30)) as (app, src, pilot):
        main = app.main
        await pilot.press("f1")  # a modal: the main screen is drawn beneath it, its frames still write
        await wait_until(lambda: not isinstance(app.screen, MainScreen), 10, "the help screen")
        src.feed(scripts.reasoning("under the help "))
        await wait_until(lambda: "under the help" in stream_text(app), 10, "written under the modal")
        app.pop_screen()
        await wait_until(lambda: app.screen is main, 10, "the help closed")
        await app.push_screen(Screen())  # the screen below the top one is still drawn (Textual) ...
        await app.push_screen(Screen())  # ... two whole screens on top: the main one is not
        await wait_until(lambda: not main.is_current, 10, "the main screen hidden")
        assert not main.frames_write
        src.feed(scripts.reasoning("behind a screen "))
        await wait_until(lambda: "behind a screen" in stream_text(app), 10, "written as it arrives")


async def test_arrivals_are_timed_to_the_line_their_text_ends_in() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "go")], (100, 30)) as (app, _src, _pilot):
        stream = app.w_stream
        log = stream._log
        log._tracked.clear()
        for text in ("alpha ", "one\n", "beta\n", "gamma"):  # three lines in one write
            stream.delta("reasoning", scripts.SID, text)
        stream.flush()
        rows = [row for row, _ in log._tracked]
        lines = log.lines
        assert len(rows) == 4
        assert "alpha one" in lines[rows[0] - log._first].text, "the first two end in the first line"
        assert rows[0] == rows[1]
        assert "beta" in lines[rows[2] - log._first].text, "the third in the second"
        assert rows[3] == log._first + log.row_count - 1 and rows[2] < rows[3], "the last on the open line"


async def test_a_following_log_redraws_its_scrollbar_at_a_bounded_rate_and_ends_right() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "go")], (80, 24)) as (app, _src, pilot):
        stream = app.w_stream
        log = stream._log
        for n in range(200):  # a scrollbar from the start
            stream.line(f"line {n}")
        stream.flush()
        await pilot.pause()
        before = log.bar_redraws
        frozen = time.perf_counter()
        with pytest.MonkeyPatch.context() as mp:  # all sixty inside one period, however slow the machine is
            mp.setattr(streamlog, "time", SimpleNamespace(perf_counter=lambda: frozen))
            for n in range(60):  # sixty writes, each growing the log: the thumb moves every time
                for k in range(5):
                    stream.line(f"more {n}.{k}")
                stream.flush()
        assert log.bar_redraws - before <= 1, f"{log.bar_redraws - before} redraws within {BAR_PERIOD_S}s"
        bar = log.vertical_scrollbar
        await wait_until(
            lambda: bar.window_virtual_size == log.virtual_size.height and bar.position == log.scroll_y,
            5,
            "the scrollbar in step with the log",
        )
        await wait_until(lambda: log.bar_current, 5, "the last redraw done, for the thumb the log has")


@pytest.mark.parametrize("script", ["tool_loop", "short"])
async def test_a_bare_log_sends_its_rows_as_the_styles_cache_would_draw_them(script: str) -> None:
    messages = scripts.tool_loop() if script == "tool_loop" else [scripts.ready(), *scripts.turn(1, "hi")]
    async with running(messages, (120, 40)) as (app, _src, _pilot):  # short: blank rows under the last
        log = app.query_one("#stream #log", StreamLog)
        assert log._bare(), "the default box adds nothing: the fast path is the one taken"
        for focused in (False, True):  # the focus tints the background
            if focused:
                log.focus()
                await wait_until(lambda: log.has_focus, 5, "the log focused")
            log.refresh()
            crop = Region(0, 0, log.size.width, log.size.height)
            ours = [list(s) for s in log.render_lines(crop)]
            log._styles_cache.clear()
            textual = [list(s) for s in Widget.render_lines(log, crop)]
            assert ours == textual
            if not focused:  # a row is made once: the next frame sends the very strips (filtered) again
                first, again = log.render_lines(crop), log.render_lines(crop)
                assert all(a is b for a, b in zip(first, again, strict=True))
            part = Region(3, 2, 10, 4)
            assert [list(s) for s in log.render_lines(part)] == [list(s) for s in Widget.render_lines(log, part)]


async def test_the_youngest_generation_is_larger_while_the_app_runs() -> None:
    before = gc.get_threshold()
    async with running([scripts.ready()], (80, 24)) as (_app, _src, _pilot):
        await wait_until(lambda: gc.get_threshold()[0] == GC_YOUNG, 5, "the threshold set at startup")
    assert gc.get_threshold() == before, "given back when the app closes"


async def test_rows_a_stream_scrolls_past_are_freed_without_the_collector() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "go")], (100, 30)) as (app, _src, _pilot):
        stream = app.w_stream
        log = stream._log
        gc.collect()
        gc.disable()  # what reference counting does not free stays until the collection below, which keeps it
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for n in range(60):  # 60 frames of streamed text (long lines, as a model thinks), a screen each
                for k in range(32):
                    text = f"step {n}.{k}: thinking about case {k * 31 % 7919} of the adapter"
                    stream.delta("reasoning", scripts.SID, text + ("\n" if k % 8 == 7 else " "))
                stream.flush()
                drawn = app.main.frames
                await wait_until(lambda d=drawn: app.main.frames > d and not log._catching_up, 10, "a frame")
            gc.collect()
            # the log's rows (the scrollbar's own strips are Textual's, redrawn four times a second)
            bar = log.scrollbar_size_vertical
            garbage = sum(1 for o in gc.garbage if isinstance(o, Strip) and o.cell_length > bar)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert garbage < 20, f"{garbage} strips of about 1,800 streamed rows were left for the collector"


async def test_a_stream_that_cannot_be_written_is_said_once_not_every_frame() -> None:
    async with running([scripts.ready(), *scripts.turn(1, "go")], (100, 30)) as (app, src, _pilot):
        stream = app.w_stream
        real = stream.flush
        calls = {"n": 0}

        def broken() -> None:
            calls["n"] += 1
            raise ValueError("bad row")

        stream.flush = broken  # type: ignore[method-assign]
        for n in range(5):
            drawn = app.main.frames
            src.feed(scripts.reasoning(f"x{n} "))
            await wait_until(lambda d=drawn, k=n: app.main.frames > d and calls["n"] > k, 10, "a frame that fails")
        stream.flush = real  # type: ignore[method-assign]
        real()
        assert stream_text(app).count("could not show the stream: ValueError('bad row')") == 1


_CODE = re.compile(r"\x1b\[(\d+);(\d+)H|(\x1b\[[0-9;]*m)|(\n)|(.)", re.DOTALL)


def _cells(frame: str) -> dict[tuple[int, int], tuple[str, str]]:
    """What a frame writes: each cell's character and style, by replaying its moves and colours (a
    move followed by nothing, which Textual writes at the edge of a span, writes no cell).
    """
    cells: dict[tuple[int, int], tuple[str, str]] = {}
    y = x = 0
    style = ""
    for move_y, move_x, sgr, newline, char in _CODE.findall(frame):
        if move_y:
            y, x = int(move_y), int(move_x)
        elif sgr:
            style = "" if sgr == "\x1b[0m" else sgr
        elif newline:
            continue
        else:
            cells[(y, x)] = (char, style)
            x += 1
    return cells


def _frame(compositor: Compositor, crop: Region, console: Any) -> dict[tuple[int, int], tuple[str, str]]:
    """The cells a partial frame of `crop` writes, drawn by `compositor` (as `render_partial_update`)."""
    spans = list(Compositor._regions_to_spans([crop.intersection(Region(0, 0, *compositor.size))]))
    rendered = {y for y, _, _ in spans}.__contains__
    ends = [cuts[1:] for cuts in compositor.cuts]
    return _cells(ChopsUpdate(compositor._render_chops(crop, rendered), spans, ends).render_segments(console))


async def test_a_frame_from_the_widgets_it_changes_is_the_frame_textual_draws() -> None:
    """`FrameCompositor` renders fewer widgets; what a frame writes to the terminal is the same."""
    async with running(scripts.tool_loop(), (120, 40), notifications=True) as (app, src, pilot):
        app.notify("a toast over the stream", timeout=30)  # a widget on a layer of its own, over the others
        for n in range(30):
            src.feed(scripts.reasoning(f"line {n} of the stream, long enough to wrap at this width " * 2 + "\n"))
        await wait_until(lambda: "line 29" in stream_text(app), 10, "the stream written")
        await wait_until(lambda: bool(app.screen.query("Toast")), 10, "the toast shown")
        await pilot.pause()
        ours = app.main._compositor
        assert isinstance(ours, FrameCompositor)
        textual: Compositor = copy.copy(ours)
        textual.__class__ = Compositor  # the same map and cuts, drawn by Textual's own code
        log, toast = app.query_one("#stream #log", StreamLog).region, app.screen.query_one("Toast").region
        rng = random.Random(7)
        crops = [log, log.union(app.w_status.region), app.w_window.region, toast, toast.union(log), app.screen.region]
        crops += [
            Region(rng.randrange(110), rng.randrange(36), rng.randint(1, 40), rng.randint(1, 12)) for _ in range(40)
        ]
        cells = 0
        for crop in crops:
            frame = _frame(ours, crop, app.console)
            assert frame == _frame(textual, crop, app.console), f"the frame differs for {crop}"
            cells += len(frame)
        assert cells > 10_000, "the frames drew something"
        screen = _frame(ours, app.screen.region, app.console)
        rows = ["".join(screen.get((y, x), (" ", ""))[0] for x in range(1, 121)) for y in range(1, 41)]
        assert any("a toast over the stream" in row for row in rows)
        # a frame of the log alone draws the log and its scrollbar, not the screen and the log's ancestors
        theirs, drawn = [r for r, _, _ in textual._get_renders(log)], [r for r, _, _ in ours._get_renders(log)]
        assert len(drawn) <= 3 < 8 <= len(theirs), (drawn, theirs)


async def test_the_display_benchmark_measures_a_stream_it_shows_whole() -> None:
    """`python -m tui.bench` on a gentle stream: every delta is counted as displayed and timed."""
    from tui.bench import measure

    r = await measure(100, 0.6, (80, 24))  # gentle: a stall of half a second still skips nothing
    # the feed sends what is due by the wall clock until 0.6 s have passed: on a loaded machine a stalled
    # turn of the loop ends it early (47 of 60 at load 10), so the count is a floor, not the rate's 60
    assert r["deltas"] >= 10 and r["displayed"] == r["deltas"] == r["in_log"], r
    assert r["never_drawn"] == 0 and 0 < r["lag_p50_ms"] <= r["lag_p99_ms"] <= r["lag_max_ms"], r
    assert r["frames_per_s"] > 0 and r["reference_loop_ms"] > 0, r


async def test_a_burst_that_outruns_the_frames_ends_with_every_delta_in_the_log() -> None:
    """Thousands of deltas at once (a stalled screen catching up): every one of them ends up in the log.

    The burst is more text than a frame's worth but fewer lines than the scrollback: coalescing the paints
    must not drop any of it, however late the frame that writes it comes.
    """
    burst = [scripts.reasoning(f"d{n:05d}x" + "-" * 40 + "\n") for n in range(3000)]
    assert sum(len(m["event"]["data"]["chunk"]["text"]) for m in burst) > 2 * 65536
    async with running([scripts.ready(), *scripts.turn(1, "go"), *burst], (120, 40)) as (app, _src, pilot):
        stream = app.w_stream
        assert stream.max_lines > 3000

        def settled() -> bool:
            app.refresh_view()
            return not stream._pending and stream.waiting == 0

        await wait_until(settled, 30, "the burst written and drawn")
        await pilot.pause()
        rows = "".join(row.text.rstrip() for row in app.query_one("#stream #log", StreamLog).lines)
        seen = {int(n) for n in re.findall(r"d(\d{5})x", rows)}
        assert seen == set(range(3000)), f"{3000 - len(seen)} of 3000 deltas are missing from the log"
