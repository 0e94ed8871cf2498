"""Whether a recording is still being written, and by whom.

A recording without its end marker is either cut short (the monitor was killed, the disk filled up) or still
open in a live monitor or hook server. The two read the same, so the recorder holds an exclusive `flock` on its
file for as long as it writes it (the lock goes with the process: a killed writer leaves none behind), and a
reader that cannot take a shared lock knows a writer is alive. The holder's pid comes from the kernel's lock
table (Linux, through `wrapper.process.proc`), so the reader can say who it is; an agent could hold such a lock
itself, which is why the reader names the pid and its command rather than vouching for the file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from wrapper.process import proc


def hold(fd: int) -> None:
    """Mark the file open on `fd` as being written, until `fd` is closed (best effort: never raises)."""
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def writer(path: Path) -> str | None:
    """Who still writes `path` ("breaker-tui serve (pid 12)"), or None when no live writer holds it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _who(proc.flock_holder(st.st_dev, st.st_ino))
        except OSError:
            return None
        return None  # we got the lock: nobody writes it (closing the descriptor lets it go)
    finally:
        os.close(fd)


def _who(pid: int | None) -> str:
    """A person's name for the writer: its command (breaker-tui's subcommand when it is ours) and pid."""
    if pid is None:
        return "another process"
    argv = proc.cmdline(pid, limit=4096).split()  # a breaker-tui's arguments carry no spaces that matter here
    if not argv:
        return f"pid {pid}"
    return f"{_command(argv)} (pid {pid})"


_MODULES = {"wrapper.hooks.server": "breaker-tui serve"}  # how a hook starts the server (`python -m ...`)


def _command(argv: list[str]) -> str:
    """`breaker-tui serve` for a breaker-tui process (however it was started), else the program's name."""
    for module, name in _MODULES.items():
        if module in argv:
            return name
    for i, arg in enumerate(argv):
        if os.path.basename(arg) == "breaker-tui":
            sub = next((a for a in argv[i + 1 : i + 2] if not a.startswith("-")), "")
            return f"breaker-tui {sub}".rstrip()
    return os.path.basename(argv[0])[:40]
