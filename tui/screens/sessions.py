"""The past sessions of this agent in this folder: pick one and the agent resumes it.

The list comes from breaker-tui's own recordings (`wrapper.harness.past`), newest first, one row per
session id: when it last ran, how many runs, its first prompt. Enter (or a click) resumes the session
highlighted: an ACP agent restarts and loads it with `session/load` (what it replays is shown as history
and never judged), dsh's runner restarts with `--resume ID`. Escape or q closes the list and nothing
changes. When the agent does not advertise `loadSession` the header says so before anything is
picked: resuming would start a new session, without the old turns. Every string read from a recording
is inert and clipped (a recording is writable by the agent).
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from themes import Palette
from tui.widgets.stream import DEFAULT_PALETTE, clip
from wrapper.harness.past import PastSession


def when(at: float) -> str:
    """`2026-12-02 00:25` in local time."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def row(s: PastSession, p: Palette, current: str = "") -> Text:
    """One session on one row: when, its first prompt, its runs, its id (what a narrow screen cuts last)."""
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    t.append(when(s.last), "bold")
    if s.session_id == current:
        t.append("  (this one)", p.warning)
    t.append(f"  {clip(s.title, 60)}")
    t.append(f"  {s.runs} run{'s' if s.runs != 1 else ''}", p.muted)
    t.append(f"  {clip(s.session_id, 14)}", p.tool)
    return t


class SessionsScreen(ModalScreen[str | None]):
    """The list of past sessions; dismissed with the session id to resume, or None."""

    BINDINGS = [Binding("escape,q", "dismiss(None)", "close", id="sessions.close")]
    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > #sessions-box { width: 95%; max-width: 140; height: 85%; border: round $primary;
        background: $surface; }
    SessionsScreen #sessions-head { height: auto; padding: 0 1; }
    SessionsScreen #sessions-list { height: 1fr; min-height: 3; border: none; text-wrap: nowrap;
        text-overflow: ellipsis; }
    """

    def __init__(
        self,
        sessions: list[PastSession],
        agent: str,
        cwd: str,
        warning: str = "",
        current: str = "",
        palette: Palette = DEFAULT_PALETTE,
    ) -> None:
        super().__init__()
        self.sessions = sessions
        self.agent = agent
        self.cwd = cwd
        self.warning = warning
        self.current = current
        self.palette = palette

    def compose(self) -> ComposeResult:
        p = self.palette
        with Vertical(id="sessions-box"):
            head = Text(end="")
            head.append(f"{clip(self.agent, 30)} in {clip(self.cwd, 70)}\n", "bold")
            if self.warning:
                head.append(clip(self.warning, 300) + "\n", p.warning)
            if self.sessions:
                head.append("enter resumes · ↑↓ move · esc closes", p.muted)
            else:
                head.append(
                    "no past sessions here: breaker-tui lists the sessions it recorded of this agent in this"
                    " folder · esc closes",
                    p.muted,
                )
            yield Static(head, id="sessions-head")
            yield OptionList(
                *(Option(row(s, p, self.current), id=f"s{i}") for i, s in enumerate(self.sessions)),
                id="sessions-list",
            )

    def on_mount(self) -> None:
        """A title on the box; the list takes the keys, the newest highlighted."""
        box = self.query_one("#sessions-box")
        box.border_title = f"past sessions · {len(self.sessions)}"
        box.border_subtitle = "enter resume · esc close"
        box_list = self.query_one("#sessions-list", OptionList)
        box_list.focus()
        if self.sessions:
            box_list.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click: resume that session."""
        event.stop()
        i = int(str(event.option.id or "s-1")[1:])
        if 0 <= i < len(self.sessions):
            self.dismiss(self.sessions[i].session_id)
