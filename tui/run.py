"""Running the screen for real: check the command can start, run the app, say where the recording is.

The exit status follows one rule (see `BreakerApp.exit_status`): 3 when nothing could be started
(the reason on stderr, and no empty monitor), 70 for an internal error, the child's own status when
it ended by itself, else 0 (the person quit, killed or restarted it).
"""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

from tui.app import create_app
from tui.player import ReplaySource
from tui.sources import LiveSource
from wrapper.exits import Exit
from wrapper.harness.registry import cannot_start
from wrapper.records.sources import Loaded
from wrapper.safetext import inert
from wrapper.settings import Settings

EXIT_CANNOT_START = Exit.CANNOT_START


def say(text: str, stream: TextIO | None = None) -> None:
    """One line on stderr; a closed pipe never changes the exit status."""
    with contextlib.suppress(BrokenPipeError, ValueError, OSError):
        print(inert(text), file=stream or sys.stderr, flush=True)


def run_app(
    argv: list[str],
    settings: Settings,
    theme: str | None = None,
    observe: bool = False,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    first_prompt: str | None = None,
    title: str = "",
    acp: bool = False,
    resume: str | None = None,
) -> int:
    """Run a command under the monitor with the screen; returns the exit status."""
    why = cannot_start(argv, env)
    if why:
        say(f"breaker-tui: {why}")
        return EXIT_CANNOT_START
    source = LiveSource(
        argv, settings, env=env, cwd=cwd, first_prompt=first_prompt, title=title, acp=acp, resume=resume
    )
    app = create_app(source, settings, theme, observe)
    app.run()
    status = app.exit_status()
    if app.start_error:
        say(f"breaker-tui: {app.start_error}")
    elif app.internal_error:
        say(f"breaker-tui: internal error: {app.internal_error}")
    if source.recording:
        say(f"breaker-tui: {source.recording}")
    return status


def run_replay(loaded: Loaded, settings: Settings, speed: float = 1.0, paused: bool = False) -> int:
    """Play a recording through the same screen."""
    app = create_app(ReplaySource(loaded, settings, speed, paused), settings)
    app.run()
    return app.exit_status()
