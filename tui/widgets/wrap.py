"""Word wrap for the stream log, and for a line that only grows: wrapped again from its last row.

The line still streaming grows by a few characters per delta. Wrapping it whole each time costs its
length per delta; wrapping only its last row and what was appended costs the delta. The rows before
the last one never change when text is appended: Rich breaks a line greedily, word by word, and a
break is decided by the words before it (a word that grows past the end of a row only moves itself;
a word folded over several rows is folded again from its first row).
So a growing line and the same text wrapped at once give the same rows (a property test holds the
two to it), and a line looks the same while it streams and once it is finished.

Rows keep their line's gutter: a reasoning line's continuation rows start with its `│ ` again, and
a verdict's or a call's rows are indented under their text (`gutter`), so a long paragraph is
still read as one block. The gutter is cut off, the rest wrapped narrower, and the gutter (or its
indent) put back in front of every row, by both the whole-text and the growing wrap.
"""

from __future__ import annotations

import re
from itertools import pairwise

from rich._wrap import divide_line  # the breaks Rich's own `Text.wrap` uses
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip

from tui.widgets.rowcache import uncycle_rows

MIN_BODY = 10  # a row narrower than this after its gutter is wrapped without one
MAX_INDENT = 8


def gutter(plain: str) -> tuple[int, str]:
    """The line's gutter: (its length in characters, what its continuation rows start with), or (0, "").

    `│ ` repeats itself; a marker and a space (`⚙ `, `  ⛔ `, `▶ `) or leading spaces become an
    indent of the same width.
    """
    if plain.startswith("│ "):
        return 2, "│ "
    m = len(plain) - len(plain.lstrip(" "))
    if m > MAX_INDENT:
        return 0, ""
    if len(plain) > m + 1 and not plain[m].isalnum() and not plain[m].isspace() and plain[m + 1] == " ":
        g = m + 2
    elif m:
        g = m
    else:
        return 0, ""
    return g, " " * cell_len(plain[:g])


_WORD = re.compile(r" *[^ ]+ *")  # Rich's word (`rich._wrap.re_word`) where the only whitespace is a space


def breaks(plain: str, width: int) -> list[int]:
    """Where Rich's `divide_line(plain, width, fold=True)` breaks a line. For printable ASCII (one
    cell a character, no whitespace but spaces) it is computed here with lengths instead of Rich's
    per-word cell measuring, three times as fast on a stream's lines; a property test holds the two
    equal.
    """
    if not (plain.isascii() and plain.isprintable()) or width < 1:
        return divide_line(plain, width, fold=True)
    found: list[int] = []
    offset = 0  # cells used on the current row
    for word in _WORD.finditer(plain):
        start, end = word.span()
        length = len(word.group().rstrip())  # the word without the spaces after it
        if width - offset >= length:
            offset += end - start
        elif length > width:  # longer than a row: folded, a row's width at a time
            pieces = range(start, end, width)
            for first in pieces:
                if first:
                    found.append(first)
            offset = end - pieces[-1]
        elif offset and start:
            found.append(start)
            offset = end - start
    return found


def _wrap(text: Text, console: Console, width: int) -> list[Strip]:
    fast = _wrap_plain(text, console, width)
    if fast is not None:
        return fast
    options = console.options.update(width=width, no_wrap=False, overflow="fold", height=None)
    return [Strip(line) for line in console.render_lines(text, options, pad=False)]


def _wrap_plain(text: Text, console: Console, width: int) -> list[Strip] | None:
    """Rich's wrap of one line of printable ASCII in one style, without Rich's renderer (None: not such
    a line). Streamed text is mostly that; a row is one character a cell, so the breaks Rich's
    `divide_line` finds are the rows, each with the whitespace past the width cut (`rstrip_end`).
    A property test holds it to Rich's own output.
    """
    plain = text.plain
    if text.spans or not plain or not plain.isascii() or not plain.isprintable() or width < 1:
        return None
    if text.justify not in (None, "default") or text.overflow not in (None, "fold") or text.no_wrap:
        return None
    style = console.get_style(text.style) if text.style else None
    bounds = [0, *breaks(plain, width), len(plain)]
    rows: list[Strip] = []
    for start, end in pairwise(bounds):
        piece = plain[start:end]
        if len(piece) > width:  # only whitespace can run past the width: cut as much of it as runs over
            stripped = piece.rstrip()
            piece = piece[: max(width, len(stripped))]
        rows.append(Strip([Segment(piece, style)] if piece else [], len(piece)))
    return rows


