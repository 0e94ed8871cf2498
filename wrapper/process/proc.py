"""Facts about processes read from `/proc`: parent, start time, state, command line. Never raises.

A pid alone does not name a process for long (pids are reused), so everything that must
recognise a process later (a run directory's owner, a cgroup leaf's monitor, a tool's escapee)
keeps the pid together with its start time (`/proc/PID/stat` field 22, in clock ticks since boot).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class ProcStat:
    """The fields of `/proc/PID/stat` this project uses."""

    pid: int
    ppid: int
    state: str
    start: int  # field 22: clock ticks after boot


def stat(pid: int) -> ProcStat | None:
    """`/proc/PID/stat`, or None when the process is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("ascii", "replace")
        rest = raw.rsplit(")", 1)[1].split()
        # rest[0] is field 3 (state), so field N is rest[N - 3]
        return ProcStat(pid, int(rest[1]), rest[0], int(rest[19]))
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
    out: list[ProcStat] = []
    with contextlib.suppress(OSError):
        for e in os.listdir("/proc"):
            if e.isdigit() and (s := stat(int(e))) is not None:
                out.append(s)
    return out


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
