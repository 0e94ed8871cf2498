"""The private directory of one monitor run: socket, overlay, token hand-off and the child's TMPDIR.

Everything a run leaves on disk lives in one 0700 directory, so one `rmtree` at exit cleans it
and a monitor that died without cleaning (SIGKILL, power loss) is recognisable later: the
directory names its owner's pid, and a directory whose owner is gone is removed at the next start.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

PREFIX = "breaker-tui-"
OWNER_FILE = "owner.pid"
# a directory without an owner file is only removed once it is clearly abandoned
ORPHAN_AGE_S = 3600.0
# A unix socket path holds at most 107 bytes; `<base>/breaker-tui-XXXXXXXX/bridge.sock` needs 33 of them.
MAX_BASE_LEN = 107 - 33


def run_base() -> Path:
    """Where run directories go: the temp dir, or `/tmp` when the temp dir's path is too long for a socket."""
    base = Path(tempfile.gettempdir())
    if len(os.fsencode(str(base))) > MAX_BASE_LEN and os.access("/tmp", os.W_OK | os.X_OK):
        return Path("/tmp")
    return base


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists (a zombie counts as gone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        proc = Path(f"/proc/{pid}/stat").read_text()
        return proc.rsplit(")", 1)[-1].split()[0] != "Z"
    return True


def _owner(d: Path) -> int | None:
    try:
        return int((d / OWNER_FILE).read_text().strip() or "0")
    except (OSError, ValueError):
        return None


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
        pid = _owner(d)
        stale = (pid is not None and not _alive(pid)) or (pid is None and time.time() - st.st_mtime > ORPHAN_AGE_S)
        if stale:
            shutil.rmtree(d, ignore_errors=True)
            if not d.exists():
                removed.append(d)
    return removed


class RunDir:
    """A fresh 0700 directory owned by this process; `remove()` deletes it and all it holds."""

    def __init__(self, base: Path | None = None) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=base or run_base()))
        os.chmod(self.path, 0o700)
        (self.path / OWNER_FILE).write_text(f"{os.getpid()}\n")
        self.tmp = self.path / "tmp"
        self.tmp.mkdir(mode=0o700)
        atexit.register(self.remove)  # also on an unhandled exception; signals are wrapper.signals' job

    def fresh_tmp(self) -> Path:
        """The child's TMPDIR, emptied (a restarted child does not inherit the last one's spill files)."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp.mkdir(mode=0o700, exist_ok=True)
        return self.tmp

    def remove(self) -> None:
        """Delete the directory and everything in it (idempotent)."""
        shutil.rmtree(self.path, ignore_errors=True)
