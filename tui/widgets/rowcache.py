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
from typing import Any, Generic, TypeVar

from textual.strip import Strip

K = TypeVar("K")
V = TypeVar("V")

# A strip's caches of derived strips (`_render_cache` is a string, `_link_ids` a set of strings).
_STRIP_CACHES = tuple(name for name in Strip.__slots__ if name.endswith("_cache") and name != "_render_cache")


def _strips(value: Any) -> Iterable[Strip]:
    if isinstance(value, Strip):
        yield value
    elif isinstance(value, list):
        yield from (v for v in value if isinstance(v, Strip))


def uncycle(strip: Strip, depth: int = 2) -> None:
    """Empty `strip`'s caches, and those of the strips cached in them (`depth` levels down)."""
    for name in _STRIP_CACHES:
        cache = getattr(strip, name, None)
        if cache is None:
            continue
        if depth:
            for key in list(cache.keys()):
                for derived in _strips(cache.get(key)):
                    if derived is not strip:
                        uncycle(derived, depth - 1)
        cache.clear()


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
