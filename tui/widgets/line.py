"""A fixed-height text widget that repaints without a layout pass.

`Static.update()` asks for a new layout of the whole screen every time, which re-renders every
widget (tables included). The status line, the summary and the banner change many
times a second but never change size, so they use this instead: a new text only repaints the line.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.text import Text
from textual.widget import Widget


class Line(Widget):
    """Shows one `Text`; its height comes from CSS, never from the content."""

    DEFAULT_CSS = """
    Line { height: 1; }
    """

    def __init__(self, text: RenderableType = "", **kw: Any) -> None:
        super().__init__(**kw)
        self._text: RenderableType = Text(text) if isinstance(text, str) else text

    @property
    def content(self) -> RenderableType:
        """What is shown now."""
        return self._text

    def update(self, text: RenderableType, height: int | None = None) -> None:
        """Show `text` (plain strings are shown as they are, never parsed as markup).

        `height` (rows) changes the widget's height too, with one layout pass, only when it differs.
        """
        new = Text(text) if isinstance(text, str) else text
        if height is not None and self.styles.height is not None and self.styles.height.value != height:
            self.styles.height = height
        if isinstance(new, Text) and new == self._text:
            return
        self._text = new
        self.refresh()

    def render(self) -> RenderableType:
        return self._text


class Fitted:
    """One line: `head`, `body`, `tail`, with the body cut (an ellipsis) so the tail still shows.

    The trip banner's keys are what the person needs at once; on a narrow terminal the description
    gives way, not the keys.
    """

    def __init__(self, head: Text, body: Text, tail: Text) -> None:
        self.head, self.body, self.tail = head, body, tail

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = options.max_width - self.head.cell_len - self.tail.cell_len
        body = self.body.copy()
        if body.cell_len > room:
            body.truncate(max(1, room), overflow="ellipsis")
        yield Text.assemble(self.head, body, self.tail, no_wrap=True, overflow="ellipsis", end="")
