"""ctrl+g and ctrl+d with dsh, whose bridge reports calls to the engine only (no `CallItem`): the steps are
made from each call's verdict and result, on the real app and the real dsh monitor (scripted bridge messages).
"""

from __future__ import annotations

from textual.widgets import OptionList, TextArea

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import make, settle
from tui.screens.call import CallScreen, StepsScreen


async def test_the_steps_of_a_dsh_session_list_every_call_and_open_its_output() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, src, pilot)
        assert not app.w_steps.display, "the dsh screen keeps its layout: the steps open on ctrl+g"
        await pilot.press("ctrl+g")
        await wait_until(lambda: isinstance(app.screen, StepsScreen), 5, "the steps")
        rows = [str(o.prompt) for o in app.screen.query_one(OptionList)._options]
        assert len(rows) == 6 and all("cat" in r and "notes.txt" in r for r in rows), rows
        assert sum("✘" in r for r in rows) == 2 and sum("✔" in r for r in rows) == 4, "2 refused, 4 ran"
        await pilot.press("escape")
        await wait_until(lambda: not isinstance(app.screen, StepsScreen), 5, "the steps closed")
        await pilot.press("ctrl+d")  # the newest call with output: the last refusal
        await wait_until(lambda: isinstance(app.screen, CallScreen), 5, "the call screen")
        assert "REPEAT_TOOL_BLOCKED" in app.screen.query_one("#call-output", TextArea).text


async def test_an_agent_that_sends_its_own_call_records_keeps_them() -> None:
    """The records made from verdicts are only for sources that send none: an ACP agent's `CallItem` wins."""
    from tests.tui import acp_scripts
    from tests.tui.test_frontend import make_acp, ready

    app, src = make_acp(acp_scripts.session())
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, src, pilot)
        assert set(app.calls) == {"t-edit", "t-run"} and not app._derived
        assert app.calls["t-run"].output == acp_scripts.CHECKLIST
