"""The past sessions of the running agent, listed (ctrl+l, the palette) and resumed from the list.

A mixin of `BreakerApp`. The list is read from the recordings in a thread (`wrapper.harness.past`: the
newest few hundred files, each only its first records), so opening it never stalls the screen; the
choice goes to the source, which restarts the agent on that session (`session/load` for ACP agents,
`--resume ID` for dsh's runner). What the agent replays of the old session is shown as history and is
never judged again (`wrapper.harness.acp.history`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App

from tui.saying import Saying
from tui.widgets.stream import StreamView
from wrapper.paths import recordings_dir
from wrapper.safetext import inert
from wrapper.settings import Settings

if TYPE_CHECKING:  # only for annotations: the first frame is drawn before these are imported
    from tui.sources import Source


class Resuming(Saying, App[int]):
    """ctrl+l: the session list; enter on a row resumes that session."""

    source: Source
    settings: Settings
    w_stream: StreamView

    def recordings_folder(self) -> Path:
        """Where this run's recordings (and so the past sessions) are: `[wrapper] recordings_dir` or the default."""
        d = self.settings.wrapper.recordings_dir
        return Path(d) if d else recordings_dir()

    async def action_show_sessions(self) -> None:
        """The past sessions of this agent in this folder, newest first."""
        from tui.screens.sessions import SessionsScreen  # the list and its reader: only when asked for
        from wrapper.harness.past import list_sessions

        where = self.source.sessions_of()
        if where is None:
            self.notify("this source has no sessions to resume (dsh's runner and ACP agents do)", severity="warning")
            return
        if isinstance(self.screen, SessionsScreen):
            return
        who, cwd = where
        sessions = await asyncio.to_thread(list_sessions, self.recordings_folder(), who, cwd)
        screen = SessionsScreen(
            sessions, who, cwd, self.source.cannot_load(), self.source.info.session_id, self.w_stream.palette
        )
        self.push_screen(screen, self._picked)

    def _picked(self, session_id: str | None) -> None:
        if session_id:
            self.run_worker(self._resume(session_id), group="resume", exclusive=True)

    async def _resume(self, session_id: str) -> None:
        self.say(f"resuming session {session_id[:40]}…")
        if not await self.source.resume(session_id):
            note = self.source.notes.pop() if self.source.notes else "the session could not be resumed"
            self.notify(inert(note, keep_newlines=False), severity="warning", markup=False)
