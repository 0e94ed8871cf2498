"""The turn as a timeline: one tick per step, one glyph per call the breaker judged, a bolt per trip.

`│✓│✓│✓│✓│✗│✗` says what the scores and the window say in numbers, in the order it happened: how
many steps the turn took, where the denials started, whether a trip came first. It is shown on the
window panel's title; the newest part is kept when it is longer than the room.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wrapper.items import Item

# The item classes are imported where items are handled: items exist only once the session has opened,
# and the screen's first frame is drawn before the engine behind them is imported.

STEP, ALLOWED, DENIED, ASKED, RAN_THEN_TRIPPED, TRIP = "│", "✓", "✗", "?", "!", "⚡"
_VERDICT = {"allow": ALLOWED, "deny": DENIED, "ask": ASKED}


class Timeline:
    """The current turn's steps, verdicts and trips, fed the items the screen receives."""

    def __init__(self) -> None:
        self.turn = 0
        self.glyphs: list[str] = []

    def saw(self, item: Item) -> None:
        """A new turn starts over; a step, a verdict and a trip each add their glyph."""
        from engine import events as ev  # items come after the first frame: so do the engine's modules
        from wrapper.items import EngineItem, TripItem, VerdictItem

        if isinstance(item, EngineItem):
            e = item.event
            if isinstance(e, ev.TurnStart):
                self.turn, self.glyphs = e.turn, []
            elif isinstance(e, ev.StepStart):
                self.glyphs.append(STEP)
        elif isinstance(item, VerdictItem):
            deny_after_run = item.ran and item.verdict.kind == "deny"
            self.glyphs.append(RAN_THEN_TRIPPED if deny_after_run else _VERDICT.get(item.verdict.kind, ASKED))
        elif isinstance(item, TripItem):
            self.glyphs.append(TRIP)

    def text(self, room: int) -> str:
        """`turn N │✓│✗⚡`, the oldest glyphs cut (`…`) to fit `room` cells; "" before the first turn."""
        if not self.turn:
            return ""
        head = f"turn {self.turn} "
        glyphs = "".join(self.glyphs)
        space = max(0, room - len(head))
        if len(glyphs) > space:
            glyphs = "…" + glyphs[len(glyphs) - space + 1 :] if space > 1 else ""
        return head + glyphs
