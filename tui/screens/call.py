"""One tool call opened: its unified diff(s) and its whole output, scrollable, selectable, copyable.

The row in the steps list is the folded form; this is the open one. Diff lines are coloured by their
first character (+, −, @@); the output is a read-only `TextArea` (it scrolls, selects and copies a
million characters without laying them all out). Every agent string is inert.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from themes import Palette
from tui.widgets.calls import StepsList, call_summary
from tui.widgets.stream import DEFAULT_PALETTE
from wrapper.safetext import inert

if TYPE_CHECKING:  # only for annotations: the first frame is drawn before these are imported
    from wrapper.items import CallItem, FileDiff


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

    def __init__(self, call: CallItem, palette: Palette = DEFAULT_PALETTE, relayed: bool = False) -> None:
        """`relayed`: the agent ran the call and relayed its result (ACP); empty, that says only that no text came."""
        super().__init__()
        self.call = call
        self.palette = palette
        self.relayed = relayed

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
                    inert(c.output) or self.nothing(),
                    read_only=True,
                    show_line_numbers=True,
                    # wrapped: a line wider than the box scrolled the whole output sideways (at 60 columns, any
                    # line past 51 characters); the line numbers still tell one line from the next
                    soft_wrap=True,
                    id="call-output",
                )

    def nothing(self) -> str:
        """What the output pane says for an empty output: that the call printed nothing only when that is known."""
        if not self.relayed:
            return "(no output)"
        return f"(the agent sent no {'content' if self.call.kind == 'read' else 'output'} for this call)"

    def on_mount(self) -> None:
        """A title on the box; the output (or the diffs) takes the keys."""
        box = self.query_one("#call-box")
        box.border_title = inert(f"{self.call.kind or 'call'} · {self.call.call_id}", keep_newlines=False)[:80]
        target: Any = (
            self.query("#call-output").first() if self.query("#call-output") else self.query_one("#call-diffs")
        )
        target.focus()


class StepsScreen(ModalScreen[None]):
    """Every call of the session as the steps list (at any width); enter or a click opens one."""

    BINDINGS = [Binding("escape,q", "dismiss", "close", id="steps.close")]
    DEFAULT_CSS = """
    StepsScreen { align: center middle; }
    StepsScreen > StepsList { width: 90%; height: 80%; max-height: 100%; background: $surface; }
    """

    def __init__(self, calls: Any, palette: Palette = DEFAULT_PALETTE) -> None:
        super().__init__()
        self.calls = calls
        self.palette = palette

    def compose(self) -> ComposeResult:
        steps = StepsList(id="steps-all")
        steps.palette = self.palette
        yield steps

    def on_mount(self) -> None:
        """Fill the list, the newest highlighted, and give it the keys."""
        steps = self.query_one(StepsList)
        steps.load(self.calls)
        steps.focus()


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y (or enter on Yes) confirms, n or escape declines."""

    BINDINGS = [
        Binding("y", "answer(True)", "yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "no", id="confirm.no"),
    ]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 70; max-width: 100%; height: auto; border: round $warning;
        background: $surface; padding: 1 2; }
    ConfirmScreen Horizontal { height: auto; margin-top: 1; }
    ConfirmScreen Button { margin-right: 2; }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.text), id="confirm-text")
            with Horizontal():
                yield Button("Yes (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        """No is where the focus starts: the safe answer is one key away, the other is deliberate."""
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button answers."""
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """A key answers."""
        self.dismiss(yes)
