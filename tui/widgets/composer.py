"""The prompt box: a multi-line composer, because what people send an agent is rarely one line.

Textual's `Input` keeps only the first line of a paste, silently; a pasted stack trace or task
description must reach the agent whole. So the box is a `TextArea` that grows with its text (up to
`MAX_ROWS`, then scrolls) and:

* **enter sends**, and **ctrl+j** adds a line. ctrl+j is a plain line feed, which every terminal
  and tmux deliver; shift+enter and alt+enter add a line too where the terminal tells them apart
  from enter (terminals speaking the kitty keyboard protocol; most others send shift+enter as a
  bare enter). A paste (bracketed, as Textual asks every terminal for) is inserted whole, newlines
  included, and never sends.
* **up / down** on the first / last row walk the prompt history (the draft is kept and comes back).
* **`/`** at the start opens the list of the agent's slash commands that match what follows
  (tab or enter completes, up / down move, escape closes it; the app fills it: `tui.frontend`), and
  **`@`** starting the last word lists the paths under the working directory (`tui.mentions`).
* **shift+tab** is the app's (the agent's next mode) when the agent has modes; else it moves the focus.
* **pageup / pagedown** scroll the stream (`ScrollStream`), so the person reads back without
  leaving the box; the mouse wheel scrolls whatever it is over and never moves the focus.

The keys the live mode's emergency actions use (ctrl+k, ctrl+e, ...) are taken out of the box's
editing bindings, so they always reach the app. Word deletion is the box's: ctrl+w, alt+backspace
(which most terminals send as ESC DEL, read as ctrl+w) and ctrl+backspace delete the previous word;
no key that weakens protection may sit on one of them (`tui.keys.editing_keys`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from tui import keys

MAX_ROWS = 8
HISTORY = 100
NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")
COMPLETE_KEYS = ("tab", "enter", "up", "down", "escape")


def without_taken_keys(bindings: list[Any]) -> list[Binding]:
    """Editing bindings minus the keys the live mode's emergency (priority) actions use."""
    taken = {p.strip() for k in keys.KEYS if k.priority and keys.LIVE in k.modes for p in k.key.split(",")}
    out = []
    for b in bindings:
        if not isinstance(b, Binding):
            continue
        left = [p.strip() for p in b.key.split(",") if p.strip() not in taken]
        if left:
            out.append(replace(b, key=",".join(left)))
    return out


def fit_placeholder(forms: tuple[str, ...], width: int) -> str:
    """The first placeholder that fits in `width` cells: a form whole, or its leading ` · ` phrases.

    The box is one row high until something is typed, and a placeholder wider than it wraps onto a
    row nobody sees: `message the agent · F1 help` read `message the` at 40 columns. `forms` go from
    the full one to the shortest; when not even the shortest fits, it is cut at a word, with `…`.
    """
    for form in forms:
        phrases = form.split(" · ")
        for n in range(len(phrases), 0, -1):
            if cell_len(kept := " · ".join(phrases[:n])) <= width:
                return kept
    words = forms[-1].split() if forms else []
    while words and cell_len(" ".join(words)) + 1 > width:
        words.pop()
    return f"{' '.join(words)}…" if words else ""


class Composer(TextArea, inherit_bindings=False):
    """Multi-line prompt: enter sends, ctrl+j adds a line, up/down at the edges walk the history."""

    BINDINGS = without_taken_keys(TextArea.BINDINGS)  # type: ignore[assignment]
    DEFAULT_CSS = f"""
    Composer {{ height: auto; min-height: 1; max-height: {MAX_ROWS}; }}
    """

    class Submitted(Message):
        """The person pressed enter: `text` is the whole box."""

        def __init__(self, composer: Composer, text: str) -> None:
            super().__init__()
            self.composer = composer
            self.text = text

        @property
        def control(self) -> Composer:
            """The box that sent it (what `@on(..., "#prompt")` matches)."""
            return self.composer

    class CompleteKey(Message):
        """A key the open completion list takes (tab, enter, up, down, escape): the app moves or accepts."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class ScrollStream(Message):
        """pageup / pagedown in the box: scroll the stream a page (`direction` -1 up, 1 down)."""

        def __init__(self, direction: int) -> None:
            super().__init__()
            self.direction = direction

    def __init__(self, placeholder: str | tuple[str, ...] = "", **kw: Any) -> None:
        forms = (placeholder,) if isinstance(placeholder, str) else placeholder
        super().__init__(
            "",
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            compact=True,
            highlight_cursor_line=False,
            placeholder=forms[0] if forms else "",
            **kw,
        )
        self.placeholders = forms  # the one shown is the longest that fits the box (`on_resize`)
        self.sent: list[str] = []
        self._at: int | None = None  # the history entry shown, or None for the draft
        self._draft = ""
        self.completing = False  # the slash-command list is open: its keys go to it (`CompleteKey`)

    def on_resize(self) -> None:
        """The placeholder fits the box's one row: whole phrases, never a phrase cut mid-way."""
        self.placeholder = fit_placeholder(self.placeholders, self.content_size.width)

    @property
    def value(self) -> str:
        """The whole text (the `Input` spelling, for callers that only read or clear it)."""
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    async def _on_key(self, event: events.Key) -> None:
        if self.completing and event.key in COMPLETE_KEYS:
            event.stop()
            event.prevent_default()
            self.post_message(self.CompleteKey(event.key))
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self, self.text))
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)

    def remember(self, text: str) -> None:
        """`text` was sent: the newest history entry (a repeat of the last one is not kept twice)."""
        if text and (not self.sent or self.sent[-1] != text):
            self.sent.append(text)
            del self.sent[:-HISTORY]
        self._at = None
        self._draft = ""

    def _recall(self, step: int) -> bool:
        if not self.sent:
            return False
        at = len(self.sent) if self._at is None else self._at
        new = at + step
        if new < 0 or new > len(self.sent):
            return False
        if self._at is None:
            self._draft = self.text
        self._at = None if new == len(self.sent) else new
        self.value = self._draft if self._at is None else self.sent[new]
        return True

    def action_cursor_up(self, select: bool = False) -> None:
        """Up: a row up; on the first row, the previous prompt."""
        if not select and self.navigator.is_first_wrapped_line(self.cursor_location) and self._recall(-1):
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        """Down: a row down; on the last row, the next prompt (after the newest: the draft)."""
        if not select and self.navigator.is_last_wrapped_line(self.cursor_location) and self._recall(1):
            return
        super().action_cursor_down(select)

    def action_cursor_page_up(self) -> None:
        """Page up scrolls the stream, not the box."""
        self.post_message(self.ScrollStream(-1))

    def action_cursor_page_down(self) -> None:
        """Page down scrolls the stream, not the box."""
        self.post_message(self.ScrollStream(1))

    def hint(self) -> str:
        """What the row beside the box says: how to send and how to add a line."""
        lines = self.document.line_count if self.text else 0
        head = f"{lines} lines · " if lines > 1 else ""
        return f"{head}⏎ send · ^j new line"
