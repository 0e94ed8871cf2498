"""The approval modal: the call, why it would be blocked, and the four answers, each on a key."""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from wrapper.items import Answer, Question

LOCAL_NOTE = (
    "Every hit points at a LOCAL address (localhost / private network). Allowing ignores local-address "
    "repeats for the REST OF THIS TURN; denying keeps local calls blocked until your next message."
)


def _args(value: Any) -> str:
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) < 3000 else text[:3000] + "\n… (truncated)"


class ApprovalScreen(ModalScreen[Answer]):
    """Ask the operator; dismisses with the answer."""

    BINDINGS = [
        Binding("a", "answer('allow-once')", "allow once", id="approve.once"),
        Binding("t", "answer('allow-turn')", "allow for the turn", id="approve.turn"),
        Binding("d", "answer('deny')", "deny", id="approve.deny"),
        Binding("c", "answer('cancel-turn')", "cancel the turn", id="approve.cancel"),
        Binding("escape", "answer('deny')", "deny", show=False),
    ]
    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > #dialog { width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $warning; background: $panel; padding: 1 2; }
    ApprovalScreen #title { text-style: bold; color: $warning; }
    ApprovalScreen #waiting { color: $text-muted; }
    ApprovalScreen #body { height: auto; max-height: 20; }
    ApprovalScreen #buttons { height: auto; margin-top: 1; }
    ApprovalScreen Button { margin-right: 1; }
    """

    def __init__(self, question: Question) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        q = self.question
        with Vertical(id="dialog"):
            yield Label(f"Approval needed: {q.tool or 'a tool call'}", id="title")
            yield Label("The agent is waiting for your answer.", id="waiting")
            with VerticalScroll(id="body"):
                yield Static(Text(_args(q.args) if q.args is not None else "(arguments not known)"), id="args")
                if q.hits:
                    t = Table(title="would be blocked by", show_header=True, expand=True)
                    t.add_column("fingerprint")
                    t.add_column("count/cap", justify="right")
                    for h in q.hits:
                        cap = str(int(h.cap)) if float(h.cap).is_integer() else str(h.cap)
                        t.add_row(h.fp, f"{h.next}/{cap}")
                    yield Static(t, id="hits")
                if q.local:
                    yield Static(Text(LOCAL_NOTE, "italic"), id="local-note")
                elif q.reason:
                    yield Static(Text(q.reason), id="reason")
            with Horizontal(id="buttons"):
                yield Button("a · allow once", id="allow-once", variant="success")
                yield Button("t · allow for the turn", id="allow-turn", variant="primary")
                yield Button("d · deny", id="deny", variant="error")
                yield Button("c · cancel the turn", id="cancel-turn", variant="warning")

    def action_answer(self, answer: str) -> None:
        """Answer and close."""
        self.dismiss(answer)  # type: ignore[arg-type]

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Buttons answer as their keys do."""
        if event.button.id:
            self.dismiss(event.button.id)  # type: ignore[arg-type]
