"""The stream log: the open line is its last rows, it re-wraps, folds, follows the end, and times paints."""

from __future__ import annotations

from collections import deque
from typing import Any

from textual.widgets import TextArea

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import make, settle, stream_text
from tui.app import BreakerApp, create_app
from tui.screens.call import CallScreen, StepsScreen
from tui.widgets.calls import StepsList
from tui.widgets.stream import StreamView
from tui.widgets.streamlog import BEHIND_SCREENS, StreamLog


def _rows(app: BreakerApp) -> list[str]:
    return [s.text.rstrip() for s in app.w_stream._log.lines]


def _visible(log: StreamLog) -> list[str]:
    """The rows a frame shows now."""
    top = log.scroll_offset.y
    return [s.text.rstrip() for s in log.lines[top : top + log.scrollable_content_region.height]]


async def _started(pilot: Any, app: BreakerApp, src: Any) -> StreamView:
    await settle(app, src, pilot)
    return app.w_stream


async def test_the_newest_delta_is_on_screen_before_its_line_ends() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "go")])
    async with app.run_test(size=(80, 24)) as pilot:
        stream = await _started(pilot, app, src)
        for n in range(40):  # one line, no newline yet: longer than a row, so it wraps
            stream.delta("reasoning", scripts.SID, f"word{n} ")
        stream.flush()
        await wait_until(lambda: "word39" in " ".join(_visible(stream._log)), 5, "the newest delta on screen")
        before = _rows(app)
        stream.delta("reasoning", scripts.SID, "end\n")
        stream.flush()
        after = _rows(app)
        assert after[: len(before) - 1] == before[:-1], "finishing the line keeps its rows in place"
        assert after[-1].endswith("word39 end")


async def test_a_person_who_scrolled_up_stays_put_and_the_end_is_followed_again() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "go")])
    async with app.run_test(size=(80, 24)) as pilot:
        stream = await _started(pilot, app, src)
        log = stream._log
        for n in range(100):
            stream.line(f"line {n}")
        stream.flush()
        await wait_until(lambda: log.scroll_y == log.max_scroll_y > 0, 5, "new lines scrolled into view")
        log.scroll_to(y=10, animate=False, immediate=True)
        shown = _visible(log)
        grown = log.max_scroll_y
        for n in range(100, 150):
            stream.line(f"line {n}")
        stream.flush()
        await wait_until(lambda: log.max_scroll_y > grown, 5, "the new lines laid out")
        assert log.scroll_y == 10 and _visible(log) == shown, "what the person reads stays in view"
        log.scroll_end(animate=False, immediate=True)
        stream.line("line 150")
        stream.flush()
        await wait_until(
            lambda: log.scroll_y == log.max_scroll_y and _visible(log)[-1] == "line 150", 5, "the end followed again"
        )


async def test_old_rows_leave_the_top_without_moving_what_the_person_reads() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "go")])
    async with app.run_test(size=(80, 24)) as pilot:
        stream = await _started(pilot, app, src)
        log = stream._log
        log.max_rows = 120
        for n in range(110):
            stream.line(f"line {n}")
        stream.flush()
        log.scroll_to(y=50, animate=False, immediate=True)
        shown = _visible(log)
        for n in range(110, 140):
            stream.line(f"line {n}")
        stream.flush()
        await pilot.pause()
        assert log.row_count <= 120, "rows are bounded"
        assert _visible(log) == shown, "the same rows stay in view while older ones are dropped"


async def test_lines_rewrap_at_a_new_width() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "go")])
    async with app.run_test(size=(160, 30)) as pilot:
        stream = await _started(pilot, app, src)
        stream.line("alpha " * 30)
        stream.delta("answer", scripts.SID, "beta " * 30)
        stream.flush()
        wide = _rows(app)
        await pilot.resize_terminal(60, 30)
        await wait_until(lambda: _rows(app) != wide, 10, "the re-wrap")
        narrow = _rows(app)
        assert len(narrow) > len(wide)
        assert max(len(r) for r in narrow) <= stream._log.scrollable_content_region.width

        def words(rows: list[str]) -> list[str]:
            return [w for w in " ".join(rows).split() if w != "│"]  # continuation rows repeat the gutter

        assert words(narrow) == words(wide), "the same text, the open line's included"
        assert all(r.startswith("│ ") for r in narrow if "beta" in r), "every row of the answer keeps its gutter"


async def test_folding_hides_reasoning_already_shown_and_the_open_line() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "go")])
    async with app.run_test(size=(100, 30)) as pilot:
        stream = await _started(pilot, app, src)
        stream.delta("reasoning", scripts.SID, "first thought\nsecond thou")
        stream.flush()
        assert "│ first thought" in _rows(app) and "│ second thou" in _rows(app)
        await pilot.press("ctrl+t")
        rows = _rows(app)
        assert not any("thought" in r or "thou" in r for r in rows), "folded: no reasoning text"
        assert rows[-1] == "│ ▸ thinking… 25 chars", "the open line says how much is streaming"
        stream.delta("reasoning", scripts.SID, "ght\n")
        stream.flush()
        assert _rows(app)[-1] == "│ ▸ thinking… 29 chars"
        await pilot.press("ctrl+t")
        assert "│ second thought" in _rows(app), "unfolded: shown again"


