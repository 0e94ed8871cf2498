"""The child process under a pseudo-terminal (pexpect), read by a worker thread, signalled by group.

A child may inherit descriptors (the bridge channel's end, the sealed overlay): pexpect has no
`pass_fds`, so `_Spawn` hands them to ptyprocess, and the forked child renumbers them to 3, 4, ...
in order (`inherited_fd`) before it execs. The low numbers are the point. Node marks inherited
descriptors close-on-exec at start-up (libuv's `uv_disable_stdio_inheritance`), but past fd 15 it
stops at the first number that is not open. A channel end inherited as fd 23, with 16 to 22
closed, stayed inheritable, and every tool dsh ran held it (`tests/integration/test_hijack.py`).
The monitor's own copies are never made inheritable: a concurrent spawn from another thread cannot
leak them. A `preexec` hook runs in the child too, before exec, so a containment (a cgroup) holds
the child from its first instruction.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
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

from wrapper.process import proc

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[@-Z\\-_]|\r")


def strip_ansi(text: str) -> str:
    """Terminal output without escape sequences and carriage returns."""
    return _ANSI.sub("", text)


_LIVE: weakref.WeakSet[Child] = weakref.WeakSet()


FIRST_INHERITED_FD = 3  # right after stdin, stdout and stderr


def inherited_fd(index: int) -> int:
    """The number the child sees for `pass_fds[index]`: always below 16, which Node marks close-on-exec."""
    return FIRST_INHERITED_FD + index


class _Spawn(pexpect.spawn):  # type: ignore[misc]
    """`pexpect.spawn` that passes `pass_fds` renumbered (`inherited_fd`) and runs `preexec` in the child."""

    def __init__(
        self, *args: Any, pass_fds: tuple[int, ...] = (), preexec: Callable[[], None] | None = None, **kwargs: Any
    ) -> None:
        self._pass_fds = pass_fds
        self._preexec = preexec
        super().__init__(*args, **kwargs)

    def _spawnpty(self, args: list[str], **kwargs: Any) -> ptyprocess.PtyProcess:
        fds, inner, mine, env = self._pass_fds, kwargs.get("preexec_fn"), self._preexec, kwargs.get("env")

        def preexec() -> None:  # in the forked child, after ptyprocess closed every other descriptor
            if mine is not None:
                mine()
            if inner is not None:
                inner()
            if fds:
                _exec_renumbered(args, env, fds)  # does not return

        kwargs["preexec_fn"] = preexec
        return ptyprocess.PtyProcess.spawn(args, pass_fds=fds, **kwargs)


def _exec_renumbered(argv: list[str], env: dict[str, str] | None, sources: tuple[int, ...]) -> None:
    """In the forked child: put `sources` on 3, 4, ... (inheritable), then exec `argv` (a full path).

    One descriptor besides ours is open here: ptyprocess's exec-error pipe, which may sit on a target
    number. It is moved above every target, close-on-exec as before, and this function execs itself
    so that an exec error still reaches the parent through it (ptyprocess's format, `OSError:errno:text`).
    Everything that can fail runs before the first descriptor is replaced: such a failure raises, and
    ptyprocess reports it as before.
    """
    targets = [inherited_fd(i) for i in range(len(sources))]
    top = max([*sources, *targets]) + 1
    others = [fd for fd in proc.own_fds() if fd > 2 and fd not in sources]
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, top) for fd in others]
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, top) for fd in sources]
    try:
        for fd in {*others, *sources}:
            os.close(fd)
        for fd, target in zip(high, targets, strict=True):
            os.dup2(fd, target, inheritable=True)
            os.close(fd)
        if env is None:
            os.execv(argv[0], argv)
        os.execve(argv[0], argv, env)
    except OSError as e:
        for fd in moved:
            with contextlib.suppress(OSError):
                os.write(fd, f"OSError:{e.errno}:{e}".encode())
    os._exit(os.EX_OSERR)


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
        echo: bool = False,
    ) -> None:
        self.argv = argv
        # the terminal echoes what is typed into it, as a terminal does: a plain command's input is seen where
        # it is typed, and a program that turns echo off (a password prompt) hides it; dsh is typed nothing
        self.echo = echo
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
                echo=self.echo,
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
