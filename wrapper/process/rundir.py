"""The private directory of one monitor run: the child's TMPDIR and what else a run keeps on disk.

Everything a run leaves on disk lives in one 0700 directory, so one `rmtree` at exit cleans it
and a monitor that died without cleaning (SIGKILL, power loss) is recognisable later, and removed
at the next start. Telling a live directory from an abandoned one must not depend on what the
agent can write: the directory is in the agent's reach (its TMPDIR is inside), and a tool that
wrote a dead pid into the owner file got a *live* session's directory deleted by the next start,
after which `ctrl+r` crashed. So the owner file names the pid *and its start time*
(`/proc/PID/stat` field 22: a reused pid is not the owner), and the live monitor holds an
`flock` on the directory itself, which no file the agent writes can release: a directory whose
lock is held is never removed. A run directory or TMPDIR that went missing, or was swapped for a
symlink (the restarted dsh's spill folders then landed outside, never removed), is made
again, as a real directory, before the next launch.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from wrapper.process import proc

PREFIX = "breaker-tui-"
OWNER_FILE = "owner.pid"
# a directory without an owner file is only removed once it is clearly abandoned
ORPHAN_AGE_S = 3600.0
# A unix socket path holds at most 107 bytes; keep run directories short enough for one inside.
MAX_BASE_LEN = 107 - 33


def run_base() -> Path:
    """Where run directories go: the temp dir, or `/tmp` when the temp dir's path is too long for a socket."""
    base = Path(tempfile.gettempdir())
    if len(os.fsencode(str(base))) > MAX_BASE_LEN and os.access("/tmp", os.W_OK | os.X_OK):
        return Path("/tmp")
    return base


def _owner(d: Path) -> tuple[int, int | None] | None:
    """(pid, start time) from the owner file; the start time is None in files of older versions."""
    try:
        parts = (d / OWNER_FILE).read_text().split()
        return int(parts[0]), (int(parts[1]) if len(parts) > 1 else None)
    except (OSError, ValueError, IndexError):
        return None


def _locked(d: Path) -> bool:
    """Whether a live monitor holds the directory's lock."""
    try:
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops the lock we just took
    return False


def clean_stale(base: Path | None = None) -> list[Path]:
    """Remove run directories of monitors that are no longer running; return what was removed."""
    root = Path(base or run_base())
    removed: list[Path] = []
    uid = os.getuid()
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for d in entries:
        if not d.name.startswith(PREFIX):
            continue
        try:
            st = d.lstat()
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid:
            continue  # never touch another user's directory, nor a symlink
        if _locked(d):
            continue  # its monitor is alive, whatever the owner file says
        owner = _owner(d)
        stale = (owner is not None and not proc.alive(*owner)) or (
            owner is None and time.time() - st.st_mtime > ORPHAN_AGE_S
        )
        if stale:
            shutil.rmtree(d, ignore_errors=True)
            if not d.exists():
                removed.append(d)
    return removed


def _real_dir(p: Path) -> bool:
    """A directory (not a symlink to one) owned by us."""
    try:
        st = p.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()


def _clear(p: Path) -> None:
    """Remove whatever is at `p` without following a symlink."""
    with contextlib.suppress(OSError):
        if p.is_symlink() or not p.is_dir():
            p.unlink()
            return
    shutil.rmtree(p, ignore_errors=True)


class RunDir:
    """A fresh 0700 directory owned (and locked) by this process; `remove()` deletes it and all it holds."""

    def __init__(self, base: Path | None = None) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=base or run_base()))
        self.tmp = self.path / "tmp"
        self._lock: int | None = None
        self._own()
        self.tmp.mkdir(mode=0o700)
        atexit.register(self.remove)  # also on an unhandled exception; signals are wrapper.signals' job

    def _own(self) -> None:
        """Mode 0700, the owner file (pid and start time), and the lock held for the run's life."""
        os.chmod(self.path, 0o700)
        (self.path / OWNER_FILE).write_text(f"{os.getpid()} {proc.start_time(os.getpid()) or 0}\n")
        if self._lock is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock)
        self._lock = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def ensure(self) -> bool:
        """Make the directory again if it went missing or was replaced; True when it had to be made."""
        if _real_dir(self.path) and _owner(self.path) is not None:
            return False
        _clear(self.path)
        os.mkdir(self.path, 0o700)
        self._own()
        return True

    def fresh_tmp(self) -> Path:
        """The child's TMPDIR, emptied and real (a restarted child does not inherit the last one's spill files)."""
        self.ensure()
        _clear(self.tmp)
        self.tmp.mkdir(mode=0o700, exist_ok=True)
        if not _real_dir(self.tmp):  # raced by something that put a link back: refuse to launch into it
            raise OSError(f"the run directory's tmp ({self.tmp}) is not a private directory")
        return self.tmp

    def remove(self) -> None:
        """Delete the directory and everything in it (idempotent)."""
        if _real_dir(self.path):
            shutil.rmtree(self.path, ignore_errors=True)
        if self._lock is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock)
            self._lock = None
