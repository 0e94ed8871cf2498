"""The ACP front end on the real app: steps keyed by call id, full output, diffs, the plan, slash commands, modes.

Frames play through a real `AcpMonitor` (`tui.scripted_acp`), as the live session hands them on.
"""

from __future__ import annotations

from typing import Any

from textual.command import CommandList, CommandPalette
from textual.widgets import TextArea
from textual.widgets._footer import FooterKey

from tests.conftest import wait_until
from tests.tui import acp_scripts
from tests.tui.conftest import stream_text, text_of
from tui.app import BreakerApp, create_app
from tui.screens.call import CallScreen, ConfirmScreen, StepsScreen
from tui.scripted_acp import AcpScriptedSource
from wrapper.settings import Settings


def make_acp(frames: list[dict[str, Any]]) -> tuple[BreakerApp, AcpScriptedSource]:
    s = Settings()
    src = AcpScriptedSource(frames, s)
    return create_app(src, s), src


async def ready(app: BreakerApp, src: AcpScriptedSource, pilot: Any) -> None:
    await wait_until(src.drained.is_set, 10, "the scripted frames")
    await pilot.pause()
    app.refresh_view()
    await pilot.pause()


async def test_steps_one_row_per_call_and_the_whole_output_opens() -> None:
    app, src = make_acp(acp_scripts.session())
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, src, pilot)
        steps = app.w_steps
        assert steps.display and steps.option_count == 2, "six updates of two calls: two rows"
        row = text_of_prompt(steps.get_option("t-run").prompt)
        assert "./checklist.sh" in row and "✔" in row and "13 lines" in row
        await pilot.press("ctrl+d")  # the newest call with output
        await wait_until(lambda: isinstance(app.screen, CallScreen), 5, "the call screen")
        out = app.screen.query_one("#call-output", TextArea)
        assert out.text == acp_scripts.CHECKLIST, "the whole output, not its first line"
        await pilot.press("escape")
        await wait_until(lambda: not isinstance(app.screen, CallScreen), 5, "the call screen closed")


async def test_an_edit_is_a_folded_line_that_opens_as_a_unified_diff() -> None:
    app, src = make_acp(acp_scripts.session())
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, src, pilot)
        assert "✎ /work/notes.txt +1 −1" in stream_text(app), "the stream shows the edit folded"
        assert "Monday" not in stream_text(app).split("✎", 1)[1].split("\n", 1)[0], "folded: no body"
        await pilot.press("ctrl+g")
        await wait_until(lambda: isinstance(app.screen, StepsScreen), 5, "the steps")
        await pilot.press("up", "enter")  # the newest is highlighted; one up is the edit
        await wait_until(lambda: isinstance(app.screen, CallScreen), 5, "the edit opened")
        screen = app.screen
        assert isinstance(screen, CallScreen) and screen.call.call_id == "t-edit"
        body = "\n".join(text_of(d) for d in screen.query(".diff"))
        assert "-The release is on Friday." in body and "+The release is on Monday." in body and "@@" in body


async def test_a_click_on_a_step_opens_it() -> None:
    app, src = make_acp(acp_scripts.session())
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, src, pilot)
        await pilot.click("#steps", offset=(3, 1))  # inside the border: the first row, the edit
        await wait_until(lambda: isinstance(app.screen, CallScreen), 5, "the clicked call")
        assert app.screen.call.call_id == "t-edit"  # type: ignore[attr-defined]


async def test_the_plan_is_hidden_until_the_first_and_replaced_whole() -> None:
    app, src = make_acp(acp_scripts.session(with_plan=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, src, pilot)
        assert not app.w_plan.display
        src.feed(acp_scripts.plan(0))
        await wait_until(lambda: app.w_plan.display, 5, "the plan shown")
        # a high-priority step says so in words (a bare `!` read as an alarm)
        assert "▶ Read notes.txt · high priority" in text_of(app.w_plan) and "!" not in text_of(app.w_plan)
        assert app.w_plan.border_subtitle == "0/3"
        src.feed(acp_scripts.plan(3))
        await wait_until(lambda: app.w_plan.border_subtitle == "3/3", 5, "the plan replaced")
        assert "▶" not in text_of(app.w_plan) and text_of(app.w_plan).count("✔") == 3


async def test_slash_completes_the_agents_commands_and_escape_closes_the_list_first() -> None:
    app, src = make_acp(acp_scripts.session())
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, src, pilot)
        await pilot.press(*"/rev")
        await wait_until(lambda: app.w_complete.display, 5, "the completion list")
        assert app.w_complete.option_count == 2, "review and security-review contain 'rev'"
        await pilot.press("escape")
        await wait_until(lambda: not app.w_complete.display, 5, "the list closed")
        assert "cancel" not in src.actions, "escape closed the list, it did not cancel the turn"
        await pilot.press("backspace", "v")
        await wait_until(lambda: app.w_complete.display, 5, "the list again")
        await pilot.press("down", "up", "tab")
        await wait_until(lambda: app.w_prompt.text == "/review ", 5, "completed")
        assert not app.w_complete.display
        await pilot.press(*"HEAD", "enter")
        await wait_until(lambda: "prompt:/review HEAD" in src.actions, 5, "the command sent as the prompt")


