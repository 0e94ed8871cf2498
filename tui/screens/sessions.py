"""The past sessions of this agent in this folder: pick one and the agent resumes it.

The list comes from breaker-tui's own recordings (`wrapper.harness.past`), newest first, one row per
session id: when it last ran, how many runs, its first prompt. Enter (or a click) asks, on the header,
to resume the session highlighted, naming it; a second enter resumes it (resuming restarts the agent,
so it is never one stray key away): an ACP agent restarts and loads it with `session/load` (what it
replays is shown as history and never judged), dsh's runner restarts with `--resume ID`. The arrows
stop at the ends of the list (a wrap would take one key from the newest to the oldest session). A
session whose recording another process is writing (a second monitor in this folder) is marked live
and cannot be resumed here. Escape or q closes the list and nothing changes. When the agent does not
advertise `loadSession` the header says so before anything is picked: resuming would start a new
session, without the old turns. Every string read from a recording is inert and clipped (a recording
is writable by the agent).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

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
from wrapper.process import proc


def when(at: float) -> str:
    """`2026-12-02 00:25` in local time."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def written_elsewhere(paths: set[Path]) -> dict[Path, int]:
    """Which of `paths` another process holds open for writing (a monitor still recording it), by pid.

    Read from /proc: no lock is needed from the writer, and a monitor that died leaves nothing behind.
    """
    wanted = {str(p.resolve()): p for p in paths}
    found: dict[Path, int] = {}
    me = os.getpid()
    for pid in proc.pids():
        if pid == me:
            continue
        for target in (proc.fd_links(pid) or {}).values():  # none when gone, or not ours to read
            if target in wanted:
                found[wanted[target]] = pid
    return found


def row(s: PastSession, p: Palette, current: str = "", live: int | None = None) -> Text:
    """One session on one row: when, its first prompt, its runs, its id (what a narrow screen cuts last)."""
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    t.append(when(s.last), "bold")
    if s.session_id == current:
        t.append("  (this one)", p.warning)
    elif live is not None:
        t.append(f"  (live in another monitor, pid {live})", p.warning)
    t.append(f"  {clip(s.title, 60)}")
    t.append(f"  {s.runs} run{'s' if s.runs != 1 else ''}", p.muted)
    t.append(f"  {clip(s.session_id, 14)}", p.tool)
    return t


class _Rows(OptionList):
    """The list, whose arrows stop at its ends instead of wrapping around."""

    def action_cursor_up(self) -> None:
        if self.highlighted is None or self.highlighted > 0:
            super().action_cursor_up()

    def action_cursor_down(self) -> None:
        if self.highlighted is None or self.highlighted < self.option_count - 1:
            super().action_cursor_down()


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
        self.live: dict[Path, int] = {}  # filled in a thread once the list is up
        self.armed: int | None = None  # the row the header asks to confirm

    def _head(self, note: Text | None = None) -> Text:
        p = self.palette
        head = Text(end="")
        head.append(f"{clip(self.agent, 30)} in {clip(self.cwd, 70)}\n", "bold")
        if self.warning:
            head.append(clip(self.warning, 300) + "\n", p.warning)
        if note is not None:
            head.append_text(note)
        elif self.sessions:
            head.append("enter resumes (it asks first) · ↑↓ move · esc closes", p.muted)
        else:
            head.append(
                "no past sessions here: breaker-tui lists the sessions it recorded of this agent in this"
                " folder · esc closes",
                p.muted,
            )
        return head

    def compose(self) -> ComposeResult:
        p = self.palette
        with Vertical(id="sessions-box"):
            yield Static(self._head(), id="sessions-head")
            yield _Rows(
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
            self.run_worker(self._find_live, thread=True, group="sessions-live")

    def _find_live(self) -> None:
        live = written_elsewhere({s.path for s in self.sessions})
        if live:
            self.app.call_from_thread(self._mark_live, live)

    def _mark_live(self, live: dict[Path, int]) -> None:
        self.live = live
        box = self.query_one("#sessions-list", OptionList)
        for i, s in enumerate(self.sessions):
            if s.path in live:
                box.replace_option_prompt_at_index(i, row(s, self.palette, self.current, live[s.path]))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Moving on takes the question back."""
        if self.armed is not None and event.option_index != self.armed:
            self.armed = None
            self.query_one("#sessions-head", Static).update(self._head())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click: ask to resume that session; the same again: resume it."""
        event.stop()
        i = int(str(event.option.id or "s-1")[1:])
        if not 0 <= i < len(self.sessions):
            return
        s, p = self.sessions[i], self.palette
        head = self.query_one("#sessions-head", Static)
        if s.path in self.live:
            note = Text(f"{clip(s.title, 40)!r} is live in another monitor (pid {self.live[s.path]}): ", p.warning)
            note.append("resuming it here would run it twice · pick another or esc", p.muted)
            head.update(self._head(note))
            return
        if self.armed != i:
            self.armed = i
            note = Text(f"resume {clip(s.title, 40)!r} from {when(s.last)}? ", "bold")
            note.append("the agent restarts on it · enter again resumes · ↑↓ or esc: no", p.muted)
            head.update(self._head(note))
            return
        self.dismiss(s.session_id)
