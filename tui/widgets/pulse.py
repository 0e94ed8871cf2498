"""Signs of life while the agent works: how long the turn has run, what has streamed, how long it has been silent.

A bare `working…` looks the same for a model that thinks and for one that hung; a person waiting
needs a clock that ticks, a count that grows, and a word when nothing has arrived for a while. The
clock is injected, so the texts can be checked without waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wrapper.items import Item

# The item classes are imported where items are handled: items exist only once the session has opened,
# and the screen's first frame is drawn before the engine behind them is imported.

SILENT_AFTER_S = 10.0  # a streaming model sends something every second or so; ten quiet ones are news
CHARS_PER_TOKEN = 4  # the usual rough figure for English text and code, to show a growing count


def seconds(s: float) -> str:
    """`7s`, `1m05s`, `1h02m`: short enough for the status line."""
    n = int(s)
    if n < 60:
        return f"{n}s"
    if n < 3600:
        return f"{n // 60}m{n % 60:02d}s"
    return f"{n // 3600}h{n // 60 % 60:02d}m"


def tokens(n: int) -> str:
    """`340`, `1.2k`, `15k`."""
    if n < 1000:
        return str(n)
    return f"{n / 1000:.1f}k" if n < 10_000 else f"{n // 1000}k"


class Pulse:
    """The busy turn's clock: started when the agent starts working, fed every item, read by the status line."""

    def __init__(self, silent_after_s: float = SILENT_AFTER_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.silent_after_s = silent_after_s
        self.clock = clock
        self.born = clock()  # when the monitor started: an agent that takes long to start is timed from here
        self.started: float | None = None  # when the agent started working (None: idle)
        self.last: float = 0.0  # when the last sign of life arrived
        self.chars = 0  # streamed reasoning and answer text this turn
        self.asked: float | None = None  # since when a question waits for the person (None: none does)

    def busy(self, working: bool) -> None:
        """Follow the agent's state: the clock starts when it starts working and stops when it stops."""
        if working and self.started is None:
            self.started = self.last = self.clock()
            self.chars = 0
        elif not working:
            self.started = None

    def asking(self, waiting: bool) -> None:
        """Follow the approval modal: while a question waits for the person, the model is not silent.

        The agent is held until the person answers; a wait of minutes is theirs, not the model's, so
        the silence is counted again from the answer.
        """
        if waiting and self.asked is None:
            self.asked = self.clock()
        elif not waiting and self.asked is not None:
            self.asked = None
            self.last = self.clock()

    def saw(self, item: Item) -> None:
        """Anything the agent sends is a sign of life; streamed text also grows the count."""
        if self.started is None:
            return
        from engine import events as ev  # items come after the first frame: so do the engine's modules
        from wrapper.items import EngineItem

        if isinstance(item, EngineItem) and isinstance(item.event, ev.ReasoningDelta | ev.AnswerDelta):
            self.chars += len(item.event.text)
        self.last = self.clock()

    def silent_for(self) -> float:
        """Seconds since the last sign of life while working past `silent_after_s`, else 0."""
        if self.started is None or self.asked is not None:
            return 0.0
        quiet = self.clock() - self.last
        return quiet if quiet >= self.silent_after_s else 0.0

    def starting(self) -> str:
        """`starting 12s`: how long the agent has taken to open its session so far."""
        return f"starting {seconds(self.clock() - self.born)}"

    def parts(self) -> list[tuple[str, bool]]:
        """The status line's words, each with whether it is a warning: elapsed, the count, the silence."""
        if self.started is None:
            return []
        out = [(f"working {seconds(self.clock() - self.started)}", False)]
        if self.chars:
            out.append((f"~{tokens(self.chars // CHARS_PER_TOKEN)} tok", False))
        if self.asked is not None:
            out.append((f"waiting for your answer {seconds(self.clock() - self.asked)}", False))
        if quiet := self.silent_for():
            out.append((f"nothing from the model for {seconds(quiet)}", True))  # the footer offers esc
        return out
