"""The terminal driver: Textual's Linux driver, made to notice when its terminal goes away.

When the terminal closes (a tmux session killed, a window closed, ssh lost), the kernel hangs the
tty up: a write to it fails with EIO, a read returns nothing, and the process gets SIGHUP then
SIGCONT. Textual's own driver (8.x) handles none of that:

* its writer thread dies on the first EIO, and the queue it drained holds 30 writes, so the next
  repaints block the event loop in `queue.put` for good. SIGTERM is then never handled either:
  asyncio's handler runs on that loop;
* its SIGCONT handler starts application mode again although nothing was suspended, which makes a
  second writer thread, whose first write fails the same way;
* its input thread reads the dead tty in a tight loop.

`TerminalDriver` keeps Textual's behaviour while the terminal lives. Three rules make the rest safe:

* no write ever blocks on a dead terminal. The writer drains its queue whatever a write raises
  and drops everything after the first failure;
* SIGCONT resumes only what SIGTSTP suspended;
* a watcher thread waits on the tty for a hang-up (POLLHUP, POLLERR or POLLNVAL) and stops the input
  thread's reads.

On a failed write or a hang-up the app gets one `TerminalGone` message, which ends the run as
SIGHUP does (see `BreakerApp`).
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from typing import IO, Any

from textual.drivers._writer_thread import WriterThread
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

# poll() reports these whatever events were asked for: the tty was hung up or its descriptor is gone
HANGUP = select.POLLHUP | select.POLLERR | select.POLLNVAL


class TerminalGone(Message):
    """The terminal went away (hung up, or a write to it failed): nobody can see or type to this app."""

    def __init__(self, why: str) -> None:
        super().__init__()
        self.why = why


class GuardedWriter(WriterThread):
    """Textual's writer thread, which never leaves a writer blocked.

    Textual's thread ends on the first write that raises, and its 30-slot queue then blocks the
    event loop. This one keeps taking from the queue until it is told to stop (`None`). After the
    first failure it drops what it takes, and `write` drops text at once.
    """

    def __init__(self, file: IO[str], on_gone: Any) -> None:
        super().__init__(file)
        self.gone = threading.Event()
        self._on_gone = on_gone

    def stop(self) -> None:
        """Textual's stop, unless the thread has ended already (then nothing would take the `None`)."""
        if self.is_alive():
            super().stop()

    def write(self, text: str) -> None:
        """Queue `text`, or drop it when the terminal is gone or the thread has ended."""
        if self.gone.is_set() or not self.is_alive():
            return
        self._queue.put(text)

    def run(self) -> None:
        """Write what arrives; after a failure, keep draining so that no `put` waits for good."""
        while True:
            text = self._queue.get()
            if text is None:
                break
            if self.gone.is_set():
                continue
            try:
                self._file.write(text)
                if self._queue.qsize() == 0:
                    self._file.flush()
            except (OSError, ValueError) as e:  # EIO from a hung-up tty, or a closed file
                self.lost(f"writing to the terminal failed: {e}")
        if not self.gone.is_set():
            with contextlib.suppress(OSError, ValueError):
                self._file.flush()

    def lost(self, why: str) -> None:
        """From now on nothing is written; the driver hears about it once."""
        if not self.gone.is_set():
            self.gone.set()
            self._on_gone(why)


