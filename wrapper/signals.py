"""SIGINT, SIGTERM and SIGHUP end a monitored run the same way, in every mode.

Without this, SIGTERM or a closed terminal (SIGHUP) killed the monitor outright: the child's
process group kept running, the private run directory (socket, TMPDIR) stayed behind and the
recording had no end. `install()` makes each of them stop the child's group, remove the run
directory and close the recording; a second signal while that is under way stops at once.
The CLI and the TUI call it once their event loop runs (see the README, Reliability).
A terminal that goes away without a SIGHUP reaching the monitor (the TUI sees its tty hang up or
fail) ends the run the same way, through `Handling.hang_up`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wrapper.harness.base import HarnessSession

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Handling:
    """What `install` put in place: the handler for each signal; calling it puts the previous handling back.

    The first signal starts the shutdown. A second one kills the child's group and removes the run
    directory at once, then calls `after` again. There is one exception: the kernel's SIGHUP after
    `hang_up`. That is the same closed terminal, told twice, not a person insisting.
    """

    def __init__(
        self, session: HarnessSession, after: Callable[[signal.Signals], None] | None, loop: asyncio.AbstractEventLoop
    ) -> None:
        self._session = session
        self._after = after
        self._loop = loop
        self._task: asyncio.Task[None] | None = None
        self._hung_up = False
        self._installed: list[signal.Signals] = []

    def install(self, signals: tuple[signal.Signals, ...]) -> None:
        for sig in signals:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                self._loop.add_signal_handler(sig, self.handle, sig)
                self._installed.append(sig)

    def __call__(self) -> None:
        for sig in self._installed:
            with contextlib.suppress(Exception):
                self._loop.remove_signal_handler(sig)

    @property
    def started(self) -> bool:
        """A shutdown is under way (or done)."""
        return self._task is not None

    def hang_up(self) -> None:
        """The terminal is gone (seen on the tty, not by a signal): end the run as SIGHUP does, once."""
        if self._task is None:
            self._hung_up = True
            self.handle(signal.SIGHUP)

    def handle(self, sig: signal.Signals) -> None:
        """What each handled signal does (see the class docstring)."""
        if self._task is None:
            self._task = self._loop.create_task(self._stop(sig))
            return
        if sig == signal.SIGHUP and self._hung_up:
            return
        self._session.shutdown_now()
        if self._after is not None:
            self._after(sig)

    async def _stop(self, sig: signal.Signals) -> None:
        try:
            await self._session.shutdown(sig)
        finally:
            if self._after is not None:
                self._after(sig)


def install(
    session: HarnessSession,
    after: Callable[[signal.Signals], None] | None = None,
    signals: tuple[signal.Signals, ...] = HANDLED,
) -> Handling:
    """Handle `signals` on the running loop: shut the session down, then call `after(sig)`.

    Returns the `Handling`; calling it puts the previous handling back.
    """
    handling = Handling(session, after, asyncio.get_running_loop())
    handling.install(signals)
    return handling


def exit_code(sig: signal.Signals) -> int:
    """The shell's status for a run ended by `sig` (128 + its number)."""
    return 128 + int(sig)
