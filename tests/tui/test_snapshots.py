"""SVG snapshots at 80x24 and 120x40, both themes: main screen, approval modal, replay (no subprocess, no clock)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tests.conftest import wait_until
from tests.tui import acp_scripts, scripts
from tests.tui.conftest import make
from tui.app import create_app
from tui.player import ReplaySource
from tui.screens.approval import ApprovalScreen
from tui.screens.call import CallScreen
from tui.scripted_acp import AcpScriptedSource
from wrapper.records.recorder import FORMAT
from wrapper.records.sources import load
from wrapper.settings import Settings

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
THEMES = ("breaker-dark", "breaker-light")


def _before(app: Any, ready: Any) -> Any:
    """Wait (bounded) for `ready()`, then drop toasts and paint once: no clock in the picture."""
    app.animation_level = "none"  # the tab underline slides otherwise: a clock

    async def before(pilot: Any) -> None:
        await wait_until(ready, 10, "the scripted feed")
        _steady_prompt(app)
        app.refresh_view()  # adds the agent tab if the periodic repaint has not yet
        if not app.main.narrow:
            # a new tab's underline is placed after a later refresh: picture it settled, not in between
            await wait_until(lambda: app.w_tabs.query_one("Underline").highlight_end > 0, 10, "the tab underline")
        await pilot.pause()
        app.clear_notifications()
        app.refresh_view()
        await wait_until(lambda: bool(app.w_stream._log.lines), 10, "the stream's lines")
        app.w_stream._log.refresh()  # under a modal the screen below is painted from its last frame
        app.screen.refresh()
        await pilot.wait_for_scheduled_animations()
        # the footer recomposes a refresh after its keys change: picture the keys the screen has now
        await wait_until(lambda: _footer_settled(app), 10, "the footer's keys")
        if not app.main.narrow:  # the refreshes above can move the underline again: drawn where it settled
            await wait_until(lambda: _underlined(app), 10, "the tab underline, settled")
            app.w_tabs.query_one("Underline").refresh()
        # the scrollbar is redrawn at most 4 times a second while following: picture it once it has
        # caught up (on a loaded machine the snapshot was taken with the thumb a frame behind)
        await wait_until(lambda: app.w_stream._log.bar_current, 10, "the scrollbar's deferred redraw")
        _steady_prompt(app)
        await pilot.pause()
        await pilot.pause()

    return before


def _underlined(app: Any) -> bool:
    """The active tab's underline is where the tab is (not hidden, not collapsed at the left edge)."""
    start, end = app.w_tabs.query_one("Underline")._highlight_range
    return bool(end > start)


def _steady_prompt(app: Any) -> None:
    """The prompt's cursor is a clock twice over: it blinks, and TextArea caches a line drawn in either
    phase under one key once blinking is off (whether the cursor showed then depended on timing: the
    slash-completion flake). So blinking is off (a focused prompt shows a steady cursor) and the cached
    lines are dropped, so the line is drawn as it is now.
    """
    p = app.w_prompt
    p.cursor_blink = False
    p._line_cache.clear()
    p.refresh()


def _footer_settled(app: Any) -> bool:
    """The footer shows exactly the keys the screen's bindings offer (it has no footer: nothing to wait for)."""
    if not app.screen.query(Footer):
        return True
    offered = {b.action for (_, b, _, _) in app.screen.active_bindings.values() if b.show}
    return {k.action for k in app.screen.query(FooterKey)} == offered


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_main_screen(snap_compare: Any, size: str, theme: str) -> None:
    app, src = make(scripts.tool_loop(), theme=theme)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_before(app, src.drained.is_set))


def test_trip(snap_compare: Any) -> None:
    app, src = make(scripts.reasoning_loop())
    assert snap_compare(app, terminal_size=SIZES["120x40"], run_before=_before(app, src.drained.is_set))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_approval_modal(snap_compare: Any, size: str, theme: str) -> None:
    app, _ = make(scripts.local_loop(), theme=theme)
    assert snap_compare(
        app, terminal_size=SIZES[size], run_before=_before(app, lambda: isinstance(app.screen, ApprovalScreen))
    )