async def test_a_block_that_starts_with_a_section_break_draws_no_blank_rows_under_its_header() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "go")])
    async with app.run_test(size=(100, 30)) as pilot:
        stream = await _started(pilot, app, src)
        for piece in ("\n", "\n", "**Planning**\n", "\nfirst step\n"):
            stream.delta("reasoning", scripts.SID, piece)
        stream.flush()
        rows = _rows(app)
        header = max(i for i, r in enumerate(rows) if r.startswith("┌ thinking"))
        assert rows[header + 1] == "│ **Planning**", rows[header:]
        assert rows[header + 2 : header + 4] == ["│", "│ first step"], "a break inside the block stays"


async def test_a_delta_is_timed_when_a_frame_draws_it_not_when_it_is_written() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "go")])
    async with app.run_test(size=(80, 24)) as pilot:
        stream = await _started(pilot, app, src)
        stream.lags.clear()
        for n in range(5):
            stream.delta("answer", scripts.SID, f"part {n} ")
        stream.flush()
        assert stream.waiting == 5 and not stream.lags, "written, not yet drawn"
        await wait_until(lambda: stream.waiting == 0, 10, "a frame")
        assert len(stream.lags) == 5 and stream._log.unseen == 0


async def test_more_than_a_screenful_at_once_is_shown_a_screen_at_a_time_then_the_end() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "go")])
    async with app.run_test(size=(80, 24)) as pilot:
        stream = await _started(pilot, app, src)
        log = stream._log
        height = log.scrollable_content_region.height
        for n in range(height * 3 // 2):  # a screen and a half of streamed rows before any frame
            stream.delta("answer", scripts.SID, f"row {n}\n")
        stream.flush()
        assert log.scroll_y < log.max_scroll_y, "the rows no frame has drawn are not scrolled past"
        await wait_until(lambda: stream.waiting == 0 and log.scroll_y == log.max_scroll_y, 10, "the end")
        assert log._tracked == deque() and log.unseen == 0, "every streamed row was on screen"
        for n in range(height * (BEHIND_SCREENS + 3)):  # more screens at once than the view may trail
            stream.delta("answer", scripts.SID, f"more {n}\n")
        stream.flush()
        assert log.scroll_y == log.max_scroll_y - BEHIND_SCREENS * height, "as far behind the end as allowed"
        await wait_until(lambda: stream.waiting == 0 and log.scroll_y == log.max_scroll_y, 10, "the end")


async def test_a_call_judged_before_any_event_named_it_gets_its_header_once() -> None:
    inner = {"t": "verdict_request", "id": "v9", "sessionId": scripts.SID, "callId": "call_7_0:code:1"}
    msgs = [
        scripts.ready(),
        *scripts.turn(1, "go"),
        *scripts.call(1, "bash", {"command": "ls"}),
        {**inner, "name": "bash", "args": {"command": "cat notes.txt"}},
    ]
    app, src = make(msgs)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        text = stream_text(app)
        assert text.count("⚙ bash  ls") == 1, "an announced call keeps its one header"
        assert text.count("⚙ bash  cat notes.txt  · from a program") == 1, text


# -- a result the agent reported some other way than its output --------------------------------------------------
def _gemini_read(n: int, content: list[Any]) -> list[dict[str, Any]]:
    """A Gemini CLI read_file as it sends it (samples/acp/gemini.frames.jsonl): the file in the title and the
    locations, and no content at all when it completes.
    """
    call = f"read_file__read_file_{n}"
    where = {"title": "tour.txt", "locations": [{"path": "/work/tour.txt"}], "kind": "read"}
    return [
        {"update": {"sessionUpdate": "tool_call", "toolCallId": call, "status": "in_progress", "content": [], **where}},
        {"update": {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
                    "content": content, **where}},
    ]  # fmt: skip


async def test_a_read_the_agent_reports_without_content_names_the_file_not_no_output(tmp_path: Any) -> None:
    from tui.scripted_acp import AcpScriptedSource
    from wrapper.settings import Settings, WrapperSettings

    said = [{"type": "content", "content": {"type": "text", "text": "hello from the mock model\n"}}]
    frames: list[dict[str, Any]] = [
        {"new": {"sessionId": "acp-gemini-read"}},
        {"prompt": "Read tour.txt."},
        *_gemini_read(1, []),
        *_gemini_read(2, said),  # an agent that sends the content: its first line, as before
        {"done": {"stopReason": "end_turn"}},
    ]
    s = Settings(wrapper=WrapperSettings(recordings_dir=str(tmp_path / "rec")))
    src = AcpScriptedSource(frames, s, agent="gemini", cwd=str(tmp_path))
    app = create_app(src, s)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, src, pilot)
        results = [ln.strip() for ln in stream_text(app).splitlines() if ln.strip().startswith("→")]
        assert results == ["→ read tour.txt · the agent sent no content", "→ hello from the mock model"], results
        await pilot.press("ctrl+g")  # the steps; the first call opened: its pane says the same
        await wait_until(lambda: isinstance(app.screen, StepsScreen), 10, "the steps")
        app.screen.query_one(StepsList).post_message(StepsList.Open("read_file__read_file_1"))
        await wait_until(lambda: isinstance(app.screen, CallScreen), 10, "the call opened")
        assert app.screen.query_one(TextArea).text == "(the agent sent no content for this call)"
