"""Verbatim reasoning loops, caught by the time their unit has repeated four times; and the prose filter.

Lens A compares 128-unit blocks and needs ten low-novelty blocks in a row, so a sentence repeated
word for word is caught only after 1,300–2,400 units. This lens looks for the tail of the stream
being periodic instead: when the last 4·p characters are one unit of p characters written four
times (p ≥ 25: shorter units are taken two or more at a time; and short units must fill 500
characters, so a 50-character sentence trips at its 10th copy, as in Gemini CLI), it trips. Candidate periods come from
earlier occurrences of the last 24 characters (`str.rfind`), so a check costs one scan of an 8 KiB
tail every 32 characters.

Structure is not prose: text inside ``` code fences, and runs of 12 or more symbols (dividers, box
drawing), are dropped before this lens and lens A see the text. Units must read as
prose (`is_prose`): at least four words, mostly letters, little code punctuation; so tables, code,
encoded data and unspaced scripts are left to lens A, and floods of symbols to the degeneracy lens,
which sees the unfiltered stream.
"""

from __future__ import annotations

import re
from typing import Any

TAIL = 8192
PROBE = 24
CHECK_EVERY = 32
MIN_UNIT = 25
MAX_UNIT = 2000
COPIES = 4
MIN_SPAN = 500  # short units must fill this many characters (a 50-char unit: 10 copies)
CANDIDATES = 8
_CODE_CHARS = frozenset("{}()[];=<>|`\\/#$")
_SYMBOL_RUN = re.compile(r"(?:[^\w\s]\s?){12,}")


class ProseFilter:
    """Drops fenced code and long runs of symbols (dividers, box drawing) from a stream, delta by delta."""

    def __init__(self) -> None:
        self.pending = ""
        self.fenced = False

    def push(self, text: str) -> str:
        """The prose part of this delta (a trailing partial fence marker is held back)."""
        if not self.pending and "`" not in text:
            # most deltas: no fence marker to find or hold back, so the delta is kept whole or dropped whole
            return "" if self.fenced else _SYMBOL_RUN.sub(" ", text)
        return self.split(text)

    def split(self, text: str) -> str:
        """`push` the general way: fence markers found, toggled and dropped, a trailing partial one held back."""
        buf = self.pending + text
        keep = len(buf) - len(buf.rstrip("`"))
        if keep:
            buf, self.pending = buf[:-keep], buf[-keep:]
        else:
            self.pending = ""
        parts = buf.split("```")
        kept: list[str] = []
        for k, part in enumerate(parts):
            if k:
                self.fenced = not self.fenced
            if not self.fenced and part:
                kept.append(part)
        return _SYMBOL_RUN.sub(" ", "".join(kept))


_ITEM = re.compile(r"^\s*(?:[-*+•]\s|\d{1,3}[.)]\s|\|)")
STRUCTURE_TAIL = 1536  # how much recent prose the structure test looks at
ITEM_SHARE = 0.6


def structured(text: str) -> bool:
    """Whether recent text is mostly a list or a table: six or more lines, 60% of them items or rows.

    A list whose items share a long note ("- `a.py`: added type hints ...", forty times) reads as low
    novelty to lens A, yet each item names something new; lens A's low-novelty streak does not trip
    on it. A list repeated word for word is still caught by lens A's exact repeats and this module's
    verbatim lens.
    """
    lines = [ln for ln in text.splitlines()[1:] if ln.strip()]  # the first line may be cut
    if len(lines) < 6:
        return False
    return sum(1 for ln in lines if _ITEM.match(ln)) >= ITEM_SHARE * len(lines)


def is_prose(unit: str) -> bool:
    """Whether a repeated unit reads as sentences: words, mostly letters, little code punctuation.

    Tables, code, encoded data and unspaced scripts repeat legitimately (or are left to lens A).
    """
    words = unit.split()
    if len(words) < 4:
        return False
    solid = sum(len(w) for w in words)
    letters = sum(c.isalpha() for c in unit)
    code = sum(c in _CODE_CHARS for c in unit)
    return letters >= 0.6 * solid and code <= 0.08 * solid


class VerbatimDetector:
    """One request stream's verbatim-loop lens. `push()` returns a trip descriptor or None."""

    def __init__(self) -> None:
        self.buf = ""
        self.total = 0
        self.since = 0

    def push(self, text: str) -> dict[str, Any] | None:
        """Feed prose; trip when the tail is one unit written `COPIES` times."""
        if not text:
            return None
        self.total += len(text)
        buf = self.buf + text
        if len(buf) > TAIL:
            buf = buf[-TAIL:]
        self.buf = buf
        self.since += len(text)
        if self.since < CHECK_EVERY or len(buf) < MIN_UNIT * COPIES:
            return None
        self.since = 0
        return self._check()

    def _check(self) -> dict[str, Any] | None:
        buf = self.buf
        n = len(buf)
        probe = buf[n - PROBE :]
        end = n - 1
        for _ in range(CANDIDATES):
            pos = buf.rfind(probe, 0, end)
            if pos < 0:
                return None
            p = n - PROBE - pos
            end = pos + PROBE - 1
            if p > MAX_UNIT or p * COPIES > n:
                return None
            if p < MIN_UNIT:
                continue
            copies = max(COPIES, -(-MIN_SPAN // p))
            if copies * p > n:
                continue
            if buf[n - (copies - 1) * p :] == buf[n - copies * p : n - p]:
                unit = buf[n - p :]
                if not is_prose(unit):
                    return None
                return {
                    "rule": "verbatim-loop",
                    "unit": p,
                    "copies": copies,
                    "sample": unit[:80],
                    "block": 0,
                    "offset": self.total,
                }
        return None
