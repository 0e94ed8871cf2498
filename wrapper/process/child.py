"""The child process under a pseudo-terminal (pexpect), read by a worker thread, signalled by group.

A child may inherit descriptors (the bridge channel's end, the sealed overlay): pexpect has no
`pass_fds`, so `_Spawn` hands them to ptyprocess and marks them inheritable in the forked child
only (never in the monitor, where a concurrent spawn from another thread would leak them). A
`preexec` hook runs there too, before exec, so a containment (a cgroup) holds the child from its
first instruction.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import signal
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pexpect
import ptyprocess  # type: ignore[import-untyped]

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[@-Z\\-_]|\r")


def strip_ansi(text: str) -> str:
    """Terminal output without escape sequences and carriage returns."""
    return _ANSI.sub("", text)


_LIVE: weakref.WeakSet[Child] = weakref.WeakSet()


class _Spawn(pexpect.spawn):  # type: ignore[misc]
    """`pexpect.spawn` that keeps `pass_fds` open across exec and runs `preexec` in the child."""

    def __init__(
        self, *args: Any, pass_fds: tuple[int, ...] = (), preexec: Callable[[], None] | None = None, **kwargs: Any
    ) -> None:
        self._pass_fds = pass_fds
        self._preexec = preexec
        super().__init__(*args, **kwargs)

    def _spawnpty(self, args: list[str], **kwargs: Any) -> ptyprocess.PtyProcess:
        fds, inner, mine = self._pass_fds, kwargs.get("preexec_fn"), self._preexec

        def preexec() -> None:  # in the forked child, before exec
            for fd in fds:
                os.set_inheritable(fd, True)
            if mine is not None:
                mine()
            if inner is not None:
                inner()

        kwargs["preexec_fn"] = preexec
        return ptyprocess.PtyProcess.spawn(args, pass_fds=fds, **kwargs)


@dataclass(frozen=True)
class ExitInfo:
    """How the child ended, and whether we caused it."""

    code: int  # shell-style: the exit status, or 128 + signal number
    signal: int | None  # the signal that killed it, if any
    sent: str | None  # the last signal breaker-tui sent ("SIGINT", ...), if any

    def describe(self) -> str:
        """One line for people."""
        how = f"killed by signal {self.signal}" if self.signal else f"exited with status {self.code}"
        by = f" after breaker-tui sent {self.sent}" if self.sent else ""
        return f"child {how}{by}"


class Child:
    """Runs `argv` under a pty; output and exit are reported through callbacks from a worker thread."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: str,
        on_output: Callable[[str], None],
        on_exit: Callable[[ExitInfo], None],
        size: tuple[int, int] = (40, 160),
        pass_fds: tuple[int, ...] = (),
        preexec: Callable[[], None] | None = None,
    ) -> None:
        self.argv = argv
        self.pass_fds = pass_fds
        self.preexec = preexec
        self.env = env
        self.cwd = cwd
        self.on_output = on_output
        self.on_exit = on_exit
        self.size = size
        self.proc: pexpect.spawn | None = None
        self.sent: str | None = None
        self.exit: ExitInfo | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()

    @property
    def pid(self) -> int | None:
        """The child's pid (also its process group id)."""
        return self.proc.pid if self.proc is not None else None

    @property
    def running(self) -> bool:
        """Whether the child has been started and not yet reaped."""
        return self.proc is not None and not self._done.is_set()

    def start(self) -> None:
        """Spawn the child and start the reader thread (raises OSError if it cannot start)."""
        try:
            self.proc = _Spawn(
                self.argv[0],
                self.argv[1:],
                env=self.env,
                cwd=self.cwd,
                encoding="utf-8",
                codec_errors="replace",
                dimensions=self.size,
                echo=False,
                timeout=None,
                pass_fds=self.pass_fds,
                preexec=self.preexec,
            )
        except pexpect.ExceptionPexpect as e:
            raise OSError(str(e)) from e
        _LIVE.add(self)
        self._thread = threading.Thread(target=self._pump, name=f"child-{self.proc.pid}", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        proc = self.proc
        assert proc is not None
        while True:
            try:
                data = proc.read_nonblocking(65536, timeout=0.25)
            except pexpect.TIMEOUT:
                continue
            except (pexpect.EOF, OSError, ValueError):
                break
            if data:
                self.on_output(data)
        with contextlib.suppress(Exception):
            proc.wait()
        with contextlib.suppress(Exception):
            proc.close(force=True)
        sig = proc.signalstatus
        code = 128 + sig if sig else (proc.exitstatus if proc.exitstatus is not None else 1)
        self.exit = ExitInfo(code, sig, self.sent)
        self._done.set()
        self.on_exit(self.exit)

    def send_signal(self, sig: signal.Signals) -> bool:
        """Signal the child's whole process group; remember what we sent."""
        if self.proc is None or self._done.is_set():
            return False
        self.sent = sig.name
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            return False
        except PermissionError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, sig)
        return True

    def write(self, text: str) -> None:
        """Type into the child's terminal (plain commands only; dsh takes prompts over the bridge)."""
        if self.proc is not None and not self._done.is_set():
            with contextlib.suppress(OSError):
                self.proc.write(text)

    def wait(self, timeout: float | None = None) -> ExitInfo | None:
        """Block (in a thread, never on the event loop) until the child exits."""
        self._done.wait(timeout)
        return self.exit

    def stop(self, grace: float = 6.0, first: signal.Signals = signal.SIGINT) -> ExitInfo | None:
        """Interrupt, then kill after `grace` seconds. Blocking: call from a thread."""
        if not self.running:
            return self.exit
        self.send_signal(first)
        if self._done.wait(grace):
            return self.exit
        self.send_signal(signal.SIGKILL)
        self._done.wait(5)
        return self.exit


@atexit.register
def _reap_all() -> None:
    """No orphans: whatever is still running when the wrapper exits is killed with its group."""
    deadline = time.monotonic() + 2
    for c in list(_LIVE):
        if c.running:
            c.send_signal(signal.SIGINT)
    for c in list(_LIVE):
        if c.running:
            c.wait(max(0.0, deadline - time.monotonic()))
        if c.running:
            c.send_signal(signal.SIGKILL)