class TerminalDriver(LinuxDriver):
    """`LinuxDriver` that ends cleanly when the terminal is gone (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gone = threading.Event()
        self._stopped_by_tstp = False
        self._watcher: threading.Thread | None = None
        self._wake: tuple[int, int] | None = None  # the pipe that wakes the watcher at close
        self._closed = False  # between `close` and the next start: the writer ended on purpose

    @property
    def terminal_gone(self) -> bool:
        """True once the terminal hung up or a write to it failed."""
        return self._gone.is_set()

    def write(self, data: str) -> None:
        """Textual's write, except that nothing waits on a writer that is gone or has ended."""
        writer = self._writer_thread
        if self._gone.is_set() or self._closed or writer is None:
            return
        if not writer.is_alive():  # Textual's own writer (before the swap below) died on a dead tty
            self._lost("writing to the terminal failed")
            return
        writer.write(data)

    def start_application_mode(self) -> None:
        """Textual's start, with the guarded writer and, on a real tty, the hang-up watcher."""
        self._closed = False
        super().start_application_mode()  # type: ignore[no-untyped-call]  # untyped in Textual
        old = self._writer_thread
        if old is not None and self._file is not None and not isinstance(old, GuardedWriter):
            # Textual made its own writer: the guarded one takes its place, and the old one writes
            # what it already holds first (its queue is ordered, and `stop` waits for it)
            if old.is_alive():
                old.stop()
            new = GuardedWriter(self._file, self._lost)
            new.start()
            self._writer_thread = new
        if os.isatty(self.fileno):
            self.start_watch()

    def start_watch(self) -> None:
        """Start the thread that waits for the tty (`self.fileno`) to hang up; `close` stops it."""
        if self._watcher is None and not self._gone.is_set():
            self._wake = os.pipe()
            self._watcher = threading.Thread(target=self._watch, name="breaker-tty-watch", daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        """Wait, without a timeout, for the tty to hang up or for `close` to wake this thread."""
        assert self._wake is not None
        wake_r = self._wake[0]
        poller = select.poll()
        poller.register(self.fileno, 0)  # no events asked for: poll still reports a hang-up
        poller.register(wake_r, select.POLLIN)
        while True:
            try:
                ready = poller.poll()
            except InterruptedError:
                continue
            except (OSError, ValueError):
                return
            for fd, mask in ready:
                if fd == wake_r:
                    return
                if mask & HANGUP:
                    self._lost("the terminal hung up")
                    return

    def run_input_thread(self) -> None:
        """Textual's reader, but a read that fails ends the run as a hang-up, not as a crash.

        A pty whose other side has closed answers EIO until the kernel finishes hanging it up.
        Textual takes that for a bug in the app and panics: the run would end as an internal error,
        before the child's group was stopped the way a signal stops it.
        """
        try:
            super().run_input_thread()
        except OSError as e:
            self._lost(f"reading from the terminal failed: {e}")

    def _lost(self, why: str) -> None:
        """Called from the writer, the watcher or `write`: stop every terminal I/O, tell the app once."""
        if self._gone.is_set():
            return
        self._gone.set()
        writer = self._writer_thread
        if isinstance(writer, GuardedWriter):
            writer.gone.set()
        self.exit_event.set()  # the input thread would read the hung-up tty in a tight loop
        with contextlib.suppress(Exception):
            self._app.post_message(TerminalGone(why))

    def _sigtstp_application(self, *args: Any) -> None:
        # remembered, so that the SIGCONT after it resumes what this suspended, and nothing else
        self._stopped_by_tstp = self._auto_restart
        super()._sigtstp_application(*args)

    def _sigcont_application(self, *args: Any) -> None:
        # a hang-up sends SIGCONT too, and Textual would start application mode a second time on
        # the dead tty: only the SIGCONT after our own SIGTSTP resumes
        if not self._stopped_by_tstp or self._gone.is_set():
            return
        self._stopped_by_tstp = False
        super()._sigcont_application(*args)

    def disable_input(self) -> None:
        """Textual's, unless the terminal is gone: then the input thread was already told to stop."""
        if not self._gone.is_set():
            super().disable_input()
        elif self._key_thread is not None and self._key_thread is not threading.current_thread():
            self._key_thread.join()

    def close(self) -> None:
        """Stop the writer (it drains, never blocks), then wake and join the watcher."""
        self._closed = True
        super().close()
        if self._wake is None:
            return
        wake_r, wake_w = self._wake
        with contextlib.suppress(OSError):
            os.write(wake_w, b"x")
        if self._watcher is not None:
            self._watcher.join()
            self._watcher = None
        for fd in (wake_r, wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake = None
