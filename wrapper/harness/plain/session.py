"""`PlainSession`: any command that is neither dsh nor an ACP agent, watched through its output.

Its output is fed to the engine as one stream (so reasoning-like floods still trip), a trip interrupts the
child with SIGINT, and a line the person types goes to its input. Nothing is asked before a tool runs:
there are no tool calls to see. On the screen it runs under a pty; without one (`pipes=True`, for
`--no-tui`) its stdin, stdout and stderr stay its own (`plain.pipes`).
"""

from __future__ import annotations

from typing import Any

from engine import events as ev
from wrapper.harness.plain.pipes import PipeChild
from wrapper.harness.pty import PtySession
from wrapper.items import OutputItem
from wrapper.process.child import Child, strip_ansi

CHILD_AGENT = "child"


class PlainSession(PtySession):
    """A plain command under the monitor."""

    def __init__(self, *args: Any, pipes: bool = False, **kwargs: Any) -> None:
        self.pipes = pipes
        super().__init__(*args, **kwargs)

    def _make_child(self, argv: list[str], env: dict[str, str], gen: int) -> Child:
        if not self.pipes:
            return super()._make_child(argv, env, gen)
        return PipeChild(
            argv,
            env,
            self.cwd,
            on_stream=lambda text, stream: self._threadsafe(self._on_stream, text, stream),
            on_exit=lambda info: self._threadsafe(self._on_exit, info, gen),
            preexec=self.contain.preexec if self.contain is not None else None,
        )

    async def prompt(self, text: str, timeout: float = 60) -> bool:
        """A line the person typed, to the command's input (its terminal): an empty one too, which a
        `read` or a "press enter" waits for. False when no child runs to take it.
        """
        if self.child is None or not self.child.running:
            return False
        self.child.write(text + "\n")
        return True

    def _on_child_output(self, text: str) -> None:
        self._on_stream(text, "terminal")

    def _on_stream(self, text: str, stream: str) -> None:
        if stream != "terminal":
            self._record("child", {"text": text[:65536], "stream": stream})
        self._emit(OutputItem(text, stream))
        if stream == "stderr":
            return  # the engine watches what the command prints as its output
        clean = strip_ansi(text) if stream == "terminal" else text.encode("utf-8", "replace").decode("utf-8")
        trip = self.breaker.feed(ev.OutputDelta(CHILD_AGENT, clean))
        if trip is not None:
            self._spawn(self._on_trip(trip))
