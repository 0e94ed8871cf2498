"""The footer follows the state and the size: quit stays on it at 40x10, kill and cancel leave it once
the child has exited.
"""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Footer

from tests.conftest import wait_until
from tests.tui import scripts as S
from tests.tui.conftest import running, settle
from tui.app import create_app
from tui.sources import ScriptedSource
from wrapper.items import StatusItem

pytestmark = pytest.mark.tui


def _footer(app: object) -> str:
    footer = app.screen.query_one(Footer)  # type: ignore[attr-defined]
    return " ".join(str(w.render()) for w in footer.children if w.display)


async def test_quit_is_on_the_footer_of_a_40x10_terminal() -> None:
    async with running([S.ready()], size=(40, 10)) as (app, _src, _pilot):
        await wait_until(lambda: "quit" in _footer(app), 5, "the footer")
        footer = app.screen.query_one(Footer)
        quit_key = next(w for w in footer.children if "quit" in str(w.render()))
        assert quit_key.region.right <= 40 and quit_key.region.width > 0, "quit is on the screen"


async def test_kill_and_cancel_leave_the_footer_once_the_child_has_exited() -> None:
    async with running([S.ready()], size=(140, 30)) as (app, src, _pilot):
        await wait_until(lambda: "kill" in _footer(app), 5, "kill while the child runs")
        src.info.child = "exited"
        app._receive(StatusItem("exited", "child exited with status 0", {"code": 0}))
        await wait_until(lambda: "kill" not in _footer(app), 5, "no kill after the exit")
        assert "cancel" not in _footer(app) and "restart" in _footer(app) and "quit" in _footer(app)


async def test_ctrl_e_offers_resume_while_observing_and_pause_while_enforcing() -> None:
    async with running([S.ready()], size=(140, 30)) as (app, _src, pilot):
        await wait_until(lambda: "pause" in _footer(app), 5, "pause while enforcing")
        assert "resume" not in _footer(app)
        await pilot.press("ctrl+e")
        await wait_until(lambda: "resume" in _footer(app), 5, "resume while observing")
        assert "pause" not in _footer(app) and not app.source.monitor.breaker.enforcing
        await pilot.press("ctrl+e")
        await wait_until(lambda: "pause" in _footer(app), 5, "pause again once enforcing")
        assert app.source.monitor.breaker.enforcing


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
async def test_a_toast_leaves_the_status_line_and_the_footer_readable(size: tuple[int, int]) -> None:
    async with running([S.ready()], size=size, notifications=True) as (app, _src, _pilot):
        app.notify("cancel sent")
        await wait_until(
            lambda: bool(app.screen.query("Toast")) and app.screen.query_one("Toast").region.height > 0, 5, "the toast"
        )
        toast = app.screen.query_one("Toast").region
        for below in (app.query_one("#status").region, app.screen.query_one(Footer).region):
            assert not toast.overlaps(below), f"the toast {toast} covers {below}"


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_what_a_key_did_is_said_on_the_notice_line_not_in_a_toast(size: tuple[int, int]) -> None:
    """`reasoning folded`, `cancel sent`, `no tool calls yet` popped up as toasts over the prompt's hint
    and the notice line of a small terminal; toasts are for what went wrong.
    """
    async with running([S.ready(), *S.turn(1, "go")], size=size, notifications=True) as (app, src, pilot):
        await wait_until(lambda: "cancel" in _footer(app), 10, "a turn running")
        for key, said in (("ctrl+t", "reasoning folded"), ("escape", "cancel sent"), ("ctrl+g", "no tool calls yet")):
            await pilot.press(key)
            await wait_until(lambda said=said: said in str(app.w_notice.render()), 5, f"{said!r} on the notice line")
            assert app.w_notice.region.height == 1 and app.w_notice.region.right <= size[0]
        assert "cancel" in src.actions
        assert not app._notifications, [n.message for n in app._notifications]


class _Delivering(ScriptedSource):
    """A session that takes its time to have a prompt (an ACP agent still starting, a busy pipe):
    `prompt` returns once `delivered` is set, and says nothing of a turn before that.
    """

    def __init__(self) -> None:
        super().__init__([S.ready()], title="scripted")
        self.delivered = asyncio.Event()

    async def prompt(self, text: str) -> bool:
        self.actions.append(f"sending:{text}")
        await self.delivered.wait()
        self.actions.append(f"prompt:{text}")
        return True


async def test_a_sent_prompt_offers_cancel_at_once_and_the_cancel_follows_the_prompt() -> None:
    """esc right after enter did nothing while the agent had not yet started the turn (ACP agents)."""
    src = _Delivering()
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        assert "cancel" not in _footer(app) and not src.info.busy
        await pilot.press(*"go", "enter")
        await wait_until(lambda: "sending:go" in src.actions, 5, "the prompt on its way")
        await wait_until(lambda: "cancel" in _footer(app), 5, "cancel offered while the prompt is pending")
        await pilot.press("escape")
        await wait_until(lambda: "after the prompt" in str(app.w_notice.render()), 5, "the cancel waits for the prompt")
        assert "cancel" not in src.actions, "no cancel reaches a session that does not have the prompt yet"
        src.delivered.set()
        await wait_until(lambda: "cancel" in src.actions, 5, "the cancel once the prompt is delivered")
        assert src.actions.index("prompt:go") < src.actions.index("cancel")
        await wait_until(lambda: "cancel" not in _footer(app), 5, "no cancel offered once nothing is pending")


def _notice(app: object) -> str:
    shown = app.w_notice.content  # type: ignore[attr-defined]
    return str(getattr(shown, "plain", shown)) if app.w_notice.display else ""  # type: ignore[attr-defined]


async def test_the_stopping_hint_goes_once_the_child_has_exited() -> None:
    async with running([S.ready()], size=(80, 24)) as (app, _src, pilot):
        await pilot.press("ctrl+k")
        await wait_until(lambda: "stopping the child" in _notice(app), 5, "the hint while the child stops")
        app._receive(StatusItem("exited", "child exited with status 130", {"code": 130}))
        await wait_until(lambda: "stopping the child" not in _notice(app), 5, "no hint once it has exited")
