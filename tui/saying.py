"""What the person's own key did ("cancel sent", "reasoning folded"), said on the notice line over the prompt.

A toast is for what went wrong: a toast per key press stacks over the prompt's hint and the notice
line on a small terminal (60x20, 80x24), where the person is looking anyway. An acknowledgement goes
on the notice line instead, in the theme's muted colour, and is not counted as one of the turn's
decisions; the next decision writes over it. A mixin of `BreakerApp`, under the actions and the
front end that both say such things.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App

from themes import palette
from tui.widgets.line import Line
from wrapper.safetext import inert


class Saying(App[int]):
    """`say`: one line on the notice line, for what a key did."""

    w_notice: Line

    def say(self, text: str) -> None:
        """Show `text` on the notice line (a toast before the main screen is composed)."""
        if not hasattr(self, "w_notice") or not self.w_notice.is_attached:
            self.notify(inert(text, keep_newlines=False), markup=False)
            return
        line = Text(inert(text, keep_newlines=False), style=palette(self.current_theme).muted, end="")
        line.no_wrap, line.overflow = True, "ellipsis"
        line.truncate(max(10, (self.w_notice.size.width or self.size.width) - 2), overflow="ellipsis")
        self.w_notice.display = True
        self.w_notice.update(line)

    def _unsay(self, text: str) -> None:
        """Take `text` off the notice line if it is still what the line shows (a later line stays)."""
        if not hasattr(self, "w_notice") or not self.w_notice.is_attached:
            return
        shown = self.w_notice.content
        if isinstance(shown, Text) and shown.plain == inert(text, keep_newlines=False):
            self.w_notice.update("")
            self.w_notice.display = False
