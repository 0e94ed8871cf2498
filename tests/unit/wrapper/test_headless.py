"""`--no-tui`'s printer: what reaches stdout as the answer (`wrapper.headless.Printer`)."""

from __future__ import annotations

import io
import json

from engine import events as ev
from wrapper.harness.acp.monitor import AcpMonitor
from wrapper.headless import Printer
from wrapper.items import EngineItem, Item
from wrapper.settings import Settings

SID = "s-1"


def _turn_with_followup(as_json: bool) -> tuple[str, str]:
    """A turn whose first part is cancelled and continued by the session's own follow-up prompt."""
    m = AcpMonitor(Settings(), agent_name="test")
    m.session_started(SID, "model", resumed=False)
    out, err = io.StringIO(), io.StringIO()
    printer = Printer(out, err, as_json, runner=True, main_agent=lambda: SID, acp=True)
    items: list[Item] = [
        *m.prompt_sent("read the file"),
        EngineItem(ev.AnswerDelta(SID, "I will read it again")),
        *m.prompt_sent("answer now", followup=True),
        EngineItem(ev.AnswerDelta(SID, "The file says hello.")),
        EngineItem(ev.TurnEnd(SID, 1, "completed")),
    ]
    for item in items:
        printer.show(item)
    return out.getvalue(), err.getvalue()


def test_the_answer_after_a_followup_starts_on_its_own_line() -> None:
    out, _ = _turn_with_followup(as_json=False)
    assert out == "I will read it again\nThe file says hello.\n"


def test_json_keeps_the_turns_text_as_it_came() -> None:
    out, _ = _turn_with_followup(as_json=True)
    answers = [o for o in map(json.loads, out.splitlines()) if o.get("kind") == "answer"]
    assert [a["text"] for a in answers] == ["I will read it againThe file says hello."]
