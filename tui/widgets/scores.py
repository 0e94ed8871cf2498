"""Score gauges with history sparklines, per agent: repetition, degeneracy, reasoning size, tool failures."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from tui.widgets.line import Line
from wrapper.safetext import inert

if TYPE_CHECKING:  # annotations only: the first frame is drawn before the engine is imported
    from engine.scores import AgentScores


def heat(value: float, limit: float, colours: tuple[str, str, str]) -> str:
    """cool below 60 % of the limit, warm below it, hot at or past it."""
    if limit <= 0:
        return colours[0]
    r = value / limit
    return colours[2] if r >= 1 else colours[1] if r >= 0.6 else colours[0]


BLOCKS = "▁▂▃▄▅▆▇█"


def spark(values: tuple[float, ...] | list[float], width: int, colour: str, top: float = 1.0) -> Text:
    """A fixed-scale sparkline (0..top), newest on the right, padded to `width`."""
    vals = list(values)[-width:]
    cells = "".join(BLOCKS[min(7, max(0, int(v / top * 7.999)))] if top > 0 else BLOCKS[0] for v in vals)
    return Text(" " * (width - len(cells)), "dim") + Text(cells, colour)


def bar(value: float, limit: float, width: int, colour: str) -> Text:
    """A gauge: filled to value/limit (capped), with the limit at its right end."""
    frac = 0.0 if limit <= 0 else max(0.0, min(1.0, value / limit))
    n = round(frac * width)
    return Text("█" * n, colour) + Text("░" * (width - n), "dim")


class ScoresPanel(Vertical):
    """The selected agent's live scores."""

    DEFAULT_CSS = """
    ScoresPanel { height: auto; padding: 0 1; }
    ScoresPanel .title { text-style: bold; color: $primary; }
    ScoresPanel #rep, ScoresPanel #deg, ScoresPanel #misc { height: 3; }
    """

    def __init__(self, meaning_max: float, failure_limit: int, **kw: Any) -> None:
        """`meaning_max` and `failure_limit`: [thinking] deg_meaning_ratio_max and tool_failure_deny_after."""
        super().__init__(**kw)
        self.colours = ("#5fafd7", "#d7af5f", "#ff5f5f")
        self.meaning_max = meaning_max
        self.failure_limit = failure_limit
        self._last: tuple[Any, ...] | None = None

    def compose(self) -> ComposeResult:
        # fixed-height lines: a new score repaints them without a layout pass of the whole screen
        yield Line("scores", classes="title", id="scores-title")
        yield Line("", id="rep")
        yield Line("", id="deg")
        yield Line("", id="misc")

    def show(self, s: AgentScores | None, width: int = 16) -> None:
        """Repaint from a snapshot (skipped when nothing shown changed: the turn and the width included)."""
        key = (
            None
            if s is None
            else (
                s.turn,
                width,
                s.overlap,
                s.novelty_streak,
                s.deg_flags,
                s.deg_streak,
                s.reasoning_chars,
                s.trips,
                s.failures,
                s.denials,
                s.ran_tripped,
                s.asks,
                s.local_exempt,
                s.local_refused,
                s.thinking_off,
                len(s.overlap_history),
                self.colours,
                self.content_region.width,
            )
        )
        if key == self._last:
            return
        self._last = key
        if s is None:
            self.query_one("#rep", Line).update(Text("waiting for the agent…", "dim"))
            self.query_one("#deg", Line).update("")
            self.query_one("#misc", Line).update("")
            return
        c = self.colours
        self.query_one("#scores-title", Line).update(f"scores · turn {max(s.turn, 0)}")
        rep = Table.grid(padding=(0, 1))
        rep.add_column(width=11)
        rep.add_column()
        rep.add_column(no_wrap=True, overflow="ellipsis")
        col = heat(s.overlap, s.overlap_threshold, c)
        rep.add_row(
            Text("repetition", "bold"),
            bar(s.overlap, 1.0, width, col),
            Text(f"overlap {s.overlap:.2f}/{s.overlap_threshold:.2f}", col),
        )
        col = heat(s.novelty_streak, s.novelty_limit, c)
        rep.add_row(
            "",
            bar(s.novelty_streak, s.novelty_limit, width, col),
            Text(f"novelty {s.novelty_streak}/{s.novelty_limit}", col),
        )
        rep.add_row("", spark(s.overlap_history, width, c[0]), Text("history", "dim"))
        self.query_one("#rep", Line).update(rep)
        deg = Table.grid(padding=(0, 1))
        deg.add_column(width=11)
        deg.add_column()
        deg.add_column(no_wrap=True, overflow="ellipsis")
        col = heat(s.deg_streak, s.deg_streak_limit, c)
        flags = inert(" ".join(s.deg_flags), keep_newlines=False) if s.deg_flags else "no flags"
        deg.add_row(
            Text("degeneracy", "bold"),
            bar(s.deg_streak, s.deg_streak_limit, width, col),
            Text(f"streak {s.deg_streak}/{s.deg_streak_limit}", col),
        )
        gate = heat(1 - s.meaning_ratio, 1 - self.meaning_max, c)
        deg.add_row("", Text(flags, gate), Text(f"meaning {s.meaning_ratio:.2f}", gate))
        deg.add_row("", spark([1 - m for m in s.meaning_history], width, c[0]), Text("history", "dim"))
        self.query_one("#deg", Line).update(deg)
        # the values get what the labels leave: given no width, Rich cut every column alike when the
        # panel is narrow (100 columns), the labels too (`reason…`)
        room = max(8, self.content_region.width - 12) if self.content_region.width else None
        misc = Table.grid(padding=(0, 1))
        misc.add_column(width=11, min_width=11, no_wrap=True)
        misc.add_column(width=room, no_wrap=True, overflow="ellipsis")
        cap = s.max_reasoning_chars
        col = heat(s.reasoning_chars, cap, c) if cap else c[0]
        misc.add_row(
            Text("reasoning", "bold"), Text(f"{s.reasoning_chars:,}" + (f" / {cap:,} chars" if cap else " chars"), col)
        )
        trip_col = c[2] if s.trips else c[0]
        extra = " · thinking off" if s.thinking_off else ""
        misc.add_row(Text("trips", "bold"), Text(f"{s.trips} · retries {s.retries_used}{extra}", trip_col))
        misc.add_row(Text("tools", "bold"), Text(_tools(s, room), c[2] if s.denials or s.ran_tripped else c[0]))
        for sig, n in s.failures[-4:]:
            sig_text = inert(sig, keep_newlines=False)[:60]
            misc.add_row(Text("failing", "bold"), Text(f"{n}× {sig_text}", heat(n, self.failure_limit, c)))
        self.query_one("#misc", Line).update(misc, height=3 + min(4, len(s.failures)))


