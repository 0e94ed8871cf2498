"""Block cutting shared by both reasoning lenses: disjoint fixed-size blocks in UTF-16 units."""

from __future__ import annotations

from typing import Any

from engine.units import to_units


def block_key(units: str, base: int, end: int) -> str:
    """The units a block's whole fingerprint reads: its own, plus a straddling pair's low half."""
    if end < len(units) and 0xD800 <= ord(units[end - 1]) <= 0xDBFF and 0xDC00 <= ord(units[end]) <= 0xDFFF:
        return units[base : end + 1]
    return units[base:end]


class BlockBuffer:
    """Accumulates deltas and hands out complete disjoint blocks, trimming consumed text.

    Subclasses implement `_block(base, end)`; a non-None return is a trip and stops the push
    with the buffer untrimmed, as the seed does.
    """

    def __init__(self, block_chars: int) -> None:
        self.block_chars = block_chars
        self.text = ""
        self.next_base = 0
        self.idx = 0

    def push(self, delta: Any) -> dict[str, Any] | None:
        """Feed one delta; return the first trip it causes, if any."""
        if not isinstance(delta, str) or not delta:
            return None
        self._append(delta)
        b = self.block_chars
        while self._units() - self.next_base >= b:
            base = self.next_base
            trip = self._block(base, base + b)
            self.next_base = base + b
            self.idx += 1
            if trip is not None:
                return trip
        if self.next_base >= b:
            self._drop(self.next_base)
            self.next_base = 0
        return None

    # how the text is kept: a unit string here; a subclass may keep it another way
    def _append(self, delta: str) -> None:
        self.text += to_units(delta)

    def _units(self) -> int:
        return len(self.text)

    def _drop(self, units: int) -> None:
        self.text = self.text[units:]

    def _block(self, base: int, end: int) -> dict[str, Any] | None:
        raise NotImplementedError
