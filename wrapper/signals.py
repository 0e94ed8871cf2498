"""SIGINT, SIGTERM and SIGHUP end a monitored run the same way, in every mode.

Without this, SIGTERM or a closed terminal (SIGHUP) killed the monitor outright: the child's
process group kept running, the private run directory (socket, TMPDIR) stayed behind and the
recording had no end. `install()` makes each of them stop the child's group, remove the run
directory and close the recording; a second signal while that is under way stops at once.
The CLI and the TUI call it once their event loop runs (see the README, Reliability).
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


def install(
    session: HarnessSession,
    after: Callable[[signal.Signals], None] | None = None,
    signals: tuple[signal.Signals, ...] = HANDLED,
) -> Callable[[], None]:
    """Handle `signals` on the running loop: shut the session down, then call `after(sig)`.

    Returns a function that puts the previous handling back. A second signal during the shutdown
    kills the child's group and removes the run directory at once, then calls `after` again.
    """
    loop = asyncio.get_running_loop()
    state: dict[str, asyncio.Task[None] | None] = {"task": None}

    async def stop(sig: signal.Signals) -> None:
        try:
            await session.shutdown(sig)
        finally:
            if after is not None:
                after(sig)

    def handler(sig: signal.Signals) -> None:
        if state["task"] is None:
            state["task"] = loop.create_task(stop(sig))
            return
        session.shutdown_now()
        if after is not None:
            after(sig)

    installed = []
    for sig in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, handler, sig)
            installed.append(sig)

    def uninstall() -> None:
        for sig in installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)

    return uninstall


def exit_code(sig: signal.Signals) -> int:
    """The shell's status for a run ended by `sig` (128 + its number)."""
    return 128 + int(sig)
