"""Running the screen for real: draw it, check the command can start, run it, say where the recording is.

The screen's first frame comes first: the harnesses, the engine and the checks that need them are
imported and run after it (`LiveSource(opened=False)`), so a person sees the monitor at once however
busy the machine is. The exit status follows one rule (see `BreakerApp.exit_status`): 3 when nothing
could be started (the screen closes at once, the reason on stderr, nothing recorded), 70 for an
internal error, the child's own status when it ended by itself, else 0 (the person quit, killed or
restarted it).
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from tui.app import create_app
from tui.sources import LiveSource, Setup
from wrapper.exits import Exit
from wrapper.safetext import inert
from wrapper.settings import Settings

if TYPE_CHECKING:
    from wrapper.records.sources import Loaded

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
    banner: Callable[[], list[str]] | None = None,
    setup: Setup | None = None,
) -> int:
    """Run a command under the monitor with the screen; returns the exit status.

    `banner`: the start-up lines (loosened keys, what changed since the last session), worked out
    with the harnesses once the screen is up and said on stderr when it closes. `setup`: what the
    command needs built first (the demo's world), built once the screen is up, its progress on the
    status line; it gives the command its `argv`, `env` and `cwd`.
    """
    said: list[str] = []

    def check() -> str:
        """Why the command cannot start (an agent not installed, a command not found), or ""."""
        from wrapper.harness.registry import agent_cannot_run, cannot_start

        if why := agent_cannot_run(source.argv) or cannot_start(source.argv, source.env):
            return why
        if banner is not None:
            said.extend(banner())
        return ""

    source = LiveSource(
        argv,
        settings,
        env=env,
        cwd=cwd,
        first_prompt=first_prompt,
        title=title,
        acp=acp,
        resume=resume,
        opened=False,
        check=check,
        setup=setup,
    )
    app = create_app(source, settings, theme, observe)
    try:
        app.run()
    finally:
        gc.enable()  # off while the screen started (`tui.cli`), if the first frame never came
    status = app.exit_status()
    for line in said:
        say(f"breaker-tui: {line}")
    if app.start_error:
        say(f"breaker-tui: {app.start_error}")
    elif app.internal_error:
        say(f"breaker-tui: internal error: {app.internal_error}")
    if source.recording:
        say(f"breaker-tui: {source.recording}")
    return status


def run_replay(loaded: Loaded, settings: Settings, speed: float = 1.0, paused: bool = False) -> int:
    """Play a recording through the same screen."""
    from tui.player import ReplaySource

    app = create_app(ReplaySource(loaded, settings, speed, paused), settings)
    app.run()
    return app.exit_status()
