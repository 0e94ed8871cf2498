"""UTF-16 code-unit helpers: the seeds count, slice, hash and sort in JavaScript string units."""

from __future__ import annotations

import math
import re
import sys
from array import array
from collections.abc import Iterator
from typing import Final

# JavaScript's `\s` (with the u flag), hard-coded: Python's differs.
JS_SPACE = frozenset(
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[" + chr(0xD800) + "-" + chr(0xDFFF) + "]")  # chr(): mypyc takes no surrogate literals
_HIGH = "[" + chr(0xD800) + "-" + chr(0xDBFF) + "]"
_LOW = "[" + chr(0xDC00) + "-" + chr(0xDFFF) + "]"
_LONE = re.compile(_HIGH + "(?!" + _LOW + ")|(?<!" + _HIGH + ")" + _LOW)

FNV_OFFSET: Final = 0x811C9DC5
FNV_PRIME: Final = 0x01000193
MASK32: Final = 0xFFFFFFFF


UTF16 = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"  # the machine's order, as `array` reads it


def to_units(text: str) -> str:
    """Return `text` with every astral character written as two surrogate characters.

    In the result, one Python character is one UTF-16 code unit, so `len` and slicing
    behave like JavaScript's.
    """
    if text.isascii() or not _ASTRAL.search(text):
        return text
    # encode to UTF-16 and read each code unit back as one character, at C speed
    units = array("H")
    units.frombytes(text.encode(UTF16, "surrogatepass"))
    return "".join(map(chr, units))


def utf16_len(text: str) -> int:
    """Length of `text` in UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def has_surrogate(units: str) -> bool:
    """True when a unit string holds any surrogate code unit."""
    return not units.isascii() and _SURROGATE.search(units) is not None


def code_points(units: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Yield (offset, code point) over units[start:end] the way `codePointAt` walks.

    A valid pair is one code point even when its low half lies at `end` (it is read
    whole if present in the buffer); a lone surrogate is its own code point.
    """
    i = start
    n = len(units)
    while i < end:
        c = ord(units[i])
        if 0xD800 <= c <= 0xDBFF and i + 1 < n:
            d = ord(units[i + 1])
            if 0xDC00 <= d <= 0xDFFF:
                yield i, 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00)
                i += 2
                continue
        yield i, c
        i += 1


def from_units(units: str) -> str:
    """Rejoin surrogate pairs of a unit string into astral characters (lone halves stay)."""
    if not has_surrogate(units):
        return units
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def sort_key(text: str) -> bytes:
    """Sort key giving JavaScript's default (UTF-16 code unit) string order."""
    return text.encode("utf-16-be", "surrogatepass")


def round3(x: float) -> float:
    """JavaScript `Math.round(x * 1000) / 1000`: exact halves go toward +infinity."""
    return math.floor(x * 1000 + 0.5) / 1000


def escape_lone_surrogates(text: str) -> str:
    r"""Write lone surrogates as `\\udXXX`, as well-formed `JSON.stringify` does."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _LONE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def usv(text: str) -> str:
    """Replace lone surrogates with U+FFFD, as a WebIDL USVString conversion does."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _LONE.sub("\ufffd", text)
