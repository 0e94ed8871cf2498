"""`breaker-tui watch`: every live hooked session (Claude Code, Codex, Gemini CLI in their own terminals).

The sessions live in the per-user `breaker-tui serve`, not in this process: the screen asks the server
for its list (a `list` request on its socket) every second and shows one row per session. Enter on a
row ends the screen with that session's recording, which the command line then plays in `replay`.
"""

from __future__ import annotations

import os
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Static

from wrapper.hooks.client import NoVerdict, live_sessions

COLUMNS = ("agent", "project", "session", "calls", "denials", "last verdict")
REFRESH_S = 1.0


def project_label(cwd: str) -> str:
    """The project folder, with the home folder shortened to ~."""
    home = os.path.expanduser("~")
    return "~" + cwd[len(home) :] if cwd and home != "/" and cwd.startswith(home) else cwd


class WatchApp(App[str]):
    """One row per live hook session, refreshed from the server; enter opens its recording."""

    TITLE = "breaker-tui watch"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "replay the recording"),
        Binding("r", "refresh", "refresh"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, refresh_s: float = REFRESH_S) -> None:
        super().__init__()
        self.refresh_s = refresh_s
        self.recordings: dict[str, str] = {}  # row key -> recording path

    def compose(self) -> ComposeResult:
        yield Static("", id="state")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.action_refresh()
        self.set_interval(self.refresh_s, self.action_refresh)

    def action_refresh(self) -> None:
        state = self.query_one("#state", Static)
        try:
            rows = live_sessions()
        except NoVerdict as e:
            state.update(f"{e} (breaker-tui hooks status says more)")
            rows = []
        else:
            n = len(rows)
            state.update(f"{n} live hook session{'s' if n != 1 else ''}; enter replays the selected recording")
        self._show(rows)

    def _show(self, rows: list[dict[str, object]]) -> None:
        table = self.query_one(DataTable)
        keep = table.cursor_row
        table.clear()
        self.recordings = {}
        for r in rows:
            key = f"{r.get('agent')}/{r.get('session')}"
            self.recordings[key] = str(r.get("recording") or "")
            cells = (r.get("agent"), project_label(str(r.get("cwd") or "")), r.get("session"))
            counts = (r.get("calls"), r.get("denials"), r.get("last"))
            table.add_row(*(str(c) for c in (*cells, *counts)), key=key)
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key and self.recordings.get(key):
            self.exit(self.recordings[key])

    def on_data_table_row_selected(self, _: DataTable.RowSelected) -> None:
        self.action_open()