def _tools(s: AgentScores, room: int | None) -> str:
    """`denied 2 · asked 0 · local normal`; the usual `local normal` left out when it would not fit `room`."""
    local = "exempt" if s.local_exempt else "refused" if s.local_refused else "normal"
    parts = [f"denied {s.denials}", f"asked {s.asks}", f"local {local}"]
    if s.ran_tripped:  # a call that ran without asking and then tripped was not denied: counted on its own
        parts.append(f"ran, then tripped {s.ran_tripped}")
    if room is not None and local == "normal" and len(" · ".join(parts)) > room:
        parts.remove("local normal")
    return " · ".join(parts)


def summary(s: AgentScores | None, width: int = 0) -> Text:
    """The one-line form of the scores and window, for terminals too narrow for the side panel.

    When `width` is short, the least telling parts go first (lens A's overlap, the key hint, novelty),
    so the window, the denials and the trips stay in view.
    """
    if s is None:
        return Text("scores: waiting for the agent… · ctrl+b panel", "dim", no_wrap=True, overflow="ellipsis")
    hits = sum(1 for r in s.window if r.hit)
    parts = [  # (text, rank): a higher rank is dropped first
        (f"rep {s.overlap:.2f}/{s.overlap_threshold:.2f}", 4),
        (f"nov {s.novelty_streak}/{s.novelty_limit}", 3),
        (f"deg {s.deg_streak}/{s.deg_streak_limit}", 2),
        (f"win {s.window_calls}/{s.window_size}" + (f" {hits} HIT" if hits else ""), 0),
        (f"denied {s.denials}", 1),
        *([(f"ran, then tripped {s.ran_tripped}", 1)] if s.ran_tripped else []),
        (f"trips {s.trips}", 1),
        ("ctrl+b panel", 3),
    ]
    while width and len(parts) > 1 and len(" · ".join(t for t, _ in parts)) + 1 > width:
        parts.remove(max(reversed(parts), key=lambda p: p[1]))
    return Text(" · ".join(t for t, _ in parts), "bold" if hits or s.trips else "", no_wrap=True, overflow="ellipsis")
