"""Facts about processes read from `/proc`: parent, group, start time, state, command line, open descriptors.
Never raises. The one `/proc` reader of the project: the harnesses, the child, the benches and the screen ask
it, and nothing else opens a path under `/proc` (a unit test holds that).

Why not psutil: it is not a dependency (a compiled one, for what is a page of code here); it gives the
start time as float seconds since the epoch (the run directories record clock ticks, compared exactly), no
process group, and no socket descriptors with their open flags (the bridge's inheritance check needs
`socket:[INODE]` links and `fdinfo`).

A pid alone does not name a process for long (pids are reused), so everything that must
recognise a process later (a run directory's owner, a cgroup leaf's monitor, a tool's escapee)
keeps the pid together with its start time (`/proc/PID/stat` field 22, in clock ticks since boot).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcStat:
    """The fields of `/proc/PID/stat` this project uses."""

    pid: int
    ppid: int
    pgid: int
    state: str
    start: int  # field 22: clock ticks after boot


def stat(pid: int) -> ProcStat | None:
    """`/proc/PID/stat`, or None when the process is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("ascii", "replace")
        rest = raw.rsplit(")", 1)[1].split()
        # rest[0] is field 3 (state), so field N is rest[N - 3]
        return ProcStat(pid, int(rest[1]), int(rest[2]), rest[0], int(rest[19]))
    except (OSError, IndexError, ValueError):
        return None


def start_time(pid: int) -> int | None:
    """The process's start time (field 22), or None when it is gone."""
    s = stat(pid)
    return s.start if s is not None else None


def alive(pid: int, start: int | None = None) -> bool:
    """Whether `pid` runs (a zombie counts as gone), and is the same process when `start` is given."""
    if pid <= 0:
        return False
    s = stat(pid)
    if s is None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return start is None  # no /proc (not Linux): the pid is all we can check
    if s.state == "Z":
        return False
    return start is None or s.start == start


def all_stats() -> list[ProcStat]:
    """Every process visible in /proc."""
    return [s for pid in pids() if (s := stat(pid)) is not None]


def descendants(roots: set[int], stats: list[ProcStat] | None = None) -> list[ProcStat]:
    """Every process whose parent chain reaches one of `roots` (not the roots themselves)."""
    kids: dict[int, list[ProcStat]] = {}
    for s in stats if stats is not None else all_stats():
        kids.setdefault(s.ppid, []).append(s)
    out: list[ProcStat] = []
    todo = list(roots)
    seen = set(roots)
    while todo:
        for c in kids.get(todo.pop(), []):
            if c.pid not in seen:
                seen.add(c.pid)
                out.append(c)
                todo.append(c.pid)
    return out


def cmdline(pid: int, limit: int = 80) -> str:
    """The command line, shortened (empty when gone or a zombie)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read(4096)
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode("utf-8", "replace").strip()[:limit]


def environ_has(pid: int, entry: bytes) -> bool:
    """Whether the process's initial environment holds `entry` (`NAME=value`)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return entry in f.read(1 << 20).split(b"\0")
    except OSError:
        return False


def fd_links(pid: int) -> dict[int, str] | None:
    """What each open descriptor of `pid` points at (a path, or `socket:[INODE]`); None when unreadable."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    out: dict[int, str] = {}
    for fd in fds:
        with contextlib.suppress(OSError, ValueError):
            out[int(fd)] = os.readlink(f"/proc/{pid}/fd/{fd}")
    return out


def fd_flags(pid: int, fd: int) -> int | None:
    """The open flags of `pid`'s descriptor `fd` (`/proc/PID/fdinfo`), or None when they cannot be read."""
    try:
        with open(f"/proc/{pid}/fdinfo/{fd}") as f:
            line = next((ln for ln in f if ln.startswith("flags:")), "")
        return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        return None


def group_alive(pgid: int) -> bool:
    """Whether a live (non-zombie) process is left in process group `pgid`; zombies only wait for their reaper.

    Where there is no `/proc` (not Linux), whether the group can still be signalled.
    """
    if not os.path.isdir("/proc"):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return any(s.pgid == pgid and s.state != "Z" for s in all_stats())


def own_fds() -> list[int]:
    """The descriptors open in this process (the listing's own descriptor is closed by the time it returns).

    Safe in a forked child before exec: no threads, no allocation beyond the list.
    """
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return []
    found = []
    for name in names:
        fd = int(name)
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_GETFD)
            found.append(fd)
    return found


def peak_rss_kib() -> int | None:
    """This process's peak resident set (`VmHWM` of `/proc/self/status`, KiB), or None when it cannot be read.

    Unlike `ru_maxrss`, it belongs to the address space made at exec: a child of a large process does not
    report its parent's peak as its own.
    """
    line = next((ln for ln in own("status").splitlines() if ln.startswith("VmHWM:")), "")
    try:
        return int(line.split()[1])
    except (IndexError, ValueError):
        return None


def comm(pid: int) -> str:
    """The process's short name (`/proc/PID/comm`), or "" when gone."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def own(name: str) -> str:
    """This process's `/proc/self/NAME` (`cgroup`, `mounts`), or "" when it cannot be read."""
    try:
        return Path("/proc/self", name).read_text()
    except OSError:
        return ""


def flock_holder(dev: int, ino: int) -> int | None:
    """The pid holding a `flock` write lock on the file (dev, ino), from /proc/locks; None when none or unknown."""
    want = f"{os.major(dev):02x}:{os.minor(dev):02x}:{ino}"
    try:
        text = Path("/proc/locks").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 16947 fe:00:2147378 0 EOF" (a blocked waiter's line is marked "->": skipped)
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[3] == "WRITE" and parts[5] == want:
            with contextlib.suppress(ValueError):
                return int(parts[4])
    return None


def pids() -> list[int]:
    """Every pid visible in /proc (none where there is no /proc)."""
    try:
        return [int(e) for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []
