"""The approval modal: the whole call, why it would be blocked, and answers that are given on purpose.

A person is often typing their next message when a question arrives. So the modal opens *unarmed*:
it shows the call, but no key answers it. Printable keys and backspace go on into the prompt box
underneath (the modal shows the message's tail, so the person sees their typing kept), and enter
and esc do nothing. The person arms it deliberately: **tab** (which puts the focus on "deny"), or a
click on a button, which answers at once. Armed, `a` / `t` / `d` / `c`, esc (deny) and enter on the
focused button answer. Ordinary typing never produces tab in the middle of a message, and a click
is always deliberate, so an answer means the modal was seen.

Each button says exactly what its answer allows. "allow turn" exists only for a local-address
repeat, where it means repeats of these same local resources for the rest of the turn. The body
starts with the hits that would block the call (its key lines, in view at 60x20), then the call. It
scrolls; the buttons stay below it, always visible; the dialog is as tall as its content (at most
the screen), so the stream that led to the question stays in view on a big terminal.

What runs is seen whole before it can be allowed: while the call is longer than the body, a line
above the buttons says how many lines and characters are out of view, and the allow answers do not
exist until the body was scrolled to its end; a call cut for its size (its middle replaced by a
mark) can only be denied here. When the
bridge gives up, or the agent goes away (`close_unanswered`), the modal closes and later keys do
nothing. `waiting` shows how many questions stand behind this one: one modal at a time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Label, Static, TextArea

from tui import keys
from tui.keys import APPROVAL_KEYS
from tui.screens.argsview import call_view, shown_whole
from wrapper.safetext import inert

if TYPE_CHECKING:  # only for annotations: the first frame is drawn before these are imported
    from wrapper.items import Answer, Question

LOCAL_NOTE = (
    "Every hit points at a LOCAL address (localhost / private network). Allowing this call lets it run "
    "once; allowing the turn lets repeats of these same local resources run until the turn ends. "
    "Denying keeps local repeats blocked until your next message."
)
ANSWERS: tuple[tuple[Answer, str, str, str], ...] = (  # answer, binding id (its key is looked up live), label, variant
    ("allow-once", keys.ONCE, "allow this call only (the next repeat asks again)", "success"),
    ("allow-turn", keys.TURN, "allow repeats of these same local resources for the rest of the turn", "primary"),
    ("deny", keys.DENY, "deny this call (the agent is told it was blocked)", "error"),
    ("cancel-turn", keys.CANCEL, "deny and cancel the turn", "warning"),
)


_SHOWN = {"escape": "esc", "full_stop": ".", "comma": ",", "question_mark": "?", "plus": "+", "minus": "-"}


def answers_for(q: Question) -> list[tuple[Answer, str, str, str]]:
    """The answers this question offers: "allow turn" only for a local-address repeat."""
    return [a for a in ANSWERS if a[0] != "allow-turn" or q.local]


def hits_table(q: Question) -> Table:
    """The hits that would block the call, one row each: its fingerprint and its count against the cap."""
    t = Table(box=None, show_header=True, header_style="bold", expand=True, pad_edge=False)
    t.add_column("would be blocked by", overflow="fold")
    t.add_column("count/cap", justify="right", no_wrap=True)
    for h in q.hits:
        cap = str(int(h.cap)) if float(h.cap).is_integer() else str(h.cap)
        t.add_row(Text(inert(h.fp, keep_newlines=False)), Text(f"{h.next}/{cap}"))
    return t


class ApprovalScreen(ModalScreen["Answer"]):
    """Ask the operator; dismisses with the answer (None: closed unanswered)."""

    AUTO_FOCUS = "#body"
    # the answers, then kill and pause on the footer: both act over the modal, armed or not (`tui.keys.EVERY_SCREEN`)
    BINDINGS = [
        *(Binding(k.key, k.action, k.label, show=k.footer, id=k.id) for k in APPROVAL_KEYS),
        *keys.every_screen_bindings(shown=("kill", "enforce")),
    ]
    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > #dialog { width: 100%; max-width: 110; height: auto; max-height: 100%;
        border: thick $warning; background: $panel; padding: 0 1; }
    ApprovalScreen #title { text-style: bold; color: $warning; }
    ApprovalScreen #state { color: $text-muted; }
    ApprovalScreen.armed #state { color: $success; text-style: bold; }
    ApprovalScreen #queue { color: $text-muted; }
    ApprovalScreen #body { height: auto; }
    ApprovalScreen #fold { color: $warning; text-style: bold; display: none; }
    ApprovalScreen #buttons { height: auto; }
    ApprovalScreen Button { width: 100%; min-width: 0; margin: 0; text-align: left; content-align: left middle; }
    """

    def __init__(self, question: Question, typing_to: TextArea | None = None, waiting: int = 0) -> None:
        """`typing_to`: the prompt box keys go on to while the modal is unarmed (None: they do nothing)."""
        super().__init__()
        self.question = question
        self.typing_to = typing_to
        self.waiting = waiting
        self.closed = False
        self.armed = False
        self.offered = answers_for(question)
        # allow is offered only for a call the person could read whole: one cut for its size never,
        # one longer than the body only once it was scrolled to its end (`_gate`)
        self.whole = shown_whole(question.args)
        self.seen_end = False
        self.fitted = False  # the body was measured against the screen at least once
        self._call = Text()
        self._fold_shown = ""

    def compose(self) -> ComposeResult:
        q = self.question
        with Vertical(id="dialog"):
            yield Label(Text(f"Approval needed: {inert(q.tool, keep_newlines=False) or 'a tool call'}"), id="title")
            yield Static(self._state_text(), id="state")
            yield Label(self._queue_text(), id="queue")
            with VerticalScroll(id="body"):
                # why it asks comes first, a row per hit: on a small terminal it is in view with the call's start
                if q.hits:
                    yield Static(hits_table(q), id="hits")
                text, note = call_view(q.args, q.earlier)
                self._call = text
                yield Static(text, id="args")
                yield Static(
                    Text(note or "(no earlier repeat to compare with)", "italic" if note else "dim italic"),
                    id="diff-note",
                )
                if q.local:
                    yield Static(Text(LOCAL_NOTE, "italic"), id="local-note")
                elif q.reason:
                    yield Static(Text(inert(q.reason)), id="reason")
            yield Static("", id="fold")  # shown only while part of the call is out of view
            with Vertical(id="buttons"):
                for answer, binding_id, label, variant in self.offered:
                    caption = f"{self.live_key(binding_id)} · {label}"
                    yield Button(caption, id=answer, variant=variant, compact=True)  # type: ignore[arg-type]
        yield Footer(compact=True, show_command_palette=False)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual's, labelled as the app's state has it now (the pause key says resume while observing)."""
        active = super().active_bindings
        keys.labelled_now(active, getattr(self.app, "label_now", None))
        return active

    def live_key(self, binding_id: str) -> str:
        """The key that answers `binding_id` now: this screen's bindings with the app's keymap applied by
        Textual's own rule, the one that dispatches the keys, so a label cannot disagree with a key.
        """
        bindings = self._bindings.copy()
        keymap = getattr(self.app, "_keymap", {})  # Textual keeps the keymap it applies here
        if keymap:
            bindings.apply_keymap(keymap)
        keys_ = [key for key, bs in bindings.key_to_bindings.items() if any(b.id == binding_id for b in bs)]
        return " / ".join(_SHOWN.get(k, k) for k in keys_) or "(no key)"

    # -- state lines -------------------------------------------------------------------------
    def _state_text(self) -> Text:
        if self.armed:
            return Text("Answer with a key below, or enter on the focused button.")
        tail = ""
        if self.typing_to is not None and self.typing_to.text:
            tail = " (…" + inert(self.typing_to.text[-30:], keep_newlines=False) + ")"
        return Text(f"The agent waits. Press tab to answer; your typing goes on into your message{tail}.")

    def _queue_text(self) -> str:
        return f"1 of {self.waiting + 1} waiting" if self.waiting else "no other question waiting"

    def set_waiting(self, n: int) -> None:
        """`n` more questions stand behind this one."""
        self.waiting = n
        if self.is_mounted:
            self.query_one("#queue", Label).update(self._queue_text())

    def _show_state(self) -> None:
        self.query_one("#state", Static).update(self._state_text())
        self.call_after_refresh(self._fit)  # the line may now wrap onto another row

    def on_mount(self) -> None:
        """Fit the body to the terminal once the rest is laid out; follow its scrolling for the gate."""
        self.watch(self.query_one("#body"), "scroll_y", self._scrolled, init=False)
        self.call_after_refresh(self._fit)

    # -- what runs is seen whole before allow exists ---------------------------------------------
    def allow_open(self) -> bool:
        """Whether the allow answers exist now: the call is shown whole, and fits or was scrolled to its end."""
        if not self.whole or not self.fitted:  # before the body is fitted, the dialog may clip its end
            return False
        return self.seen_end or self._call_end_in_view()

    def _call_end_in_view(self) -> bool:
        """Whether the call's last row is inside the body's visible part now (the notes below it may not be)."""
        bodies, calls = self.query("#body"), self.query("#args")
        if not bodies or not calls:
            return False
        body, call = bodies.first(VerticalScroll), calls.first().virtual_region
        seen = body.scrollable_content_region.height
        if not call.height or not seen:  # not laid out yet: nothing is known to be in view
            return False
        return call.bottom <= body.scroll_y + seen

    def _scrolled(self, _: float = 0.0) -> None:
        if self.closed or not self.query("#fold"):  # closing, or not composed yet
            return
        body = self.query_one("#body", VerticalScroll)
        if self.fitted and body.max_scroll_y > 0 and self._call_end_in_view():
            self.seen_end = True  # scrolled until the call's end was in view: seen (scrolling back does not undo it)
        self._gate()

    def _gate(self) -> None:
        """Offer allow once the call was seen to its end; the fold line says what is still out of view."""
        note = self._fold_note()
        if note != self._fold_shown:  # its rows change the body's share of the screen: fit again
            self._fold_shown = note
            fold = self.query_one("#fold", Static)
            fold.update(Text(note))
            fold.display = bool(note)
            self.call_after_refresh(self._fit)
        for answer, *_ in self.offered:
            if answer.startswith("allow"):
                self.query_one(f"#{answer}", Button).disabled = not self.allow_open()
        self.refresh_bindings()

    def _fold_note(self) -> str:
        if not self.whole:
            return "⟨this call is too long to be shown whole: it can only be denied here⟩"
        if self.allow_open():
            return ""
        lines, chars = self._below_fold()
        return (
            f"⟨{lines:,} lines · {chars:,} characters below, out of view⟩ scroll the call to its end"
            " (pgdn / end) before allow is offered"
        )

    def _below_fold(self) -> tuple[int, int]:
        """Rows of the call below the body's visible part, and the characters on them (as wrapped)."""
        body, args = self.query_one("#body", VerticalScroll), self.query_one("#args", Static)
        width = max(1, args.content_region.width or body.size.width or self.size.width)
        rows = self._call.wrap(self.app.console, width)
        # the call's rows from the body's scroll offset plus its height (less what stands above the call) are hidden
        seen = int(body.scroll_y) + body.scrollable_content_region.height - args.virtual_region.y
        first_hidden = min(len(rows), max(0, seen))
        hidden = rows[first_hidden:]
        return len(hidden), sum(len(r.plain) for r in hidden)

    def on_resize(self, event: events.Resize) -> None:
        """The body takes what the buttons and the lines leave (it scrolls past that)."""
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Measured, not counted: a label wraps onto more rows on a narrow terminal."""
        bodies, dialogs = self.query("#body"), self.query("#dialog")
        if not bodies or not dialogs:  # not composed yet, or closing
            return
        body, dialog = bodies.first(), dialogs.first()
        others = sum(w.outer_size.height for w in dialog.children if w is not body and w.display)
        frame = dialog.styles.gutter.height  # border and padding
        rows = max(3, self.size.height - 1 - frame - others)  # 1: the modal's footer
        if body.styles.max_height is None or body.styles.max_height.value != rows:
            body.styles.max_height = rows
            self.call_after_refresh(self._fit)  # measured again once laid out: it settles when nothing changes
            return
        self.fitted = True
        self._scrolled()  # laid out: what is out of view is known now

    # -- arming and answering --------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Unarmed, no key answers; armed, only the offered answers exist."""
        if action == "answer":
            allowed = not str(parameters[0]).startswith("allow") or self.allow_open()
            return self.armed and allowed and any(a[0] == parameters[0] for a in self.offered)
        if action == "arm":
            return not self.armed  # armed, `on_key` moves the focus on tab
        return True

    def _arm(self) -> None:
        if self.armed:
            return
        self.armed = True
        self.add_class("armed")
        self._show_state()
        self.refresh_bindings()

    def action_arm(self) -> None:
        """Tab: arms the modal with the focus on "deny" (later tabs move the focus, as on any screen)."""
        self._arm()
        self.query_one("#deny", Button).focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A button can only get the focus by a deliberate move (tab, shift+tab, a click): that arms too."""
        if isinstance(event.widget, Button):
            self._arm()

    def on_key(self, event: events.Key) -> None:
        """Unarmed: printable keys and backspace go to the prompt box; enter and esc do nothing."""
        if self.closed:
            return
        if self.armed:
            if event.key == "tab":  # the arm binding is gone once armed: tab moves on, as on any screen
                event.stop()
                event.prevent_default()
                self.focus_next()
            return
        if event.key in ("tab", "shift+tab"):
            return
        target = self.typing_to
        if event.is_printable and event.character:
            if target is not None:
                target.insert(event.character)
        elif event.key == "backspace":
            if target is not None:
                target.action_delete_left()
        elif event.key not in ("enter", "escape"):
            return  # scrolling keys and the like: the body's
        event.stop()
        event.prevent_default()
        self._show_state()

    def action_answer(self, answer: str) -> None:
        """Answer and close (nothing once closed, while unarmed, or allow before the call was seen whole)."""
        if self.closed or not self.armed or (answer.startswith("allow") and not self.allow_open()):
            return
        self.closed = True
        self.dismiss(answer)  # type: ignore[arg-type]

    def close_unanswered(self) -> None:
        """The bridge gave up or the agent went away: close without an answer; later keys do nothing."""
        if self.closed:
            return
        self.closed = True
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A click (or enter on a focused button) answers: both are deliberate."""
        if event.button.id:
            self._arm()
            self.action_answer(event.button.id)
