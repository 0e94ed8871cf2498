"""Each mode's keys, with the prompt focused and not: the footer, the help and the keys agree."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.screen import Screen
from textual.widgets._footer import FooterKey

from tests.conftest import wait_until
from tests.tui import acp_scripts, scripts
from tests.tui.conftest import approval_modal, settle, text_of
from tui.app import create_app
from tui.screens.approval import ApprovalScreen
from tui.screens.call import CallScreen, ConfirmScreen, StepsScreen
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen
from tui.screens.sessions import SessionsScreen
from tui.scripted_acp import AcpScriptedSource
from tui.sources import ScriptedSource
from tui.widgets.composer import Composer
from wrapper.harness.capabilities import DSH, PLAIN
from wrapper.settings import Settings, WrapperSettings


def _make(caps: Any = DSH, settings: Settings | None = None, msgs: list[Any] | None = None) -> Any:
    s = settings or Settings()
    src = ScriptedSource(msgs if msgs is not None else scripts.tool_loop(), s, capabilities=caps)
    return create_app(src, s), src


def footer(screen: Any) -> dict[str, str]:
    """description -> key of every footer entry the person can see (inside the screen)."""
    out = {}
    for fk in screen.query(FooterKey):
        r = fk.region
        if r.width and r.right <= screen.size.width:
            out[fk.description] = fk.key
    return out


async def test_the_prompt_has_the_focus_at_start() -> None:
    app, src = _make()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        assert isinstance(app.focused, Composer) and app.focused.id == "prompt"
        await pilot.press(*"hello")
        assert app.w_prompt.value == "hello"


@pytest.mark.parametrize("focused", [True, False])
@pytest.mark.parametrize(
    ("key", "expect"),
    [
        ("escape", "cancel"),
        ("ctrl+k", "kill"),
        ("ctrl+r", "restart"),
        ("ctrl+e", "enforcing:False"),
        ("f5", "reset-windows"),
    ],
)
async def test_emergency_keys_fire_while_typing_and_without_focus(focused: bool, key: str, expect: str) -> None:
    app, src = _make(msgs=scripts.tool_loop_working())  # a turn runs: escape has one to cancel
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, src, pilot)
        if focused:
            app.w_prompt.focus()
            await pilot.press(*"half a message")
            await wait_until(lambda: app.w_prompt.value == "half a message", 5, "the typing")
        else:
            app.set_focus(None)
            await wait_until(lambda: app.focused is None, 5, "no focus")
        await pilot.press(key)
        await wait_until(lambda: expect in src.actions, 5, f"{key} to reach the source")
        if focused:
            assert app.w_prompt.value == "half a message", "the key did not edit the prompt"


async def test_footer_shows_the_live_keys_and_quit_within_80_columns() -> None:
    app, src = _make(msgs=scripts.tool_loop_working())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, src, pilot)
        shown = footer(app.screen)
        assert {"cancel", "kill", "restart", "pause", "help", "quit"} <= set(shown), shown
        assert not {"play", "step", "back"} & set(shown), "no replay keys in a live session"


async def test_cancel_is_on_the_footer_only_while_a_turn_runs_and_help_and_palette_always_list_it() -> None:
    """`esc cancel` was offered with no turn to cancel; the footer follows the state, the help and the
    palette list every key with what it does.
    """
    app, src = _make(msgs=[scripts.ready()])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        await pilot.pause()
        assert "cancel" not in footer(app.screen), "no turn runs: nothing to cancel"
        assert {"kill", "restart", "pause", "help", "quit"} <= set(footer(app.screen))
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert "Cancel the agent's current turn (it keeps running)" in titles, "the palette lists it"
        await pilot.press("escape")
        await pilot.pause()
        assert "cancel" not in src.actions, "escape does nothing without a turn"
        src.feed(*scripts.turn(1, "go"))
        await wait_until(lambda: "cancel" in footer(app.screen), 10, "esc cancel with the turn")
        assert footer(app.screen)["cancel"] == "escape"
        src.feed(scripts.end())
        await wait_until(lambda: "cancel" not in footer(app.screen), 10, "esc cancel gone with the turn's end")
        app.set_focus(None)
        await pilot.press("f1")
        await wait_until(lambda: bool(app.screen.query("#help-keys")), 5, "the help screen")
        assert "cancel the agent's current turn" in text_of(app.screen.query_one("#help-keys")), "the help lists it"


async def test_cancel_from_the_palette_with_no_turn_says_why_and_sends_nothing() -> None:
    app, src = _make(msgs=[scripts.ready()])
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(app, src, pilot)
        (cancel,) = [c for c in app.get_system_commands(app.screen) if c.title.startswith("Cancel the agent")]
        cancel.callback()
        await pilot.pause()
        assert "cancel" not in src.actions
        assert any("cancel: no turn is running" in str(n.message) for n in app._notifications)


async def test_a_plain_command_offers_only_what_it_can_do() -> None:
    app, src = _make(PLAIN)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        shown = footer(app.screen)
        assert "cancel" not in shown and "kill" in shown and "quit" in shown
        # the box takes lines for the command's own input, not messages to an agent
        assert app.w_prompt.display and "input" in str(app.w_prompt.placeholder)
        await pilot.press("escape")
        await pilot.pause()
        assert "cancel" not in src.actions
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert not any(t.startswith("Cancel the agent") for t in titles)


@pytest.mark.parametrize("how", ["f1-focused", "question-unfocused"])
async def test_help_lists_the_keys_of_the_mode(how: str) -> None:
    app, src = _make(PLAIN if how == "question-unfocused" else DSH)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, src, pilot)
        if how == "f1-focused":
            app.w_prompt.focus()
            await pilot.press("f1")
        else:
            app.set_focus(None)
            await pilot.press("question_mark")
        await wait_until(lambda: bool(app.screen.query("#help-keys")), 5, "the help screen")
        await wait_until(lambda: set(footer(app.screen)) == {"close"}, 5, "the help's footer")
        text = text_of(app.screen.query_one("#help-keys"))
        assert "ctrl+k" in text and "ctrl+q" in text and "ctrl+p" in text
        assert ("cancel the agent's current turn" in text) == (how == "f1-focused")
        assert "shift+tab" not in text, "dsh and a plain command have no modes: the help lists no mode key"
        assert "play / pause" not in text
        assert set(footer(app.screen)) == {"close"}, "the help has its own footer"
        await pilot.press("escape")
        await wait_until(lambda: not isinstance(app.screen, HelpScreen), 5, "the help to close")


async def test_keys_are_remapped_by_binding_id_from_the_config() -> None:
    app, src = _make(settings=Settings(keys={"kill": "ctrl+x"}))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        await pilot.press("ctrl+x")
        await wait_until(lambda: "kill" in src.actions, 5, "the remapped kill key")
        assert footer(app.screen)["kill"] == "ctrl+x"


async def test_enter_after_the_child_exited_keeps_what_was_typed() -> None:
    app, src = _make()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        src.info.child = "exited"
        app.w_prompt.focus()
        await pilot.press(*"try again", "enter")
        await pilot.pause()
        assert app.w_prompt.value == "try again"
        assert not any(a.startswith("prompt:") for a in src.actions)


async def _modal(app: Any) -> ApprovalScreen:
    return await approval_modal(app)  # type: ignore[no-any-return]


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_modal_fits_small_terminals_and_its_buttons_work(size: tuple[int, int]) -> None:
    app, src = _make(msgs=scripts.local_loop())
    async with app.run_test(size=size) as pilot:
        modal = await _modal(app)
        w, h = size

        def fitted() -> bool:
            rs = [b.region for b in modal.query("Button")]
            return bool(rs) and all(r.width and r.y >= 0 and r.bottom <= h and r.right <= w for r in rs)

        # the body is fitted after a layout pass (it is measured): wait for the state the test asserts
        await wait_until(fitted, 10, f"every answer inside {w}x{h}: {[b.region for b in modal.query('Button')]}")
        await wait_until(lambda: "answer…" in footer(modal), 5, "the modal's footer")
        shown = footer(modal)
        assert "answer…" in shown and "deny" not in shown and "restart" not in shown, shown
        assert {"kill", "pause"} <= set(shown), "the emergency keys that act over the modal are on its footer"
        await pilot.press("tab")
        await wait_until(lambda: "deny" in footer(modal), 5, "the answer keys once armed")
        assert "this call" in footer(modal)
        await pilot.click("#allow-turn")
        await wait_until(lambda: src.answers == ["allow-turn"], 5, "the button's answer")


async def test_the_modal_closes_when_the_bridge_gives_up_and_a_late_key_does_nothing() -> None:
    app, src = _make(msgs=scripts.local_loop())
    async with app.run_test(size=(100, 30)) as pilot:
        modal = await _modal(app)
        src.feed({"t": "approval_closed", "id": modal.question.id, "reason": "the bridge timed out"})
        await wait_until(lambda: not isinstance(app.screen, ApprovalScreen), 5, "the modal to close")
        await pilot.pause()
        assert "timed out" in text_of(app.w_notice), "the notice line says why"
        await wait_until(lambda: src.answers == ["deny"], 5, "the fail-closed answer")
        modal.action_answer("allow-once")  # a key press that arrives after the close
        await pilot.press("a")
        await pilot.pause()
        assert src.answers == ["deny"]
        assert not src.monitor.breaker.snapshot().agents[0].local_exempt


async def test_narrow_terminals_collapse_the_panel_to_a_summary_and_ctrl_b_stacks_it() -> None:
    app, src = _make()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(app, src, pilot)
        assert not app.query_one("#right").display or app.query_one("#right").region.width == 0
        summary = app.query_one("#summary")
        assert summary.region.width and "win " in text_of(summary) and "HIT" in text_of(summary)
        # nothing cut off: what does not fit is dropped by rank, the rest is whole
        app.refresh_view()
        await wait_until(lambda: "trips " in text_of(summary), 5, "the summary at its width")
        line, status = text_of(summary).strip(), text_of(app.query_one("#status")).strip()
        assert "denied " in line and "trips " in line and len(line) <= summary.content_size.width, line
        assert status.startswith("ENFORCING") and "child running" in status and len(status) <= 60, status
        for wid in ("#stream", "#status", "#summary", "#prompt"):
            r = app.query_one(wid).region
            assert r.right <= 60 and r.bottom <= 20, (wid, r)
        await pilot.press("ctrl+b")
        await wait_until(lambda: app.query_one("#right").region.width == 60, 5, "the panel view")
        right = app.query_one("#right").region
        assert right.width == 60 and right.bottom <= 20, right
        assert "ctrl+q" in footer(app.screen).values()


async def test_ctrl_t_folds_and_unfolds_reasoning_already_shown() -> None:
    from tests.tui.conftest import stream_text

    app, src = _make()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, src, pilot)
        assert "notes.txt again (attempt 3)" in stream_text(app)
        await pilot.press("ctrl+t")
        await wait_until(lambda: "chars of reasoning (ctrl+t shows them)" in stream_text(app), 5, "folded")
        text = stream_text(app)
        assert "notes.txt again (attempt 3)" not in text
        assert "⚙ bash  cat notes.txt" in text, "only reasoning is folded"
        await pilot.press("ctrl+t")
        await wait_until(lambda: "notes.txt again (attempt 3)" in stream_text(app), 5, "unfolded")
        assert "chars of reasoning" not in stream_text(app)


async def test_exit_status_is_the_childs_own_or_zero_after_a_kill_and_70_on_an_internal_error() -> None:
    from wrapper.items import StatusItem
    from wrapper.process.child import ExitInfo

    app, src = _make()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        src.info.exit = ExitInfo(4, None, None)  # it ended by itself
        app._receive(StatusItem("exited", "child exited with status 4", {"code": 4}))
        await wait_until(lambda: app.exit_status() == 4, 5, "the child's own status")
        app._receive(StatusItem("started", "started again"))
        src.info.exit = ExitInfo(130, None, "SIGINT")  # we stopped it
        app._receive(StatusItem("exited", "child exited with status 130", {"code": 130}))
        await wait_until(lambda: app.exit_status() == 0, 5, "0 after we stopped it")

    class Broken(ScriptedSource):
        async def run(self, emit: Any) -> None:
            raise RuntimeError("a bug")

    s = Settings()
    app = create_app(Broken([], s), s)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(lambda: bool(app.internal_error), 5, "the failure")
        await pilot.pause()
    assert app.exit_status() == 70


# -- the emergency keys over every screen the live app pushes -----------------------------------------------
EMERGENCY = [("ctrl+k", "kill"), ("ctrl+r", "restart"), ("ctrl+e", "enforcing:False"), ("f5", "reset-windows")]


async def _over_approval(tmp_path: Path) -> Any:
    app, src = _make(msgs=scripts.local_loop())
    return app, src, lambda pilot: approval_modal(app)


def _acp_app(tmp_path: Path) -> Any:
    s = Settings(wrapper=WrapperSettings(recordings_dir=str(tmp_path / "rec")))
    src = AcpScriptedSource(acp_scripts.session(), s, cwd=str(tmp_path))
    return create_app(src, s), src


def _by_key(key: str, kind: type[Screen[Any]]) -> Any:
    async def opener(tmp_path: Path) -> Any:
        app, src = _acp_app(tmp_path)

        async def open_it(pilot: Any) -> None:
            await settle(app, src, pilot)
            await pilot.press(key)
            await wait_until(lambda: isinstance(app.screen, kind), 5, f"{kind.__name__} on top")

        return app, src, open_it

    return opener


async def _pushed(tmp_path: Path) -> Any:  # the app pushes it for an agent's mode that never asks (ACP only)
    app, src = _acp_app(tmp_path)

    async def open_it(pilot: Any) -> None:
        await settle(app, src, pilot)
        app.push_screen(ConfirmScreen("switch to a mode that never asks?"))
        await wait_until(lambda: isinstance(app.screen, ConfirmScreen), 5, "the confirmation on top")

    return app, src, open_it


SCREENS: dict[type[Screen[Any]], Any] = {
    ApprovalScreen: _over_approval,
    HelpScreen: _by_key("f1", HelpScreen),
    CallScreen: _by_key("ctrl+d", CallScreen),
    StepsScreen: _by_key("ctrl+g", StepsScreen),
    SessionsScreen: _by_key("ctrl+l", SessionsScreen),
    ConfirmScreen: _pushed,
    CommandPalette: _by_key("ctrl+p", CommandPalette),
}


def test_every_screen_the_app_can_push_is_covered_below() -> None:
    import tui.screens as pkg

    pushed = set()
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"tui.screens.{info.name}")
        pushed |= {c for c in vars(module).values() if isinstance(c, type) and issubclass(c, Screen)}
    pushed -= {MainScreen}
    pushed = {c for c in pushed if c.__module__.startswith("tui.screens")}
    assert pushed <= set(SCREENS), f"a screen the emergency keys are not tested over: {pushed - set(SCREENS)}"


@pytest.mark.parametrize(("key", "expect"), EMERGENCY, ids=[k for k, _ in EMERGENCY])
@pytest.mark.parametrize("kind", list(SCREENS), ids=[c.__name__ for c in SCREENS])
async def test_the_emergency_keys_act_over_every_screen_the_app_pushes(
    tmp_path: Path, kind: type[Screen[Any]], key: str, expect: str
) -> None:
    app, src, open_it = await SCREENS[kind](tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_it(pilot)
        await pilot.press(key)
        await wait_until(lambda: expect in src.actions, 5, f"{key} over {kind.__name__}")
