"""The sliding window of tool-call fingerprints: each with its count against its cap, hits highlighted.

Each row starts with a bar: the calls of that fingerprint, on a scale where the cap is a vertical line
at the same column in every row, so how close each one is to being refused reads at a glance, as a
chart, before the numbers; a call past its cap shows `▶` beyond the line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from wrapper.safetext import inert

if TYPE_CHECKING:  # annotations only: the first frame is drawn before the engine is imported
    from engine.scores import AgentScores

BAR_CELLS = 8  # the cap's column: a fingerprint at its cap fills these
FIXED_CELLS = (BAR_CELLS + 2) + 6 + 3 + 2 * 4  # the bar, n/cap and HIT columns, and every column's padding
FP_MIN_CELLS = 12  # the fingerprint's floor: its kind and the start of what it names
EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(count: int, cap: float) -> str:
    """`count` against `cap` in `BAR_CELLS` cells, the cap as the line after them (`▶` past it).

    An uncapped fingerprint gets a dotted count and no line: there is nothing to reach.
    """
    if cap == float("inf") or cap <= 0:
        return "·" * min(count, BAR_CELLS) + " " * (BAR_CELLS - min(count, BAR_CELLS)) + "  "
    eighths = round(min(count / cap, 1.0) * BAR_CELLS * 8)
    full, part = divmod(eighths, 8)
    cells = "█" * full + (EIGHTHS[part] if part else "")
    return cells.ljust(BAR_CELLS) + "│" + ("▶" if count > cap else " ")


def fit(text: str, cells: int) -> str:
    """`text` in at most `cells` terminal cells, `…` marking the cut in its middle: the start names the kind
    of call (`exact:bash:`, `read`) and the end what tells one such call from another (the file, the command's
    last words), so both are kept.
    """
    if cell_len(text) <= cells:
        return text
    head = (cells - 1) // 2
    tail = cells - 1 - head
    end = text[-tail:] if tail else ""
    while cell_len(end) > tail:  # wide characters: fewer of them fit
        end = end[1:]
    return set_cell_size(text, head) + "…" + " " * (tail - cell_len(end)) + end


class WindowTable(DataTable[Any]):
    """Rows appear as calls arrive and leave with them; a hit is marked and coloured hot."""

    # the fingerprint column takes what the others leave and a longer fingerprint ends in `…`: wider, it
    # scrolled sideways out of sight, cut mid-word with no mark, under a scrollbar thumb that read as a
    # stray glyph; a terminal too narrow for even `FP_MIN_CELLS` still gets no sideways scrollbar
    DEFAULT_CSS = """
    WindowTable { height: 1fr; overflow-x: hidden; }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kw)
        self.colours = ("#5fafd7", "#d7af5f", "#ff5f5f")
        self._last: tuple[Any, ...] | None = None
        self._shown: AgentScores | None = None  # drawn again, cut to the new width, on a resize

    def on_mount(self) -> None:
        """Columns: fixed widths, the fingerprint's set from the panel's width (`fp_cells`)."""
        self.add_column("to cap", key="bar", width=BAR_CELLS + 2)
        self.add_column("n/cap", key="n", width=6)
        self.add_column("", key="hit", width=3)
        self.add_column("fingerprint", key="fp", width=self.fp_cells())

    def fp_cells(self) -> int:
        """The fingerprint column's width: what the other columns leave of the panel (a guess before layout)."""
        room = self.scrollable_content_region.width or 80
        return max(FP_MIN_CELLS, room - FIXED_CELLS)

    def on_resize(self) -> None:
        fp = self.columns.get(ColumnKey("fp"))
        if fp is not None and fp.width != self.fp_cells():
            fp.width = self.fp_cells()
            self._require_update_dimensions = True
            self._last = None  # the rows' fingerprints are cut again to the new width
            self.show(self._shown)

    def show(self, s: AgentScores | None) -> None:
        """Rebuild from a snapshot (skipped when unchanged)."""
        self._shown = s
        rows = () if s is None else tuple((r.fingerprint, r.count, r.cap, r.hit) for r in s.window)
        cycle = () if s is None else s.cycle
        cells = self.fp_cells()
        key = (rows, cycle, self.colours, None if s is None else (s.window_calls, s.window_size), cells)
        if key == self._last:
            return
        self._last = key
        self.clear()
        cool, warm, hot = self.colours
        # a loop the default rules saw (a (call, result) cycle, paging, the backstop): its calls first,
        # each with how often it ran, so the person sees what the denial message names
        for call, times in cycle:
            self.add_row(
                Text(""),
                Text(f"×{times}", hot),
                Text("CYC", hot),
                Text(fit(inert(call, keep_newlines=False), cells), hot),
            )
        for fp, count, cap, hit in rows:
            capped = cap != float("inf")
            nxt = count + 1
            colour = hot if hit else warm if capped and nxt >= cap else cool if capped else "dim"
            cap_s = (str(int(cap)) if float(cap).is_integer() else str(cap)) if capped else "∞"
            self.add_row(
                Text(bar(count, cap), colour),
                Text(f"{count}/{cap_s}", colour),
                Text("HIT" if hit else "", hot),
                Text(fit(inert(fp, keep_newlines=False), cells), colour),
            )
        if s is not None:
            loop = ""
            if s.cycle:
                loop = f" · {s.cycle_rule}" + (f" of {s.cycle_period}" if s.cycle_period else "")
            self.border_subtitle = f"{s.window_calls}/{s.window_size} calls{loop}"