def _footer_actions(app: BreakerApp) -> set[str]:
    return {k.action for k in app.screen.query(FooterKey)}


async def test_the_footer_follows_the_completion_list_escape_is_not_cancel_while_it_is_open() -> None:
    """The footer offered `esc cancel` while escape would close the list: nothing refreshed its keys."""
    app, src = make_acp(acp_scripts.session()[:-1])  # the turn still runs: escape has one to cancel
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, src, pilot)
        await wait_until(lambda: "app.cancel_turn" in _footer_actions(app), 10, "esc cancel in the footer")
        app.w_prompt.value = "/re"  # as a paste would: no key event to refresh anything else
        await wait_until(lambda: app.w_complete.display, 10, "the completion list")
        await wait_until(lambda: "app.cancel_turn" not in _footer_actions(app), 10, "esc cancel gone from the footer")
        app.w_prompt.value = ""
        await wait_until(lambda: not app.w_complete.display, 10, "the list closed")
        await wait_until(lambda: "app.cancel_turn" in _footer_actions(app), 10, "esc cancel back in the footer")


async def test_modes_from_the_palette_and_a_silent_mode_only_after_a_warning() -> None:
    app, src = make_acp(acp_scripts.session())
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, src, pilot)
        assert "mode Default" in text_of(app.w_status)
        await pilot.press("ctrl+p")
        await pilot.press(*"Mode: Plan")
        await wait_until(lambda: isinstance(app.screen, CommandPalette), 5, "the palette")
        await wait_until(lambda: app.screen.query_one(CommandList).option_count > 0, 5, "palette hits")
        first = app.screen.query_one(CommandList).get_option_at_index(0).prompt
        assert "Mode: Plan" in str(getattr(first, "plain", first)), first
        await pilot.press("enter")
        await wait_until(lambda: "session/set_config_option:mode=plan" in src.actions, 5, "mode switched")
        app.refresh_view()
        await wait_until(lambda: "mode Plan" in text_of(app.w_status), 5, "the status line says so")
        app.pick_choice("mode", "auto")
        await wait_until(lambda: bool(app.screen.query("#confirm-text")), 5, "the warning")
        assert "can now only cancel" in text_of(app.screen.query_one("#confirm-text"))
        await pilot.press("n")
        await wait_until(lambda: not isinstance(app.screen, ConfirmScreen), 5, "declined")
        assert not any("=auto" in a for a in src.actions), "no switch without a yes"
        app.pick_choice("mode", "auto")
        await wait_until(lambda: bool(app.screen.query("#confirm-text")), 5, "the warning again")
        await pilot.press("y")
        await wait_until(lambda: "session/set_config_option:mode=auto" in src.actions, 5, "switched after yes")
        app.refresh_view()
        await wait_until(lambda: "ASKS OFF" in text_of(app.w_status), 5, "the status line marks it")


async def test_the_mode_is_on_the_status_line_at_60_columns() -> None:
    """At 60x20 the status line dropped the mode with the model: shift+tab's effect could not be seen."""
    app, src = make_acp(acp_scripts.session())
    async with app.run_test(size=(60, 20)) as pilot:
        await ready(app, src, pilot)
        await wait_until(lambda: "mode Default" in text_of(app.w_status), 5, "the mode on a narrow status line")
        status = text_of(app.w_status)
        assert "ENFORCING" in status and "turn" in status, status
        src.info.busy = True  # a turn runs: the child's part says so in fewer columns, the mode stays
        app.refresh_view()
        await wait_until(lambda: "working…" in text_of(app.w_status), 5, "the turn on the status line")
        assert "mode Default" in text_of(app.w_status), text_of(app.w_status)


def text_of_prompt(prompt: Any) -> str:
    return prompt.plain if hasattr(prompt, "plain") else str(prompt)
