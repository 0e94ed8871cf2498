"""A plain command on pipes instead of a pty, for `--no-tui`: its stdout stays its stdout, byte for byte.

Under a pty a program's stdout and stderr arrive merged, with CRLF line endings, and stdin is the pty:
right for a screen, wrong for a script (`breaker-tui --no-tui -- seq 1 200000 > file`). Without a screen
the command gets our stdin as its own, and its stdout and stderr come back separately, undecorated; the
engine still reads what it prints. Like the pty child it runs in its own session and process group, so
signals reach everything it started.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import subprocess
import threading
from collections.abc import Callable

from wrapper.process.child import _LIVE, Child, ExitInfo

CHUNK = 65536
Streamed = Callable[[str, str], None]  # (text, "stdout" | "stderr")


class PipeChild(Child):
    """`Child` with separate stdout and stderr pipes and the caller's stdin; same signals, same exit report."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: str,
        on_stream: Streamed,
        on_exit: Callable[[ExitInfo], None],
        preexec: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(
            argv, env, cwd, on_output=lambda text: on_stream(text, "stdout"), on_exit=on_exit, preexec=preexec
        )
        self.on_stream = on_stream
        self._popen: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        """The child's pid (also its process group id)."""
        return self._popen.pid if self._popen is not None else None

    @property
    def running(self) -> bool:
        """Whether the child has been started and not yet reaped."""
        return self._popen is not None and not self._done.is_set()

    def start(self) -> None:
        """Spawn the child with our stdin and two pipes, and the reader threads (OSError if it cannot start)."""
        self._popen = subprocess.Popen(
            self.argv,
            env=self.env,
            cwd=self.cwd,
            stdin=None,  # ours: piped input reaches the command, a terminal stays a terminal
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=self.preexec,  # the containment (a cgroup) holds it from its first instruction
        )
        self.proc = self._popen  # the base class signals `proc.pid`'s group
        _LIVE.add(self)
        readers = [
            threading.Thread(target=self._read, args=(self._popen.stdout, "stdout"), daemon=True),
            threading.Thread(target=self._read, args=(self._popen.stderr, "stderr"), daemon=True),
        ]
        for t in readers:
            t.start()
        self._thread = threading.Thread(
            target=self._reap, args=(readers,), name=f"child-{self._popen.pid}", daemon=True
        )
        self._thread.start()

    def _read(self, pipe: object, stream: str) -> None:
        # the bytes as printed: undecodable bytes survive as surrogates (the printer writes them back as bytes)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        fd = pipe.fileno()  # type: ignore[attr-defined]
        while True:
            try:
                data = os.read(fd, CHUNK)
            except OSError:
                break
            if not data:
                break
            text = decoder.decode(data)
            if text:
                self.on_stream(text, stream)
        tail = decoder.decode(b"", final=True)
        if tail:
            self.on_stream(tail, stream)
        with contextlib.suppress(OSError):
            pipe.close()  # type: ignore[attr-defined]

    def _reap(self, readers: list[threading.Thread]) -> None:
        p = self._popen
        assert p is not None
        code = p.wait()
        for t in readers:  # every byte it printed is delivered before the exit is
            t.join(5)
        sig = -code if code < 0 else None
        self.exit = ExitInfo(128 + sig if sig else code, sig, self.sent)
        self._done.set()
        self.on_exit(self.exit)

    def write(self, text: str) -> None:
        """Nothing to type into: the command reads our stdin itself."""
