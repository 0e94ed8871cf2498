"""Word wrap for the stream log, and for a line that only grows: wrapped again from its last row.

The line still streaming grows by a few characters per delta. Wrapping it whole each time costs its
length per delta; wrapping only its last row and what was appended costs the delta. The rows before
the last one never change when text is appended: Rich breaks a line greedily, word by word, and a
break is decided by the words before it (a word that grows past the end of a row only moves itself;
a word folded over several rows is folded again from its first row).
So a growing line and the same text wrapped at once give the same rows (a property test holds the
two to it), and a line looks the same while it streams and once it is finished.
"""

from __future__ import annotations

from rich._wrap import divide_line  # the breaks Rich's own `Text.wrap` uses
from rich.console import Console
from rich.text import Text
from textual.strip import Strip


def wrap_rows(text: Text, console: Console, width: int) -> list[Strip]:
    """`text` word-wrapped (words longer than a row folded) at `width` cells, one `Strip` a row."""
    text.expand_tabs()
    options = console.options.update(width=width, no_wrap=False, overflow="fold", height=None)
    return [Strip(line) for line in console.render_lines(text, options, pad=False)]


def _plain_line(text: Text) -> bool:
    """One style over one line of text: what `GrowingLine` can extend."""
    return not text.spans and "\n" not in text.plain and "\t" not in text.plain


def _word_start(plain: str, at: int) -> bool:
    """A row starts at `at` because a word did not fit (not inside a word folded over rows)."""
    return plain[at - 1].isspace() and not plain[at].isspace()


class GrowingLine:
    """The rows of a line that is replaced by longer versions of itself, wrapped incrementally."""

    def __init__(self) -> None:
        self.rows: list[Strip] = []
        self._text: Text | None = None  # the text the rows are of, when it can be extended
        self._breaks: list[int] = []  # where rows 1.. start, in characters
        self._width = 0

    def extends(self, text: Text, width: int) -> bool:
        """`text` is the current text with more appended (same style, same width)."""
        old = self._text
        return (
            old is not None
            and width == self._width
            and _plain_line(text)
            and text.style == old.style
            and text.plain.startswith(old.plain)
        )

    def update(self, text: Text | None, console: Console, width: int) -> int:
        """Rows of `text` now (none for None or empty); returns the index of the first row that changed."""
        if text is None or not text.plain:
            self.reset()
            return 0
        if self.extends(text, width):
            kept = len(self._breaks)  # every row but the last stays, unless the last word began earlier
            while kept and not _word_start(text.plain, self._breaks[kept - 1]):
                kept -= 1  # a word folded over rows is folded again from its start
            start = self._breaks[kept - 1] if kept else 0
            tail = text[start:]
            self.rows = self.rows[:kept] + wrap_rows(tail, console, width)
            self._breaks = self._breaks[:kept] + [start + b for b in divide_line(tail.plain, width, fold=True)]
        else:
            kept = 0
            self.rows = wrap_rows(text, console, width)
            self._breaks = divide_line(text.plain, width, fold=True) if _plain_line(text) else []
        self._width = width
        self._text = text if _plain_line(text) and len(self._breaks) + 1 == len(self.rows) else None
        return kept

    def reset(self) -> None:
        """No line."""
        self.rows = []
        self._text = None
        self._breaks = []
