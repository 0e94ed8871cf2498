"""The sliding window of tool-call fingerprints: each with its count against its cap, hits highlighted.

Each row starts with a bar: the calls of that fingerprint, on a scale where the cap is a vertical line
at the same column in every row, so how close each one is to being refused reads at a glance, as a
chart, before the numbers; a call past its cap shows `▶` beyond the line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import DataTable

from wrapper.safetext import inert

if TYPE_CHECKING:  # annotations only: the first frame is drawn before the engine is imported
    from engine.scores import AgentScores

BAR_CELLS = 8  # the cap's column: a fingerprint at its cap fills these
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


class WindowTable(DataTable[Any]):
    """Rows appear as calls arrive and leave with them; a hit is marked and coloured hot."""

    # the fingerprint column is wider than the panel on purpose (it scrolls sideways, with ← →); its
    # scrollbar's thumb would be a lone glyph mid-panel that reads as a stray character, so none is drawn
    DEFAULT_CSS = """
    WindowTable { height: 1fr; scrollbar-size-horizontal: 0; }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kw)
        self.colours = ("#5fafd7", "#d7af5f", "#ff5f5f")
        self._last: tuple[Any, ...] | None = None

    def on_mount(self) -> None:
        """Columns."""
        self.add_column("to cap", key="bar", width=BAR_CELLS + 2)
        self.add_column("n/cap", key="n", width=6)
        self.add_column("", key="hit", width=3)
        self.add_column("fingerprint", key="fp", width=160)  # fixed: no width race, scrolls sideways

    def show(self, s: AgentScores | None) -> None:
        """Rebuild from a snapshot (skipped when unchanged)."""
        rows = () if s is None else tuple((r.fingerprint, r.count, r.cap, r.hit) for r in s.window)
        cycle = () if s is None else s.cycle
        key = (rows, cycle, self.colours, None if s is None else (s.window_calls, s.window_size))
        if key == self._last:
            return
        self._last = key
        self.clear()
        cool, warm, hot = self.colours
        # a loop the default rules saw (a (call, result) cycle, paging, the backstop): its calls first,
        # each with how often it ran, so the person sees what the denial message names
        for call, times in cycle:
            self.add_row(
                Text(""), Text(f"×{times}", hot), Text("CYC", hot), Text(inert(call, keep_newlines=False), hot)
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
                Text(inert(fp, keep_newlines=False), colour),
            )
        if s is not None:
            loop = ""
            if s.cycle:
                loop = f" · {s.cycle_rule}" + (f" of {s.cycle_period}" if s.cycle_period else "")
            self.border_subtitle = f"{s.window_calls}/{s.window_size} calls{loop}"
