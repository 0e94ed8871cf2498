"""Caches of drawn rows that free what they drop at once, instead of leaving it to the collector.

Textual's `Strip` keeps what it derives (cropped, padded, styled, divided copies) in small caches
of its own, and some of them hold the strip itself: a strip already the length asked for, or
divided at its own end, is its own result. So every row the screen has drawn is a reference cycle,
and dropped it waits for the garbage collector. A fast stream drops thousands a second; they are
promoted before they die, and the full collections they bring stalled frames for 30 to 140 ms on
the 2-core machine (`python -m tui.bench`). A row these caches drop has its strips' caches emptied
(all of it recomputable), so reference counting frees it at once.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Generic, TypeVar

from textual.strip import Strip

K = TypeVar("K")
V = TypeVar("V")

# A strip's caches of derived strips (`_render_cache` is a string, `_link_ids` a set of strings),
# fetched together: a fast stream frees thousands of rows a second, each several strips deep.
_STRIP_CACHES = tuple(name for name in Strip.__slots__ if name.endswith("_cache") and name != "_render_cache")
_caches_of = attrgetter(*_STRIP_CACHES)


def uncycle(strip: Strip, depth: int = 2) -> None:
    """Empty `strip`'s caches, and those of the strips cached in them (`depth` levels down)."""
    for cache in _caches_of(strip):
        entries = getattr(cache, "_cache", cache)  # a FIFOCache's dict (most are empty)
        if not entries:
            continue
        if depth:
            for value in list(entries.values()):
                for derived in value if isinstance(value, list) else (value,):
                    if derived is not strip and isinstance(derived, Strip):
                        uncycle(derived, depth - 1)
        entries.clear()


def uncycle_rows(rows: Iterable[Strip]) -> None:
    """`uncycle` every strip of a line."""
    for strip in rows:
        uncycle(strip)


class RowCache(Generic[K, V]):
    """A least-recently-used cache that hands what it drops (evicted, discarded, cleared) to `release`."""

    def __init__(self, maxsize: int, release: Callable[[V], None]) -> None:
        self.maxsize = maxsize
        self._release = release
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        """The value for `key` (now the most recently used), or None."""
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def set(self, key: K, value: V) -> None:
        """Keep `value` under `key`; the least recently used values beyond `maxsize` are dropped."""
        old = self._items.pop(key, None)
        if old is not None and old is not value:
            self._release(old)
        self._items[key] = value
        while len(self._items) > max(1, self.maxsize):
            _, dropped = self._items.popitem(last=False)
            self._release(dropped)

    def discard(self, key: K) -> None:
        """Drop `key`'s value, if any."""
        value = self._items.pop(key, None)
        if value is not None:
            self._release(value)

    def clear(self) -> None:
        """Drop everything."""
        items, self._items = self._items, OrderedDict()
        for value in items.values():
            self._release(value)
