"""`PlainSession`: any command that is neither dsh nor an ACP agent, watched through its terminal output.

Its output is fed to the engine as one stream (so reasoning-like floods still trip), a trip interrupts the
child with SIGINT, and a prompt is typed into it. Nothing is asked before a tool runs: there are no tool calls
to see.
"""

from __future__ import annotations

from engine import events as ev
from wrapper.child import strip_ansi
from wrapper.harness.pty import PtySession
from wrapper.items import OutputItem

CHILD_AGENT = "child"


class PlainSession(PtySession):
    """A plain command under the monitor."""

    def _on_child_output(self, text: str) -> None:
        self._emit(OutputItem(text))
        trip = self.breaker.feed(ev.OutputDelta(CHILD_AGENT, strip_ansi(text)))
        if trip is not None:
            self._spawn(self._on_trip(trip))
