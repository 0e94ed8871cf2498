"""A plain command reads what the person types: a line at a time, enter sends it (an empty one too).

A plain command under the monitor (`breaker-tui -- bash -c '… read …'`) had no prompt box: keys went
nowhere and a `read` waited for ever. The status line showed an agent's session, turn, step and tokens,
none of which a plain command has. The real command runs on the real pty here.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import wait_until
from tui.app import create_app
from tui.sources import LiveSource
from wrapper.settings import Settings, WrapperSettings

SCRIPT = 'read -p "name? " n; echo "got [$n]"; read m; echo "then [$m]"; sleep 60'


def output(app: Any) -> str:
    return "\n".join(line.text for line in app.w_output.lines)


async def test_a_typed_line_goes_to_a_plain_commands_input_and_enter_alone_sends_an_empty_one() -> None:
    settings = Settings(wrapper=WrapperSettings(record=False))
    src = LiveSource(["bash", "-c", SCRIPT], settings, opened=False, check=lambda: "")
    app = create_app(src, settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(lambda: "name?" in output(app), 60, "the command's question")
        assert app.w_prompt.display and app.w_prompt.has_focus, "a box to type the answer in"
        assert "input" in str(app.w_prompt.placeholder), "the box says what it is for"
        await pilot.press(*"bob", "enter")
        await wait_until(lambda: "got [bob]" in output(app), 60, "the line to reach the command")
        await pilot.press("enter")
        await wait_until(lambda: "then []" in output(app), 60, "an empty line to reach the command")
        status = str(app.w_status.render())
        assert "child running" in status
        for agents_only in ("session", "turn", "step", "↑", "mode"):
            assert agents_only not in status, status
