"""Approvals given on purpose: typing never answers, one modal at a time, the whole call in view."""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.widgets import Button, Label, Static

from engine.tools.messages import Hit, ask_message
from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import make, settle, stream_text, text_of
from tests.tui.test_modes import footer
from tui.screens.approval import ApprovalScreen
from tui.screens.argsview import call_view
from wrapper.items import Question, StatusItem

POLL = "curl -s -o /dev/null http://127.0.0.1:3000/health"


def poll(i: int) -> str:
    """The i-th poll: its own command (the cmd: fingerprint differs), the same local URL."""
    return f"curl -s -w 'code-{i}' -o /dev/null http://127.0.0.1:3000/health"


def asked(n: int, args: dict[str, Any], local: bool = True) -> list[dict[str, Any]]:
    """Call `n` with `args`, then an approval request for it (the breaker's ask after four repeats if `local`)."""
    cid = f"call_{n}"
    data = {"turn": 1, "step": 1, "callId": cid, "name": "bash", "arguments": json.dumps(args)}
    msgs = [
        scripts.event("tool/call", data),
        {"t": "verdict_request", "id": f"v{n}", "sessionId": scripts.SID, "callId": cid, "name": "bash", "args": args},
        {"t": "approval_request", "id": f"a{n}", "sessionId": scripts.SID, "toolName": "bash", "callId": cid,
         "reason": "breaker asks" if local else "dsh: this command needs danger-full-access"},
    ]  # fmt: skip
    return msgs


def polls(k: int = 4) -> list[dict[str, Any]]:
    msgs = [scripts.ready(), *scripts.turn(1, "Wait for the dev server")]
    for i in range(k):
        msgs += scripts.call(i, "bash", {"command": poll(i)})
    return msgs


async def modal(app: Any) -> ApprovalScreen:
    await wait_until(
        lambda: isinstance(app.screen, ApprovalScreen) and bool(app.screen.query("#buttons Button")),
        10,
        "the approval modal",
    )
    return app.screen  # type: ignore[no-any-return]


def waiting_modals(app: Any) -> int:
    return sum(isinstance(s, ApprovalScreen) for s in app.screen_stack)


async def test_typing_while_the_modal_opens_never_answers_it_and_the_text_is_kept() -> None:
    app, src = make(polls())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        await pilot.press(*"next I w")
        src.feed(*asked(4, {"command": poll(4)}))
        m = await modal(app)
        await pilot.press(*"ant to add a test", "backspace", "t", "escape", "enter")
        await wait_until(lambda: app.w_prompt.text == "next I want to add a test", 5, "the typing in the prompt")
        assert src.answers == [] and app.screen is m and not m.armed, "no key answered the unarmed modal"
        assert "add a test" in text_of(m.query_one("#state")), "the modal shows the typing is kept"
        assert not any(a.startswith("prompt:") for a in src.actions), "enter under the modal sends nothing"
        await pilot.press("tab")
        await wait_until(lambda: m.armed and app.focused is m.query_one("#deny"), 5, "armed on deny")
        await wait_until(lambda: "answer…" not in footer(m) and "deny" in footer(m), 5, "the answers in the footer")
        await pilot.press("tab")
        await wait_until(lambda: app.focused is m.query_one("#cancel-turn"), 5, "tab moves on once armed")
        await pilot.press("d")
        await wait_until(lambda: src.answers == ["deny"], 5, "the deliberate answer")
        await wait_until(lambda: app.focused is app.w_prompt, 5, "the focus back in the prompt")
        assert app.w_prompt.text == "next I want to add a test"
        await pilot.press(*" now")
        await wait_until(lambda: app.w_prompt.text.endswith("a test now"), 5, "typing goes on")


async def test_shift_tab_arms_too_and_enter_answers_the_focused_button() -> None:
    app, src = make([*polls(), *asked(4, {"command": poll(4)})])
    async with app.run_test(size=(100, 30)) as pilot:
        m = await modal(app)
        await pilot.press("enter")
        assert src.answers == [] and not m.armed, "enter does nothing while unarmed"
        await pilot.press("shift+tab")
        await wait_until(lambda: m.armed and isinstance(app.focused, Button), 5, "armed, a button focused")
        answer = str(app.focused.id if app.focused else "")
        await pilot.press("enter")
        await wait_until(lambda: src.answers == [answer], 5, "the focused button's answer")


