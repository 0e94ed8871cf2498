"""Agent text is data: markup, escapes, invalid surrogates and huge lines through every screen path.

Random text goes into everything the agent controls (session id, model name, prompt, reasoning,
answer, tool name, arguments, results, an approval's reason, a denial's fingerprints) and through the
real app (Pilot) and the headless printer: nothing crashes, and no raw ESC or other control
character reaches the screen or the output streams.
"""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import events as ev
from tests.tui import scripts
from tests.tui.conftest import approval_modal
from tui.app import create_app
from tui.sources import ScriptedSource
from wrapper.headless import Printer
from wrapper.items import EngineItem, OutputItem, StatusItem
from wrapper.settings import Settings

NASTY = [
    "[/]",
    "[bold red]x[/bold red]",
    "[link=file:///etc/passwd]y[/link]",
    "\x1b]0;TITLE\x07\x1b[2J",
    "\x1b[31m",
    "\x9b2J",
    "\x1bP1;2q\x1b\\",
    "\ud800",
    "\udfff",
    "\x00\x07\x08\r\x7f",
    "\u2028",
    "{}[]",
    "tr '[/]' '_' < paths.txt",
]
piece = st.one_of(st.sampled_from(NASTY), st.text(max_size=40))
hostile = st.lists(piece, min_size=1, max_size=10).map("".join)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _feed(t: str) -> list[dict[str, Any]]:
    sid = scripts.SID
    msgs = [{"t": "ready", "sessionId": sid, "provider": t[:30], "model": t[:30]}, *scripts.turn(1, t)]
    msgs += [scripts.reasoning(t + "\n"), scripts.answer(t)]
    for i in range(6):  # the fifth and sixth repeats are denied: a toast with the fingerprints
        msgs += scripts.call(i, "bash", {"command": f"cat {t[:200]!r}"}, result=t)
    msgs += scripts.call(9, t[:50] or "x", {"q": t}, result=t)
    msgs.append(
        {"t": "approval_request", "id": "a1", "sessionId": sid, "toolName": t[:60], "callId": "call_9", "reason": t}
    )
    return msgs


def _check(text: str, where: str) -> None:
    assert "\x1b" not in text, f"raw ESC in {where}"
    bad = CONTROL.search(text)
    assert bad is None, f"control character {bad.group(0)!r} in {where}"


async def _through_the_app(t: str) -> None:
    s = Settings()
    src = ScriptedSource(_feed(t), s, title=t[:80])
    app = create_app(src, s)
    async with app.run_test(size=(100, 30)) as pilot:
        await approval_modal(app)  # the approval modal, with the hostile reason, is shown
        _check(app.export_screenshot(), "the modal")
        await pilot.press("tab", "d")
        app._receive(OutputItem(t))
        app._receive(StatusItem("error", t))
        app._receive(EngineItem(ev.TurnEnd(scripts.SID, 1, t)))
        await pilot.pause()
        app.refresh_view()
        await pilot.pause()
        _check(app.export_screenshot(), "the main screen")
        for line in app.w_stream._log.lines:
            _check(line.text, "the stream")
        for n in app._notifications:
            _check(n.message, "a notification")


# Ten whole app runs: 90 s at a load of 11 on 2 cores, so more than the default 120 s at a load of 15.
@pytest.mark.timeout(360)
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(hostile)
def test_hostile_text_through_every_widget(t: str) -> None:
    asyncio.run(_through_the_app(t))


@settings(max_examples=200, deadline=None)
@given(hostile, st.booleans())
def test_hostile_text_through_the_headless_printer(t: str, as_json: bool) -> None:
    from tui.sources import ScriptedSource as Feed

    out, err = io.StringIO(), io.StringIO()
    printer = Printer(out, err, as_json, runner=True, main_agent=lambda: scripts.SID)
    feed = Feed(_feed(t))
    from wrapper.harness.dsh import protocol as P
    from wrapper.harness.dsh.monitor import BridgeMonitor

    m = feed.monitor
    assert isinstance(m, BridgeMonitor)

    for raw in _feed(t):
        msg = P.parse_inbound(raw)
        if isinstance(msg, P.EventMsg):
            for item in m.event(msg.sessionId or "main", msg.event)[0]:
                printer.show(item)
        elif isinstance(msg, P.VerdictRequest):
            printer.show(m.verdict(msg)[1])
        elif isinstance(msg, P.ResultRequest):
            printer.show(m.result(msg)[1])
    printer.show(StatusItem("error", t))
    printer.show(EngineItem(ev.TurnEnd(scripts.SID, 1, t)))
    _check(err.getvalue(), "stderr")
    if as_json:
        _check(out.getvalue(), "stdout")
    else:
        assert "\x1b" not in out.getvalue()
