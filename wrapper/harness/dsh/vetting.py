"""No verdict, no run: the monitor's own check that every call dsh ran was one it allowed.

The bridge's guard is dsh's last word before a call runs, but it lives in dsh's process, where a
hostile plugin can switch it off (`ctx.tools.guardReason = () => undefined`). The monitor sees the
other end of every call: dsh reports a result for each call that ran (`tool/result` events and the
bridge's `result_request`). A result for a call that never had a verdict means something answered
before the bridge; a result with real output for a call the monitor denied means the denial was
overridden. Either is an alarm: loud, recorded, and from then on the session fails closed (every
later call denied, the child stopped). Pure bookkeeping; the session acts on what it returns.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Literal

MAX_CALLS = 8192  # remembered call ids (oldest dropped first)

Kind = Literal["allow", "deny", "ask"]


class Ledger:
    """The verdict given for each call id, and the alarm once one ran without it."""

    def __init__(self) -> None:
        self._verdicts: OrderedDict[str, tuple[Kind, str]] = OrderedDict()
        self._approved: set[str] = set()
        self.alarm: str | None = None  # the first reason the session is no longer trusted

    def _keep(self, call_id: str, kind: Kind, message: str) -> None:
        self._verdicts[call_id] = (kind, message)
        self._verdicts.move_to_end(call_id)
        while len(self._verdicts) > MAX_CALLS:
            old, _ = self._verdicts.popitem(last=False)
            self._approved.discard(old)

    def verdict(self, call_id: str, kind: Kind, message: str = "") -> None:
        """The monitor answered a verdict request for `call_id`."""
        self._keep(call_id, kind, message)

    def answered(self, call_id: str, allowed: bool, deny_text: str | None = None) -> None:
        """The operator (or a policy) answered the approval for `call_id`."""
        if allowed and not deny_text:
            self._approved.add(call_id)
        else:
            self._keep(call_id, "deny", deny_text or "")

    def ran(self, call_id: str, name: str, text: str | None, is_error: bool = False) -> str | None:
        """dsh reports a result for `call_id` (`text` None when the report carries no output): the alarm, or None."""
        if not call_id:
            return None
        got = self._verdicts.get(call_id)
        why: str | None = None
        if got is None:
            if text is not None and _is_denial(text, "", is_error):
                return None  # reported as not run (a bridge timeout, a validation error): nothing ran
            why = (
                f"{name or 'a tool'} call {call_id} ran without a verdict from breaker-tui: something in dsh "
                "answered before the bridge (a plugin loaded during the session?)"
            )
        elif got[0] == "deny" and text is not None and not _is_denial(text, got[1], is_error):
            why = f"{name or 'a tool'} call {call_id} was denied by breaker-tui but produced a real result"
        elif (
            got[0] == "ask"
            and call_id not in self._approved
            and text is not None
            and not _is_denial(text, got[1], is_error)
        ):
            why = f"{name or 'a tool'} call {call_id} ran although its approval was never granted"
        if why is not None and self.alarm is None:
            self.alarm = why
        return why


def _is_denial(text: str, message: str, is_error: bool) -> bool:
    """Whether a result is a refusal: dsh reports a call it did not run as an error `Error: <reason>`."""
    if not is_error:
        return not text.strip()
    head = message.strip()[:60]
    return text.lstrip().startswith("Error:") or (bool(head) and head in text)