async def test_each_button_says_what_it_allows_and_allow_turn_is_only_for_local_repeats() -> None:
    app, src = make([*polls(), *asked(4, {"command": poll(4)})])
    async with app.run_test(size=(120, 40)) as pilot:
        m = await modal(app)
        labels = {str(b.id): str(b.label) for b in m.query(Button)}
        assert "allow this call only" in labels["allow-once"]
        assert "same local resources for the rest of the turn" in labels["allow-turn"]
        assert "deny this call" in labels["deny"] and "cancel the turn" in labels["cancel-turn"]
        await pilot.press("tab", "a")
        await wait_until(lambda: src.answers == ["allow-once"], 5, "allow once")
        src.feed(*asked(5, {"command": "rm -rf /tmp/outside"}, local=False))
        m2 = await modal(app)
        await wait_until(lambda: m2 is not m and m2.is_mounted, 5, "the second modal")
        assert {str(b.id) for b in m2.query(Button)} == {"allow-once", "deny", "cancel-turn"}
        await pilot.press("tab", "t")  # not offered: nothing happens
        await pilot.press("d")
        await wait_until(lambda: src.answers == ["allow-once", "deny"], 5, "t did nothing, d denied")


async def test_one_modal_at_a_time_with_a_visible_queue_count() -> None:
    msgs = polls()
    for n in (4, 5, 6):
        msgs += asked(n, {"command": poll(n)})
    app, src = make(msgs)
    async with app.run_test(size=(80, 24)) as pilot:
        m = await modal(app)
        queue = m.query_one("#queue", Label)
        await wait_until(lambda: "1 of 3 waiting" in text_of(queue), 5, "the queue count")
        assert waiting_modals(app) == 1
        await pilot.press("tab", "d")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen) and app.screen is not m, 5, "the next one")
        assert "1 of 2 waiting" in text_of(app.screen.query_one("#queue", Label))
        assert waiting_modals(app) == 1 and src.answers == ["deny"]


async def test_the_modal_closes_saying_why_when_the_agent_exits_and_a_late_key_does_nothing() -> None:
    app, src = make([*polls(), *asked(4, {"command": poll(4)})])
    async with app.run_test(size=(100, 30)) as pilot:
        m = await modal(app)
        app._receive(StatusItem("exited", "python3 exited with status 3", {"code": 3}))
        await wait_until(lambda: not isinstance(app.screen, ApprovalScreen), 5, "the modal to close")
        await wait_until(lambda: "approval for bash closed unanswered" in stream_text(app), 5, "why, in the stream")
        assert "the agent exited" in text_of(app.w_notice)
        await wait_until(lambda: src.answers == ["deny"], 5, "the fail-closed answer")
        m.action_answer("allow-once")
        await pilot.press("tab", "a")
        await settle(app, src, pilot)
        assert src.answers == ["deny"]


async def test_the_whole_command_is_shown_tail_included_at_60x20_and_the_body_scrolls() -> None:
    command = poll(4) + " " * 4000 + "; echo PWNED-SPACES > pwned.txt" + "\n# filler" * 40
    app, src = make([*polls(), *asked(4, {"command": command})])
    async with app.run_test(size=(60, 20)) as pilot:
        m = await modal(app)
        shown = text_of(m.query_one("#args"))
        assert "⟨4,000 spaces⟩; echo PWNED-SPACES > pwned.txt" in shown
        body = m.query_one("#body")
        await wait_until(lambda: body.max_scroll_y > 0, 5, "a body that scrolls")
        for b in m.query(Button):
            assert b.region.width and b.region.y >= 0 and b.region.bottom <= 20, (b.id, b.region)

        def at_end() -> bool:
            # the modal measures its body again until it settles, so the end may move down a line
            # after a scroll: scroll again, as a person pressing End again would
            if body.scroll_y != body.max_scroll_y:
                body.scroll_end(animate=False)
                return False
            return True

        await wait_until(at_end, 10, "scrolled to the end")
        await pilot.press("tab", "d")
        await wait_until(lambda: src.answers == ["deny"], 5, "deny")


