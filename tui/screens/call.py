"""One tool call opened: its unified diff(s) and its whole output, scrollable, selectable, copyable.

The row in the steps list is the folded form; this is the open one. Diff lines are coloured by their
first character (+, −, @@); the output is a read-only `TextArea` (it scrolls, selects and copies a
million characters without laying them all out). Every agent string is inert.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from themes import Palette
from tui.widgets.calls import call_summary
from tui.widgets.stream import DEFAULT_PALETTE
from wrapper.items import CallItem, FileDiff
from wrapper.safetext import inert


def diff_text(d: FileDiff, p: Palette = DEFAULT_PALETTE) -> Text:
    """A unified diff, each line styled by what it is."""
    out = Text(end="")
    out.append(
        f"{'new file ' if d.created else ''}{inert(d.path, keep_newlines=False)}  +{d.added} −{d.removed}\n", "bold"
    )
    for n, ln in enumerate(inert(d.text).split("\n")):
        if ln.startswith(("+++", "---")):
            style = "bold"
        elif ln.startswith("+"):
            style = p.ok
        elif ln.startswith("-"):
            style = p.error
        elif ln.startswith("@@"):
            style = p.tool
        else:
            style = ""
        out.append(("\n" if n else "") + ln, style)
    return out


class CallScreen(ModalScreen[None]):
    """The call's summary, its diffs, then its output; escape or q closes."""

    BINDINGS = [Binding("escape,q", "dismiss", "close", id="call.close")]
    DEFAULT_CSS = """
    CallScreen { align: center middle; }
    CallScreen > #call-box { width: 95%; height: 90%; border: round $primary; background: $surface; }
    CallScreen #call-head { height: auto; padding: 0 1; }
    CallScreen #call-diffs { height: auto; max-height: 60%; padding: 0 1; }
    CallScreen #call-output { height: 1fr; min-height: 4; }
    """

    def __init__(self, call: CallItem, palette: Palette = DEFAULT_PALETTE) -> None:
        super().__init__()
        self.call = call
        self.palette = palette

    def compose(self) -> ComposeResult:
        c = self.call
        with Vertical(id="call-box"):
            head = call_summary(c, self.palette, 200)
            head.append("  · esc closes", self.palette.muted)
            yield Static(head, id="call-head")
            if c.diffs:
                with VerticalScroll(id="call-diffs"):
                    for d in c.diffs:
                        yield Static(diff_text(d, self.palette), classes="diff")
            if c.output or not c.diffs:
                yield TextArea(
                    inert(c.output) or "(no output)",
                    read_only=True,
                    show_line_numbers=True,
                    soft_wrap=False,
                    id="call-output",
                )

    def on_mount(self) -> None:
        """A title on the box; the output (or the diffs) takes the keys."""
        box = self.query_one("#call-box")
        box.border_title = inert(f"{self.call.kind or 'call'} · {self.call.call_id}", keep_newlines=False)[:80]
        target: Any = (
            self.query("#call-output").first() if self.query("#call-output") else self.query_one("#call-diffs")
        )
        target.focus()
