"""Bridge messages played from memory through a real `BridgeMonitor`, as a live dsh session would play them.

The screen's scripted source (Pilot tests and snapshots) drives this feed through the registry; approval
requests come back as a question with its answerer, so the app's modal answers them as in a live session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wrapper.harness.declaration import Played
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.monitor import BridgeMonitor
from wrapper.harness.dsh.replay import describe_command
from wrapper.items import Answer, ApprovalClosed, Item, Question, TripItem, VerdictItem
from wrapper.monitor import Info
from wrapper.settings import Settings


class ScriptedBridge:
    """One dsh conversation fed message by message; refused calls get the refusal dsh would report as their result."""

    def __init__(self, settings: Settings) -> None:
        self._monitor = BridgeMonitor(settings, Info(dsh=True, runner=True, child="running", bridge="connected"))
        self._refused: dict[str, str] = {}  # call id -> the denial dsh would report as its result

    @property
    def monitor(self) -> BridgeMonitor:
        return self._monitor

    def play(self, raw: dict[str, Any]) -> Played:
        """The items one bridge message yields, and the approval question it asks (if any)."""
        if raw.get("t") == "approval_closed":  # what the session emits when the bridge gives up
            return Played([ApprovalClosed(str(raw.get("id", "")), str(raw.get("reason", "")))])
        if raw.get("t") == "result_request" and str(raw.get("callId", "")) in self._refused:
            # as dsh does: a call the breaker refused never ran, and its result is the refusal
            raw = {**raw, "isError": True, "text": f"Error: {self._refused[str(raw['callId'])]}"}
        m = self._monitor
        r = m.handle(P.parse_inbound(raw))
        items: list[Item] = []
        for item in r.items:
            if isinstance(item, VerdictItem) and item.verdict.kind == "deny":
                self._refused[item.call_id] = item.verdict.message
            items.append(item)
        items += [TripItem(trip, describe_command(m.trip_command(trip))) for trip in r.trips]
        if r.approval is None:
            return Played(items)
        q = m.question(r.approval)
        return Played(items, q, _answerer(m, r.approval, q))


def _answerer(m: BridgeMonitor, msg: P.ApprovalRequest, q: Question) -> Callable[[Answer], None]:
    def answer(a: Answer) -> None:
        m.answer(msg, q, a)

    return answer
