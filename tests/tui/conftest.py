"""Helpers for driving the real Textual app with a scripted source."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

from tui.app import BreakerApp, create_app
from tui.sources import ScriptedSource
from tui.widgets.streamlog import StreamLog
from wrapper.settings import Settings


def make(
    messages: list[dict[str, Any]], settings: Settings | None = None, theme: str | None = None
) -> tuple[BreakerApp, ScriptedSource]:
    s = settings or Settings()
    src = ScriptedSource(messages, s, title="scripted")
    return create_app(src, s, theme=theme), src


class _Scripted(Protocol):
    drained: asyncio.Event


async def settle(app: BreakerApp, src: _Scripted, pilot: Any) -> None:
    """Wait (bounded) until the script (bridge or ACP frames) is played, then paint once."""
    await asyncio.wait_for(src.drained.wait(), 10)
    await pilot.pause()
    app.refresh_view()
    await pilot.pause()


async def approval_modal(app: BreakerApp, timeout: float = 10) -> Any:
    """Wait (bounded) until the approval modal is on top and composed; return it."""
    from tests.conftest import wait_until
    from tui.screens.approval import ApprovalScreen

    def ready() -> bool:
        return isinstance(app.screen, ApprovalScreen) and bool(app.screen.query("#buttons Button"))

    await wait_until(ready, timeout, "the approval modal")
    return app.screen


@asynccontextmanager
async def running(
    messages: list[dict[str, Any]], size: tuple[int, int] = (100, 30), notifications: bool = False
) -> AsyncIterator[tuple[BreakerApp, ScriptedSource, Any]]:
    """The app on a scripted source at `size`, the script played: (app, source, pilot); toasts shown
    only with `notifications` (Textual's tests hide them).
    """
    app, src = make(messages)
    async with app.run_test(size=size, notifications=notifications) as pilot:
        await settle(app, src, pilot)
        yield app, src, pilot


async def session_list(app: BreakerApp, pilot: Any, timeout: float = 10) -> Any:
    """Open the session list (ctrl+l), wait (bounded) until it is on top; return it."""
    from tests.conftest import wait_until
    from tui.screens.sessions import SessionsScreen

    await pilot.press("ctrl+l")
    await wait_until(lambda: isinstance(app.screen, SessionsScreen), timeout, "the session list")
    return app.screen


def stream_text(app: BreakerApp) -> str:
    log = app.query_one("#stream #log", StreamLog)
    return "\n".join(line.text for line in log.lines)


def text_of(widget: Any) -> str:
    """The plain text a Static shows (Rich tables included)."""
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(widget.content)
    return console.export_text()


def cut_sideways(screen: Any) -> list[str]:
    """The widgets of `screen` whose content is wider than what they show: a sideways scrollbar (drawn or
    hidden), or a box reaching past the terminal's right edge. Empty: the screen fits its width, and anything
    too long for it was cut with intent (an ellipsis, a narrower column set).
    """
    out = []
    width = screen.size.width
    for w in screen.query("*"):
        if not w.display or not w.region.width:
            continue
        if w.region.right > width:
            out.append(f"{w!r} reaches column {w.region.right} of {width}")
        elif w.show_horizontal_scrollbar:
            out.append(f"{w!r} scrolls sideways: {w.virtual_size.width} cells in {w.scrollable_content_region.width}")
    return out
