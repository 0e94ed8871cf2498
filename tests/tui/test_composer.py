"""The prompt box as an agent composer: pastes kept whole, enter vs ctrl+j, history, scrolling while typing."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.widgets import DataTable

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import make, settle, stream_text, text_of
from tests.tui.test_keymap import read_as
from tui.widgets.composer import Composer


async def test_a_multi_line_paste_is_kept_whole_and_sent_whole() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        box = app.w_prompt
        assert isinstance(app.focused, Composer)
        app.post_message(events.Paste("line one of my prompt\nline two\nline three"))
        await wait_until(lambda: box.text.count("\n") == 2, 5, "the paste in the box")
        await wait_until(lambda: "3 lines" in text_of(app.query_one("#prompt-hint")), 5, "the line count")
        assert not any(a.startswith("prompt:") for a in src.actions), "a paste never sends"
        await pilot.press("enter")
        await wait_until(lambda: "prompt:line one of my prompt\nline two\nline three" in src.actions, 5, "sent")
        assert box.text == ""


async def test_enter_sends_and_ctrl_j_adds_a_line_and_the_hint_says_so() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, src, pilot)
        hint = text_of(app.query_one("#prompt-hint"))
        assert "⏎ send" in hint and "^j new line" in hint
        await pilot.press(*"first", "ctrl+j", *"second")
        await wait_until(lambda: app.w_prompt.text == "first\nsecond", 5, "two lines in the box")
        assert not any(a.startswith("prompt:") for a in src.actions)
        await pilot.press("enter")
        await wait_until(lambda: "prompt:first\nsecond" in src.actions, 5, "both lines sent")


async def test_up_and_down_on_the_edges_walk_the_history_and_keep_the_draft() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        box = app.w_prompt
        for text in ("one", "two"):
            await pilot.press(*text, "enter")
            await wait_until(lambda t=text: f"prompt:{t}" in src.actions, 5, f"{text} sent")
        await pilot.press(*"dra")
        await pilot.press("up")
        await wait_until(lambda: box.text == "two", 5, "the newest prompt")
        await pilot.press("up")
        await wait_until(lambda: box.text == "one", 5, "the one before")
        await pilot.press("down")
        await wait_until(lambda: box.text == "two", 5, "forward again")
        await pilot.press("down")
        await wait_until(lambda: box.text == "dra", 5, "the draft back")


async def test_pageup_and_pagedown_scroll_the_stream_while_the_prompt_keeps_the_focus() -> None:
    app, src = make(scripts.view_cycle())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, src, pilot)
        log = app.query_one("#stream #log")
        await wait_until(lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y, 5, "a log at its end")
        await pilot.press(*"half typed")
        await pilot.press("pageup")
        await wait_until(lambda: log.scroll_y < log.max_scroll_y, 5, "the stream to scroll up")
        assert app.focused is app.w_prompt and app.w_prompt.text == "half typed"
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")
        await wait_until(lambda: log.scroll_y == log.max_scroll_y, 5, "the stream back at its end")
        top = log.scroll_y
        log.post_message(events.MouseScrollUp(log, 1, 1, 0, 0, 0, False, False, False))
        await wait_until(lambda: log.scroll_y < top, 5, "the wheel to scroll the stream")
        assert app.focused is app.w_prompt, "the wheel does not take the focus"


async def test_a_key_dispatched_before_the_prompt_had_the_focus_lands_in_it() -> None:
    """Textual gives a key read before the prompt was focused to the screen (the first second of a start):
    it went nowhere. Posted to the screen as Textual does, it must reach the prompt, enter as a new line
    (never a send); with the focus elsewhere, the person's own choice, it must not.
    """
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        assert app.w_prompt.has_focus
        for key, char in (("f", "f"), ("i", "i"), ("x", "x"), ("enter", "\r"), ("space", " ")):
            app.screen.post_message(events.Key(key, char))
        await wait_until(lambda: app.w_prompt.text == "fix\n ", 5, "the early keys in the prompt")
        assert not any(a.startswith("prompt:") for a in src.actions), "an early enter never sends"
        app.screen.query_one("#stream #log").focus()
        await wait_until(lambda: not app.w_prompt.has_focus, 5, "the focus on the stream")
        handled: list[bool] = []
        app.screen.post_message(events.Key("q", "q"))
        app.screen.call_later(handled.append, True)  # queued behind the key: the key was handled first
        await wait_until(lambda: bool(handled), 5, "the screen to handle the key")
        assert app.w_prompt.text == "fix\n ", "a key typed with the focus elsewhere is not the prompt's"


def _working() -> list[dict[str, Any]]:
    """A turn under way whose model stream has stalled (`demo hang`): nothing more arrives."""
    running = {"t": "status", "sessionId": scripts.SID, "status": "running"}
    return [scripts.ready(), running, *scripts.turn(1, "Think hard."), scripts.reasoning("Let me think b")]


async def test_a_message_sent_while_the_agent_works_shows_as_queued_and_a_cancel_says_it_was_dropped() -> None:
    app, src = make(_working())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        await pilot.press(*"second message", "enter")
        await wait_until(lambda: "prompt:second message" in src.actions, 5, "sent")
        queued = "▶ you (queued for the next turn): second message"
        await wait_until(lambda: queued in stream_text(app), 5, "the queued message on the stream at once")
        # what dsh does on esc: its queue is discarded with the turn, which ends `aborted`
        src.feed(scripts.end(1, "aborted"))
        await wait_until(lambda: "not sent: the cancel dropped" in stream_text(app), 5, "what became of it")
        assert "queued 'second" in stream_text(app).split("turn 1 ended: aborted", 1)[1]


async def test_a_queued_message_the_next_turn_takes_is_not_called_dropped() -> None:
    app, src = make(_working())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        await pilot.press(*"second message", "enter")
        await wait_until(lambda: "queued for the next turn" in stream_text(app), 5, "queued")
        src.feed(scripts.end(1), *scripts.turn(2, "second message"), scripts.end(2, "aborted"))
        await wait_until(lambda: "turn 2 ended" in stream_text(app), 5, "the next turn, cancelled")
        assert "▶ you: second message" in stream_text(app)
        assert "not sent" not in stream_text(app), "it went in with turn 2: nothing queued is left to drop"


async def test_the_placeholder_fits_the_box_whole_at_every_width() -> None:
    """At 40 columns the placeholder wrapped onto a row nobody sees, leaving `message the`."""
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(40, 10)) as pilot:
        await settle(app, src, pilot)
        box = app.w_prompt

        def drawn() -> str:
            return box.render_line(0).text.strip()

        await wait_until(lambda: drawn() == "message", 5, f"the short form at 40 columns, not {drawn()!r}")
        await pilot.resize_terminal(80, 24)
        await wait_until(lambda: drawn() == "message the agent · F1 help", 5, f"the whole one at 80, not {drawn()!r}")


@pytest.mark.parametrize("sent", ["\x1b\x7f", "\x17"], ids=["alt+backspace", "ctrl+w"])
async def test_deleting_a_word_in_the_prompt_deletes_it_and_leaves_the_windows_alone(sent: str) -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        window = app.query_one("#window", DataTable)
        rows = window.row_count
        assert rows, "the loop filled the window"
        await pilot.press(*"please fix the tests")
        await wait_until(lambda: app.w_prompt.value == "please fix the tests", 5, "the typing")
        await pilot.press(*read_as(sent))  # the key as Textual's parser reads the terminal's bytes
        await wait_until(lambda: app.w_prompt.value == "please fix the ", 5, "the last word deleted")
        await pilot.press(*read_as(sent))
        await wait_until(lambda: app.w_prompt.value == "please fix ", 5, "the word before it")
        app.refresh_view()
        assert "reset-windows" not in src.actions and window.row_count == rows
