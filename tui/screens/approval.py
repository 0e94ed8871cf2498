"""The approval modal: the call, why it would be blocked, and the four answers, each on a key.

The answers are docked at the bottom and the body scrolls, so they stay visible on any terminal; the
modal has its own footer (its keys, not the main screen's). When the bridge gives up on the request
(`ApprovalClosed`), the modal closes unanswered and a later key press does nothing.
"""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Label, Static

from wrapper.items import Answer, Question
from wrapper.safetext import inert

LOCAL_NOTE = (
    "Every hit points at a LOCAL address (localhost / private network). Allowing ignores local-address "
    "repeats for the REST OF THIS TURN; denying keeps local calls blocked until your next message."
)


def _args(value: Any) -> str:
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    text = inert(text)
    return text if len(text) < 3000 else text[:3000] + "\n… (truncated)"


class ApprovalScreen(ModalScreen[Answer]):
    """Ask the operator; dismisses with the answer."""

    BINDINGS = [
        Binding("a", "answer('allow-once')", "allow once", id="approve.once"),
        Binding("t", "answer('allow-turn')", "allow turn", id="approve.turn"),
        Binding("d", "answer('deny')", "deny", id="approve.deny"),
        Binding("c", "answer('cancel-turn')", "cancel turn", id="approve.cancel"),
        Binding("escape", "answer('deny')", "deny", show=False, id="approve.escape"),
    ]
    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > #dialog { width: 100%; max-width: 110; height: 1fr; max-height: 40;
        border: thick $warning; background: $panel; padding: 0 1; }
    ApprovalScreen #title { text-style: bold; color: $warning; }
    ApprovalScreen #waiting { color: $text-muted; }
    ApprovalScreen #body { height: 1fr; }
    ApprovalScreen #buttons { dock: bottom; height: auto; }
    ApprovalScreen Button { margin-right: 1; min-width: 0; width: auto; }
    """

    def __init__(self, question: Question) -> None:
        super().__init__()
        self.question = question
        self.closed = False

    def compose(self) -> ComposeResult:
        q = self.question
        with Vertical(id="dialog"):
            yield Label(Text(f"Approval needed: {inert(q.tool, keep_newlines=False) or 'a tool call'}"), id="title")
            yield Label("The agent is waiting for your answer.", id="waiting")
            with Horizontal(id="buttons"):
                yield Button("a allow once", id="allow-once", variant="success", compact=True)
                yield Button("t allow turn", id="allow-turn", variant="primary", compact=True)
                yield Button("d deny", id="deny", variant="error", compact=True)
                yield Button("c cancel turn", id="cancel-turn", variant="warning", compact=True)
            with VerticalScroll(id="body"):
                yield Static(Text(_args(q.args) if q.args is not None else "(arguments not known)"), id="args")
                if q.hits:
                    t = Table(title="would be blocked by", show_header=True, expand=True)
                    t.add_column("fingerprint")
                    t.add_column("count/cap", justify="right")
                    for h in q.hits:
                        cap = str(int(h.cap)) if float(h.cap).is_integer() else str(h.cap)
                        t.add_row(Text(inert(h.fp, keep_newlines=False)), Text(f"{h.next}/{cap}"))
                    yield Static(t, id="hits")
                if q.local:
                    yield Static(Text(LOCAL_NOTE, "italic"), id="local-note")
                elif q.reason:
                    yield Static(Text(inert(q.reason)), id="reason")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """The body has the focus (arrows scroll it); an answer is always a deliberate key or click."""
        self.query_one("#body").focus()

    def action_answer(self, answer: str) -> None:
        """Answer and close (nothing, once the bridge has given up)."""
        if self.closed:
            return
        self.closed = True
        self.dismiss(answer)  # type: ignore[arg-type]

    def close_unanswered(self) -> None:
        """The bridge gave up: close without an answer; keys pressed later do nothing."""
        if self.closed:
            return
        self.closed = True
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Buttons answer as their keys do."""
        if event.button.id:
            self.action_answer(event.button.id)