async def test_bidi_and_zero_width_characters_in_a_call_reach_the_screen_as_escapes() -> None:
    command = poll(4) + " # \u202eevil\u200b\u2066"
    app, _ = make([*polls(), *asked(4, {"command": command})])
    async with app.run_test(size=(100, 30)):
        m = await modal(app)
        shown = text_of(m.query_one("#args"))
        assert "\\u202e" in shown and "\\u200b" in shown and "\\u2066" in shown
        screen = app.export_screenshot()
        assert not any(ch in screen for ch in "\u202e\u200b\u2066")


def test_what_differs_from_the_earlier_repeat_is_highlighted() -> None:
    before = {"command": "curl http://127.0.0.1:3000/health"}
    now = {"command": "curl http://127.0.0.1:3000/health; echo hi > x"}
    text, note = call_view(now, (before,))
    assert note.startswith("differs from the previous repeat")
    marked = "".join(text.plain[s.start : s.end] for s in text.spans)
    assert marked == "; echo hi > x"
    assert call_view(before, (before,))[1] == "identical to the previous repeat"
    assert call_view(before)[1] == ""


async def test_the_modal_shows_the_difference_note_when_the_question_carries_earlier_repeats() -> None:
    app, src = make(polls())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        q = Question(scripts.SID, "call_x", "bash", {"command": POLL + " -v"}, "asks", local=True,
                     earlier=({"command": POLL},))  # fmt: skip
        app.push_screen(ApprovalScreen(q))
        m = await modal(app)
        assert "differs from the previous repeat" in text_of(m.query_one("#diff-note"))


def _scroll_to_end(body: Any) -> Any:
    """A person pressing End until the body stays at its end (the modal may measure it once more)."""

    def at_end() -> bool:
        if body.scroll_y != body.max_scroll_y:
            body.scroll_end(animate=False)
            return False
        return True

    return at_end


def _in_view(widget: Any) -> bool:
    r = widget.region
    return bool(widget.display and r.width and r.height and r.y >= 0 and r.bottom <= 24 and r.right <= 80)


async def test_a_call_longer_than_the_modal_says_what_is_out_of_view_and_allows_only_once_seen_at_80x24() -> None:
    """300 harmless lines then the payload: the payload was below the fold and nothing said so."""
    command = "\n".join(f": step {i}" for i in range(300)) + "\necho PWNED-LONG > pwned.txt"
    app, src = make([*polls(), *asked(4, {"command": command})])
    async with app.run_test(size=(80, 24)) as pilot:
        m = await modal(app)
        fold = m.query_one("#fold", Static)
        await wait_until(lambda: "lines ·" in text_of(fold) and _in_view(fold), 10, "the fold line, in view")
        assert "PWNED-LONG" not in app.export_screenshot()
        shown = text_of(fold)
        assert "characters below, out of view" in shown and "scroll the call to its end" in shown, shown
        assert m.query_one("#allow-once", Button).disabled and not m.query_one("#deny", Button).disabled
        await pilot.press("tab", "a")
        await settle(app, src, pilot)
        assert src.answers == [] and app.screen is m, "allow does not exist before the call was seen whole"
        await wait_until(_scroll_to_end(m.query_one("#body")), 10, "scrolled to the end")
        await wait_until(lambda: not m.query_one("#allow-once", Button).disabled, 5, "allow offered once seen")
        assert "PWNED-LONG" in app.export_screenshot() and not fold.display
        await pilot.press("a")
        await wait_until(lambda: src.answers == ["allow-once"], 5, "allow, now that the call was seen")


