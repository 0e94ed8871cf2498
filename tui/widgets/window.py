"""The sliding window of tool-call fingerprints: each with its count against its cap, hits highlighted."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from engine.scores import AgentScores
from wrapper.safetext import inert


class WindowTable(DataTable[Any]):
    """Rows appear as calls arrive and leave with them; a hit is marked and coloured hot."""

    DEFAULT_CSS = """
    WindowTable { height: 1fr; }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kw)
        self.colours = ("#5fafd7", "#d7af5f", "#ff5f5f")
        self._last: tuple[Any, ...] | None = None

    def on_mount(self) -> None:
        """Columns."""
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
            self.add_row(Text(f"×{times}", hot), Text("CYC", hot), Text(inert(call, keep_newlines=False), hot))
        for fp, count, cap, hit in rows:
            capped = cap != float("inf")
            nxt = count + 1
            colour = hot if hit else warm if capped and nxt >= cap else cool if capped else "dim"
            cap_s = (str(int(cap)) if float(cap).is_integer() else str(cap)) if capped else "∞"
            self.add_row(
                Text(f"{count}/{cap_s}", colour),
                Text("HIT" if hit else "", hot),
                Text(inert(fp, keep_newlines=False), colour),
            )
        if s is not None:
            loop = ""
            if s.cycle:
                loop = f" · {s.cycle_rule}" + (f" of {s.cycle_period}" if s.cycle_period else "")
            self.border_subtitle = f"{s.window_calls}/{s.window_size} calls{loop}"
