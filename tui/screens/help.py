"""The help screen (F1, or ? outside the prompt box): the keys of the current mode, from `tui.keys`."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static


class HelpScreen(ModalScreen[None]):
    """A scrollable table of keys; any of esc, q, f1 or ? closes it."""

    BINDINGS = [
        Binding("escape,q,f1,question_mark", "dismiss", "close", id="help.close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > #help { width: 90%; max-width: 90; height: 90%; max-height: 40;
        border: round $primary; background: $panel; }
    HelpScreen #help-title { text-style: bold; color: $primary; padding: 0 1; }
    HelpScreen #help-body { height: 1fr; padding: 0 1; }
    """

    def __init__(self, mode: str, rows: list[tuple[str, str]], about: str) -> None:
        super().__init__()
        self.mode = mode
        self.rows = rows
        self.about = about

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Label(f"keys · {self.mode} mode", id="help-title")
            with VerticalScroll(id="help-body"):
                table = Table.grid(padding=(0, 2))
                table.add_column(style="bold", no_wrap=True)
                table.add_column()
                for key, what in self.rows:
                    table.add_row(Text(key), Text(what))
                yield Static(table, id="help-keys")
                yield Static(Text(self.about, "italic"), id="help-about")
        yield Footer(compact=True, show_command_palette=False)