def _recording(tmp: Path) -> Path:
    path = tmp / "demo.jsonl"
    lines = [{"at": 0, "k": "meta", "format": FORMAT, "version": 1}]
    lines += [{"at": n * 0.05, "k": "in", **m} for n, m in enumerate(scripts.tool_loop())]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_replay(snap_compare: Any, tmp_path: Path, size: str, theme: str) -> None:
    settings = Settings()
    src = ReplaySource(load(_recording(tmp_path)), settings, speed=0)
    app = create_app(src, settings, theme=theme)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_before(app, lambda: src.done))


def _acp(theme: str) -> tuple[Any, AcpScriptedSource]:
    settings = Settings()
    src = AcpScriptedSource(acp_scripts.session(), settings)
    return create_app(src, settings, theme=theme), src


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_acp_plan_and_steps(snap_compare: Any, size: str, theme: str) -> None:
    """The plan above the stream, the folded edit in the stream, the steps under the window (wide)."""
    app, src = _acp(theme)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_before(app, src.drained.is_set))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_acp_call_screen_diff(snap_compare: Any, size: str, theme: str) -> None:
    """An edit opened: its unified diff."""
    app, src = _acp(theme)

    def opened() -> bool:
        if src.drained.is_set() and "t-edit" in app.calls and not isinstance(app.screen, CallScreen):
            app.push_screen(CallScreen(app.calls["t-edit"], app.w_stream.palette))
        return isinstance(app.screen, CallScreen) and bool(app.screen.query(".diff"))

    assert snap_compare(app, terminal_size=SIZES[size], run_before=_before(app, opened))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_acp_call_screen_output(snap_compare: Any, size: str, theme: str) -> None:
    """A command opened: its whole output, line numbers, scrollable."""
    app, src = _acp(theme)

    def opened() -> bool:
        if src.drained.is_set() and "t-run" in app.calls and not isinstance(app.screen, CallScreen):
            app.push_screen(CallScreen(app.calls["t-run"], app.w_stream.palette))
        return isinstance(app.screen, CallScreen) and bool(app.screen.query("#call-output"))

    assert snap_compare(app, terminal_size=SIZES[size], run_before=_before(app, opened))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_acp_slash_completion(snap_compare: Any, size: str, theme: str) -> None:
    """`/` typed: the agent's commands that match, over the prompt."""
    app, src = _acp(theme)

    def typed() -> bool:
        if not src.drained.is_set() or not hasattr(app, "w_complete"):
            return False
        if not app.w_prompt.text:
            app.w_prompt.value = "/re"
        return bool(app.w_complete.display)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=_before(app, typed))


def _past_sessions() -> list[Any]:
    from wrapper.harness.past import PastSession

    at = 1_796_170_000.0  # fixed times, shown in UTC (the `utc` fixture): no clock in the picture
    rows = [
        ("57563658-c1e9-442e-b94d-dbe75812844a", at, "Read notes.txt and tell me when the release is.", 3),
        ("ses_dcbba624fffe0FhN2hEbyXe617", at - 3600, "Fix the flaky test in tests/test_api.py", 1),
        ("session-80a4fb84-98e5-4bf2-8b7c", at - 86400 * 2, "Wait for the dev server, then run the e2e tests", 1),
    ]
    return [PastSession(sid, "claude", "/work/project", t, title, n, Path("/r")) for sid, t, title, n in rows]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_session_list(snap_compare: Any, size: str, theme: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """ctrl+l: the past sessions of this agent in this folder, the current one marked."""
    import time

    from tui.screens.sessions import SessionsScreen

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    app, src = _acp(theme)
    current = "57563658-c1e9-442e-b94d-dbe75812844a"

    def opened() -> bool:
        if src.drained.is_set() and not isinstance(app.screen, SessionsScreen):
            app.push_screen(
                SessionsScreen(_past_sessions(), "claude", "/work/project", "", current, app.w_stream.palette)
            )
        return isinstance(app.screen, SessionsScreen) and bool(app.screen.query("#sessions-list"))

    try:
        assert snap_compare(app, terminal_size=SIZES[size], run_before=_before(app, opened))
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
