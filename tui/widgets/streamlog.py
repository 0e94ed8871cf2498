"""The stream's scrolling log, drawn line by line: painting costs what changed, not the whole log.

A line API widget (like Textual's own `Log`). A finished line is wrapped once, at the log's width,
to count its rows; only the rows a frame shows are kept (cached, a screen or two of them), so a
long log is a few thousand `Text`s rather than tens of thousands of `Strip`s for the garbage
collector to walk. The open last line (the text still streaming) is wrapped again from its last row
when text is appended (`tui.widgets.wrap`), and only the rows that changed are refreshed. A new
width re-counts the newest lines, as many as fill `max_rows`.

The log follows the end while it is scrolled to the end, but never scrolls past a row no frame has
drawn (at most `BEHIND_SCREENS` behind: `_to_end`); once the person scrolls up it stays where they are
(even while old rows are dropped from the top) until they scroll back down.

Arrival times handed to `track()` are timed when a frame actually draws the row that shows them:
that is the lag `python -m tui.bench` reports.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable
from math import ceil
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from tui.widgets.rowcache import RowCache, uncycle, uncycle_rows
from tui.widgets.wrap import GrowingLine, wrap_rows

MIN_WIDTH = 20  # narrower than this, lines are wrapped at this width and cropped
# Caches hold about a screen: every cached row is several `Strip`s the garbage collector walks.
ROW_CACHE_SCREENS = 2  # drawn rows kept, in screens
MIN_CACHE = 32
# While the log follows a stream its thumb creeps every frame; drawing the scrollbar costs as much as
# a third of the log, so it is redrawn at most this often then (at once when the person scrolls).
BAR_PERIOD_S = 0.25
# Following a stream that outruns the frames, the view may trail the end by this many screens, so a
# stall (a collection, a slow frame) is caught up with rather than skipped; further behind, rows skip.
BEHIND_SCREENS = 3
LAG_KEEP = 20000  # the newest lags kept for the benchmark
TRACK_KEEP = 100_000  # arrival times waiting for a frame (nobody paints: no screen)


def _thumb(size: int, virtual: int, window: int, position: float) -> tuple[int, int]:
    """Where the scrollbar's thumb is drawn, in eighths of a cell (Textual's own arithmetic)."""
    if not (window and size and virtual and size != virtual and virtual > window):
        return (0, 0)
    thumb = max(1.0, window / (virtual / size))
    start = int((size - thumb) * (position / (virtual - window)) * 8)
    return (start, start + ceil(thumb * 8))


class StreamLog(ScrollView, can_focus=True):
    """Rows of wrapped text: committed lines, then the open line; the newest `max_rows` are kept."""

    DEFAULT_CSS = """
    StreamLog {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        overflow-x: hidden;
        &:focus { background-tint: $foreground 5%; }
    }
    """

    # The log's box never depends on its content: growth repaints it, never re-lays-out the screen.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, max_rows: int = 4000, **kw: Any) -> None:
        super().__init__(**kw)
        self.max_rows = max_rows
        self._texts: deque[Text] = deque(maxlen=max_rows)  # committed lines, to re-wrap at a new width
        # The newest `len(_counts)` of `_texts` have rows: how many each, and the id of its first row.
        # Rows are not kept: a line is wrapped again when drawn (unless cached), so a long log is a
        # few thousand `Text`s, not tens of thousands of `Strip`s for the garbage collector to walk.
        self._counts: deque[int] = deque()
        self._starts: deque[int] = deque()
        self._next = 0  # the id of the row after the last committed one
        self._open: Text | None = None
        self._open_line = GrowingLine()  # its rows: wrapped again from the last row as it grows
        self._wrap_width = 0
        # first row id -> the line's rows; row id -> cropped, styled row (what they drop is freed at once)
        self._wrapped: RowCache[int, list[Strip]] = RowCache(MIN_CACHE, uncycle_rows)
        self._cache: RowCache[int, Strip] = RowCache(MIN_CACHE, uncycle)
        self._base = Style()
        # what the cached rows were made for: line filters, the background they see, the padding, `_base`
        self._rows_key: tuple[tuple[LineFilter, ...], Color, Style, Style] = ((), Color(0, 0, 0), Style(), Style())
        self._blank: Strip | None = None  # the blank row under the last, as made for `_rows_key`
        self._bar_key: tuple[int, int, int] = (0, 0, 0)
        self._bar_at = 0.0  # when the scrollbar was last redrawn
        self._bar_later = False  # a redraw is scheduled
        self.bar_redraws = 0
        self._follow = True  # scrolled to the end: new rows scroll into view
        self._catching_up = False  # following, but a screenful behind: see `_to_end`
        self._scrolling = False  # `_to_end` is scrolling (not the person)
        self._fresh: int | None = None  # the first row written since a frame last drew the log
        self._tracked: deque[tuple[int, float]] = deque()  # (row id, arrival) not yet on screen
        self.lags: list[float] = []  # seconds from arrival to the frame that drew it
        self.unseen = 0  # arrivals whose rows scrolled past before any frame drew them

    # -- content -------------------------------------------------------------------------------
    @property
    def _first(self) -> int:
        """The id of the top row."""
        return self._starts[0] if self._starts else self._next

    @property
    def committed_rows(self) -> int:
        """Rows of finished lines."""
        return self._next - self._first

    @property
    def _open_rows(self) -> list[Strip]:
        return self._open_line.rows

    @property
    def row_count(self) -> int:
        """Rows in the log."""
        return self.committed_rows + len(self._open_rows)

    @property
    def lines(self) -> list[Strip]:
        """Every row, the open line's included (wraps them all: for tests and export)."""
        return [self._row(self._first + i) for i in range(self.committed_rows)] + self._open_rows

    def write(self, texts: list[Text]) -> None:
        """Append committed lines (before the open line)."""
        if not texts:
            return
        self._texts.extend(texts)
        if not self._wrap_width:
            return  # not laid out yet: the first resize wraps them
        follow = self._at_end()
        start, old_end = self.committed_rows, self._next + len(self._open_rows)
        for n, text in enumerate(texts):
            if n == 0 and self._open_line.extends(text, self._wrap_width):  # the open line, finished
                self._open_line.update(text, self.app.console, self._wrap_width)
                rows = self._open_line.rows
                self._open_line.reset()
                self._open = None
            else:
                rows = self._wrap(text)
            self._wrapped.set(self._next, rows)
            self._add_line(len(rows))
        self._discard(self._first + start, max(old_end, self._next + len(self._open_rows)))
        self._changed(start, follow, shrunk=True)

    def set_open(self, text: Text | None) -> None:
        """Replace the open last line (None: no line is open); only its rows are wrapped again."""
        if text is None and self._open is None:
            return
        self._open = text
        if not self._wrap_width:
            return
        follow = self._at_end()
        old_end = self._next + len(self._open_rows)
        first = self._open_line.update(text, self.app.console, self._wrap_width)
        self._discard(self._next + first, max(old_end, self._next + len(self._open_rows)))
        self._changed(self.committed_rows + first, follow, shrunk=True)

    def replace(self, texts: Iterable[Text], open_line: Text | None) -> None:
        """Show these lines instead (folding, a replay starting over), at the end."""
        self._texts = deque(texts, maxlen=self.max_rows)
        self._open = open_line
        self._rewrap(follow=True)

    def clear(self) -> None:
        """Forget every line."""
        self.replace((), None)

    def track(self, arrivals: list[float], line: int | None = None) -> None:
        """Time these arrivals to the frame that draws the row showing them: the last row of the
        `line`-th committed line from the end (1: the last one), or the log's newest row.
        """
        row = self._first + max(0, self.row_count - 1)
        if line is not None and 0 < line <= len(self._counts):
            k = len(self._counts) - line
            row = self._starts[k] + self._counts[k] - 1
        self._tracked.extend((row, a) for a in arrivals)
        while len(self._tracked) > TRACK_KEEP:
            self._tracked.popleft()

    @property
    def waiting(self) -> int:
        """Tracked arrivals no frame has drawn yet."""
        return len(self._tracked)

    # -- wrapping ------------------------------------------------------------------------------
    def _wrap(self, text: Text) -> list[Strip]:
        return wrap_rows(text, self.app.console, self._wrap_width)

    def _count(self, text: Text) -> int:
        """How many rows `text` wraps into (a short line is one row, without wrapping it)."""
        if text.cell_len <= self._wrap_width and "\n" not in text.plain and "\t" not in text.plain:
            return 1
        return len(self._wrap(text))

    def _add_line(self, rows: int) -> None:
        self._starts.append(self._next)
        self._counts.append(rows)
        self._next += rows

    def _row(self, row: int) -> Strip:
        """The committed row `row` (an id), wrapping its line again if it is not cached."""
        k = bisect_right(self._starts, row) - 1
        start = self._starts[k]
        rows = self._wrapped.get(start)
        if rows is None:
            rows = self._wrap(self._texts[len(self._texts) - len(self._counts) + k])
            self._wrapped.set(start, rows)
        return rows[row - start] if row - start < len(rows) else Strip([])

    def _rewrap(self, follow: bool) -> None:
        """Count the rows of the newest committed lines again, as many as fill `max_rows`."""
        self._cache.clear()
        self._wrapped.clear()
        counts: list[int] = []
        self._open_line.reset()
        if self._wrap_width:
            self._open_line.update(self._open, self.app.console, self._wrap_width)
            total = len(self._open_rows)
            for text in reversed(self._texts):
                if total >= self.max_rows:
                    break
                counts.append(self._count(text))
                total += counts[-1]
        self._next += 1  # new ids: nothing cached or tracked refers to them
        self._counts.clear()
        self._starts.clear()
        for n in reversed(counts):
            self._add_line(n)
        self._fresh = None  # all of it is new: show the end
        self._trim()
        last = self._first + max(0, self.row_count - 1)  # what was waiting is at the end now
        self._tracked = deque((last, arrived) for _, arrived in self._tracked)
        self._resize_virtual()
        self._place(follow, 0)
        self.refresh()

    def _changed(self, start: int, follow: bool, shrunk: bool = False) -> None:
        """Rows from `start` (an index) on are new: drop old ones, grow, repaint them, follow the end."""
        row = self._first + start
        self._fresh = row if self._fresh is None else min(self._fresh, row)
        dropped = self._trim()
        before = self.virtual_size.height
        self._resize_virtual()
        self._place(follow, dropped)
        if dropped:
            self.refresh()
        else:
            count = max(self.virtual_size.height, before) - start if shrunk else self.row_count - start
            self.refresh_lines(start, max(1, count))

    def _place(self, follow: bool, dropped: int) -> None:
        """Follow the end, or keep the rows the person reads in view (`dropped` rows left the top)."""
        if follow:
            self._to_end(dropped)
            return
        y = min(max(0, self.scroll_y - dropped), self.max_scroll_y)
        if y != self.scroll_y:
            self.set_reactive(ScrollView.scroll_target_y, y)
            self.scroll_y = y

    def _to_end(self, dropped: int = 0) -> None:
        """Scroll to the end, but never past a row no frame has drawn yet.

        When more than a screenful arrives between two frames, the view stops with the oldest
        undrawn row at the top; each frame then moves it on (`_painted`), so every row of streamed
        text is on screen for at least one frame, and the view catches up with the end. It is never
        more than `BEHIND_SCREENS` behind: a stream that outruns that skips rows (the lag stays bounded).
        """
        end = self.max_scroll_y
        y = end
        if self._fresh is not None:
            top = max(0, self.scroll_offset.y - dropped)  # the row at the top now (`dropped` left above it)
            behind = end - BEHIND_SCREENS * self.scrollable_content_region.height
            y = min(end, max(top, self._fresh - self._first, behind))
        self._catching_up = y < end
        self._scrolling = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True)
        finally:
            self._scrolling = False

    def _catch_up(self) -> None:
        if self._follow and self._catching_up:
            self._to_end()

    def _trim(self) -> int:
        """Drop the oldest lines while there are more than `max_rows` rows (the newest line stays)."""
        dropped = 0
        while len(self._counts) > 1 and self.row_count > self.max_rows:
            self._starts.popleft()
            dropped += self._counts.popleft()
        return dropped

    def _resize_virtual(self) -> None:
        self.virtual_size = Size(self._wrap_width, self.row_count)

    def _discard(self, begin: int, end: int) -> None:
        for row in range(begin, end):
            self._cache.discard(row)

    def _at_end(self) -> bool:
        return self._follow and not self.is_vertical_scrollbar_grabbed

    def on_resize(self, event: events.Resize) -> None:
        """Rows are wrapped at the width they were made at: wrap them again at the new one."""
        height = self.scrollable_content_region.height
        self._wrapped.maxsize = max(MIN_CACHE, height)
        self._cache.maxsize = max(MIN_CACHE, ROW_CACHE_SCREENS * height)
        width = max(MIN_WIDTH, self.scrollable_content_region.width)
        if width != self._wrap_width:
            self._wrap_width = width
            self._rewrap(self._follow)
        elif self._follow:  # a shorter log: its end is further down
            self._to_end()

    def notify_style_update(self) -> None:
        """A theme changes the base style every row is drawn with."""
        super().notify_style_update()
        self._cache.clear()
        self._blank = None

    # -- drawing -------------------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        """Draw the visible rows; arrivals shown by them are timed here.

        A following log is redrawn whole every frame (it scrolled). When the box adds nothing (no
        border, padding, outline, tint or opacity: the default) each row is made once, already as
        wide as the box and on its background, the app's line filters applied (`_bare_row`), and
        goes out as it is: the strip a frame gets is the one the last frame got, so what Textual
        derives from it (divided) is cached on it too. Textual's styles cache would copy each row
        into a new `Strip` every frame.
        """
        self._base = self.rich_style  # once per frame: it walks the ancestors
        if self._bare():
            base_background, background = self.background_colors
            inner = Style(bgcolor=(base_background + background).rich_color)  # as the styles cache pads
            rows_width, width = self.scrollable_content_region.width, self.content_region.width
            top = self.scroll_offset.y
            self._rows_for((tuple(self.get_line_filters()), background, inner))
            strips = [self._bare_row(top + y, rows_width, width, inner) for y in crop.line_range]
            x1, x2 = crop.column_span
            if (x1, x2) != (0, self.size.width):
                strips = [strip.crop(x1, x2) for strip in strips]
        else:
            strips = super().render_lines(crop)
        self._painted(self._first + self.scroll_offset.y + crop.y, crop.height)
        return strips

    def _bare(self) -> bool:
        """Whether the box draws nothing around or over the rows (what `_styles_cache` would add)."""
        st = self.styles
        return (
            st.gutter.totals == (0, 0)
            and not any(kind for kind, _ in st.outline)
            and not st.tint.a
            and self.opacity == 1.0
            and st.text_opacity == 1.0
            and not (st.has_rule("hatch") and st.hatch != "none")
            and self.content_region.size == self.size
        )

    def _painted(self, top: int, height: int) -> None:
        if self._fresh is not None and self._fresh < top + height:
            drawn_to = top + height  # rows up to here are on screen now; the rest wait for a frame
            self._fresh = drawn_to if drawn_to < self._first + self.row_count else None
        now = time.perf_counter()
        tracked = self._tracked
        while tracked and tracked[0][0] < top + height:
            row, arrived = tracked.popleft()
            if row >= top:
                self.lags.append(now - arrived)
            else:
                self.unseen += 1
        if len(self.lags) > 2 * LAG_KEEP:
            del self.lags[:-LAG_KEEP]
        if self._catching_up:
            self.call_after_refresh(self._catch_up)

    def render_line(self, y: int) -> Strip:
        """One visible row, cropped to the width and drawn on the log's background (Textual's styles
        cache adds the box and the line filters).
        """
        width = self.scrollable_content_region.width
        self._rows_for(((), Color(0, 0, 0), self._base))
        return self._bare_row(self.scroll_offset.y + y, width, width, self._base)

    def _rows_for(self, key: tuple[tuple[LineFilter, ...], Color, Style]) -> None:
        """Cached rows are made for these line filters, background and padding, and the log's style
        (`_base`): another of them drops them.
        """
        made_for = (*key, self._base)
        if made_for != self._rows_key:
            self._cache.clear()
            self._blank = None
            self._rows_key = made_for

    def _raw_row(self, index: int) -> Strip | None:
        """The wrapped row at `index` (from the top of the log), or None below the last."""
        if index < self.committed_rows:
            return self._row(self._first + index)
        if index - self.committed_rows < len(self._open_rows):
            return self._open_rows[index - self.committed_rows]
        return None

    def _bare_row(self, index: int, rows_width: int, width: int, pad: Style) -> Strip:
        """The row at `index` on the log's style, `rows_width` wide, then blank in `pad` to `width`.

        Made in one `Strip` (not cropped, extended and styled in three) and cached by row; the
        blank under the last row is made the same way, once (its rows come later).
        """
        row = self._first + index
        strip = self._cache.get(row)
        if strip is not None and strip.cell_length == width:
            return strip
        raw = self._raw_row(index)
        blank = raw is None
        if raw is None:
            if self._blank is not None and self._blank.cell_length == width:
                return self._blank
            raw = Strip([])
        elif raw.cell_length > rows_width:
            raw = raw.crop(0, rows_width)
        segments = list(raw)
        if raw.cell_length < rows_width:
            segments.append(Segment(" " * (rows_width - raw.cell_length)))
        segments = list(Segment.apply_style(segments, self._base))
        if width > rows_width:
            segments.append(Segment(" " * (width - rows_width), pad))
        filters, background, _, _ = self._rows_key
        for line_filter in filters:  # once a row, not once a frame (`Strip.apply_filter` per strip)
            segments = line_filter.apply(segments, background)
        strip = Strip(segments, width)
        if blank:
            self._blank = strip
        else:
            self._cache.set(row, strip)
        return strip

    # -- the scrollbar: repainted only when its thumb moves --------------------------------------
    def watch_virtual_size(self, size: Size) -> None:
        """Keep the scrollbar's thumb in step with the content."""
        self._sync_bar()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Scrolling repaints the log; the scrollbar only if its thumb moved. At the end: follow it."""
        person = not self._scrolling
        if person:  # the person scrolled: follow only from the end
            self._follow = new_value >= self.max_scroll_y
        if round(old_value) != round(new_value):
            self.refresh(self.size.region)
        self._sync_bar(now=person)

    def _sync_bar(self, now: bool = False) -> None:
        """Give the scrollbar the log's sizes; redraw it if its thumb moved (at most every `BAR_PERIOD_S`
        while following, unless `now`).
        """
        if not self.show_vertical_scrollbar:
            return
        bar = self.vertical_scrollbar
        virtual, window = self.virtual_size.height, self.scrollable_content_region.height
        bar.set_reactive(ScrollBar.window_virtual_size, virtual)
        bar.set_reactive(ScrollBar.window_size, window)
        bar.set_reactive(ScrollBar.position, self.scroll_y)
        key = (bar.size.height, *_thumb(bar.size.height, virtual, window, self.scroll_y))
        if key == self._bar_key:
            return
        wait = self._bar_at + BAR_PERIOD_S - time.perf_counter()
        if now or not self._follow or wait <= 0:
            self._bar_key = key
            self._bar_at = time.perf_counter()
            self.bar_redraws += 1
            bar.refresh()
        elif not self._bar_later:
            self._bar_later = True
            self.set_timer(wait, self._bar_due)

    @property
    def bar_current(self) -> bool:
        """The scrollbar has the log's sizes and no redraw of it is deferred (its thumb is where it should be)."""
        if not self.show_vertical_scrollbar:
            return True
        bar = self.vertical_scrollbar
        same = bar.window_virtual_size == self.virtual_size.height and bar.position == self.scroll_y
        return same and not self._bar_later

    def _bar_due(self) -> None:
        self._bar_later = False
        self._sync_bar(now=True)