class _Gutter:
    """A line's gutter cut off its text: the segments of its first row and of every other row."""

    def __init__(self, text: Text, g: int, cont: str, console: Console) -> None:
        self.key = (text.plain[:g], text.style)
        self.length = g
        self.width = cell_len(cont)
        head = text[:g]
        self.first = [s for s in head.render(console, end="") if s.text]
        self.rest = [Segment(cont, head.get_style_at_offset(console, 0))]

    def put_back(self, rows: list[Strip], start: int = 0) -> list[Strip]:
        """`rows` (row `start` onwards of the body) with the gutter in front."""
        return [Strip([*(self.first if start + n == 0 else self.rest), *row]) for n, row in enumerate(rows)]


def _gutter_of(text: Text, console: Console, width: int) -> _Gutter | None:
    g, cont = gutter(text.plain)
    if not g or width - cell_len(cont) < MIN_BODY or len(text.plain) == g:
        return None
    return _Gutter(text, g, cont, console)


def wrap_rows(text: Text, console: Console, width: int) -> list[Strip]:
    """`text` word-wrapped (words longer than a row folded) at `width` cells, one `Strip` a row, gutter kept."""
    text.expand_tabs()
    gut = _gutter_of(text, console, width)
    if gut is None:
        return _wrap(text, console, width)
    return gut.put_back(_wrap(text[gut.length :], console, width - gut.width))


def _plain_line(text: Text) -> bool:
    """One style over one line of text: what `GrowingLine` can extend."""
    return not text.spans and "\n" not in text.plain and "\t" not in text.plain


def _word_start(plain: str, at: int) -> bool:
    """A row starts at `at` because a word did not fit (not inside a word folded over rows)."""
    return plain[at - 1].isspace() and not plain[at].isspace()


class GrowingLine:
    """The rows of a line that is replaced by longer versions of itself, wrapped incrementally, gutter kept."""

    def __init__(self) -> None:
        self.rows: list[Strip] = []
        self._body = _Body()
        self._gutter: _Gutter | None = None

    def _split(self, text: Text, console: Console, width: int) -> tuple[_Gutter | None, Text, int]:
        gut = _gutter_of(text, console, width)
        if gut is not None and self._gutter is not None and gut.key == self._gutter.key:
            gut = self._gutter  # the same gutter: its segments are kept
        return (None, text, width) if gut is None else (gut, text[gut.length :], width - gut.width)

    def extends(self, text: Text, width: int) -> bool:
        """`text` is the current text with more appended (same style, same width, same gutter)."""
        g, cont = gutter(text.plain)
        gut = self._gutter
        if gut is None:
            return self._body.extends(text, width) and not (g and width - cell_len(cont) >= MIN_BODY)
        return text.plain[:g] == gut.key[0] and self._body.extends(text[g:], width - gut.width)

    def update(self, text: Text | None, console: Console, width: int) -> int:
        """Rows of `text` now (none for None or empty); returns the index of the first row that changed."""
        if text is None or not text.plain:
            self.reset()
            return 0
        old = self.rows
        gut, body, body_width = self._split(text, console, width)
        if gut is not self._gutter:
            self._body.reset()
        self._gutter = gut
        first = self._body.update(body, console, body_width)
        if gut is None:
            self.rows = self._body.rows
        else:
            self.rows = self.rows[:first] + gut.put_back(self._body.rows[first:], first)
        kept = {id(row) for row in self.rows}
        uncycle_rows(row for row in old[first:] if id(row) not in kept)  # drawn rows replaced: freed at once
        return first

    def reset(self) -> None:
        """No line."""
        self.rows = []
        self._body.reset()
        self._gutter = None


class _Body:
    """The rows of the text after the gutter, wrapped incrementally."""

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
            self.rows = self.rows[:kept] + _wrap(tail, console, width)
            self._breaks = self._breaks[:kept] + [start + b for b in breaks(tail.plain, width)]
        else:
            kept = 0
            text.expand_tabs()
            self.rows = _wrap(text, console, width)
            self._breaks = breaks(text.plain, width) if _plain_line(text) else []
        self._width = width
        self._text = text if _plain_line(text) and len(self._breaks) + 1 == len(self.rows) else None
        return kept

    def reset(self) -> None:
        """No line."""
        self.rows = []
        self._text = None
        self._breaks = []
