"""Dropped rows are freed by reference counting: a row cache empties a dropped strip's caches."""

from __future__ import annotations

import gc

from rich.segment import Segment
from textual.strip import Strip

from tui.widgets.rowcache import RowCache, uncycle


def _cyclic(n: int) -> Strip:
    """A drawn row: Textual caches the strip as its own padded and divided self."""
    strip = Strip([Segment(f"row {n:04d}")])
    assert strip.extend_cell_length(strip.cell_length) is strip
    assert strip.divide([strip.cell_length]) == [strip]
    return strip


def _strips_alive() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is Strip)


def test_an_uncycled_strip_is_freed_without_the_collector() -> None:
    gc.collect()
    gc.disable()
    try:
        before = _strips_alive()
        kept = [_cyclic(n) for n in range(300)]
        for s in kept:
            uncycle(s)
        del kept, s
        assert _strips_alive() - before < 5, "freed by reference counting"
        cycles = [_cyclic(n) for n in range(300)]
        del cycles
        assert _strips_alive() - before >= 300, "without it they wait for the collector"
    finally:
        gc.enable()
        gc.collect()


def test_the_cache_releases_what_it_evicts_discards_and_clears() -> None:
    released: list[str] = []
    cache: RowCache[int, str] = RowCache(2, released.append)
    cache.set(1, "a")
    cache.set(2, "b")
    assert cache.get(1) == "a"  # 1 is now the most recently used
    cache.set(3, "c")
    assert released == ["b"] and cache.get(2) is None and len(cache) == 2
    cache.set(3, "c2")
    assert released == ["b", "c"], "a replaced value is released"
    cache.discard(1)
    cache.clear()
    assert released == ["b", "c", "a", "c2"] and len(cache) == 0