async def test_a_call_cut_for_its_size_can_only_be_denied_at_80x24() -> None:
    """12,000 characters either side of the payload: its middle (the payload) was replaced out of view."""
    command = "x" * 12_000 + "; echo PWNED-MID > pwned.txt; " + "x" * 12_000
    app, src = make([*polls(), *asked(4, {"command": command})])
    async with app.run_test(size=(80, 24)) as pilot:
        m = await modal(app)
        fold = m.query_one("#fold", Static)
        await wait_until(lambda: "too long" in text_of(fold) and _in_view(fold), 10, "the fold line, in view")
        await wait_until(_scroll_to_end(m.query_one("#body")), 10, "scrolled to the end")
        await settle(app, src, pilot)
        assert m.query_one("#allow-once", Button).disabled and _in_view(fold)
        await pilot.press("tab", "a")
        await settle(app, src, pilot)
        assert src.answers == []
        await pilot.press("d")
        await wait_until(lambda: src.answers == ["deny"], 5, "deny")


@pytest.mark.parametrize("armed", [False, True])
async def test_kill_over_the_modal_denies_its_question_and_a_late_answer_does_nothing(armed: bool) -> None:
    app, src = make(scripts.local_loop())
    async with app.run_test(size=(80, 24)) as pilot:
        m = await modal(app)
        await wait_until(lambda: {"kill", "pause"} <= set(footer(m)), 5, "kill and pause on the modal's footer")
        if armed:
            await pilot.press("tab")
            await wait_until(lambda: m.armed, 5, "armed")
        await pilot.press("ctrl+k")
        await wait_until(lambda: "kill" in src.actions, 5, "ctrl+k to reach the child")
        await wait_until(lambda: src.answers == ["deny"], 5, "the question denied, not left open")
        await wait_until(lambda: not isinstance(app.screen, ApprovalScreen), 5, "the modal closed")
        assert "closed unanswered: the child is being stopped" in stream_text(app)
        await pilot.press("tab", "a")  # what would have allowed it
        await settle(app, src, pilot)
        assert src.answers == ["deny"]


async def test_a_question_denied_by_a_kill_is_said_once_as_the_persons_stop() -> None:
    """The stream said the question closed as the child stopped, then the harness's denial of it again
    ("approval: deny (engine)", or the bridge's "closed unanswered: bridge disconnected").
    """
    app, src = make(scripts.local_loop())
    async with app.run_test(size=(80, 24)) as pilot:
        m = await modal(app)
        asked_id = m.question.id
        await pilot.press("ctrl+k")
        await wait_until(lambda: src.answers == ["deny"], 5, "the question denied")
        # what dsh sends as its channel goes with the child: the question closed, the denial it applied
        src.feed({"t": "approval_closed", "id": asked_id, "reason": "the dsh bridge disconnected"})
        await settle(app, src, pilot)
        await wait_until(lambda: not src.more.qsize(), 5, "the bridge's close played")
        await pilot.pause()
        app.refresh_view()
        await pilot.pause()
        lines = [line for line in stream_text(app).splitlines() if "approval" in line and "needed" not in line]
        assert len(lines) == 1 and "the child is being stopped" in lines[0], lines


async def test_pause_over_the_modal_pauses_and_leaves_the_question_to_the_person() -> None:
    app, src = make(scripts.local_loop())
    async with app.run_test(size=(80, 24)) as pilot:
        m = await modal(app)
        await pilot.press("ctrl+e")
        await wait_until(lambda: "enforcing:False" in src.actions, 5, "ctrl+e to pause")
        await wait_until(lambda: "resume" in footer(m), 5, "the modal's footer offers resume")
        assert app.screen is m and not src.answers, "the question still waits for its answer"


async def test_the_stream_says_the_breakers_question_on_one_line_without_its_list_marks() -> None:
    """The engine's reason is written for the agent, a hit a line (`- net:… 5/5`): flattened, it read
    `…blocked as a repeat: - net:127.0.0.1:3000/health 5/5 Allow once…`.
    """
    reason = ask_message([Hit("net:127.0.0.1:3000/health", 5, 5.0)], 200)
    msgs = [{**m, "reason": reason} if m.get("t") == "approval_request" else m for m in scripts.local_loop()]
    app, _ = make(msgs)
    async with app.run_test(size=(100, 30)) as pilot:
        await modal(app)
        app.refresh_view()
        await pilot.pause()
        text = " ".join(stream_text(app).split())  # the line as written, its rows joined
        line = text[text.index("approval needed") :]
        line = line[: line.index("Allow once")]
        assert "repeat: net:127.0.0.1:3000/health 5/5" in line and " - " not in line, line
