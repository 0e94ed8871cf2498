"""The processes an agent started, wherever they went: tracked by descent, not by process group.

Ending the agent's process group is not enough: Codex starts each command in a session of its own,
so a cancelled command kept running and outlived quit. So the agent's descendants are sampled while
it runs (a child re-parented to init once its parent died is still remembered), each by pid *and*
start time (a pid reused by an unrelated process is never signalled). On kill and quit every one of
them is ended; on cancel, those that started during the cancelled turn in a group of their own.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

Proc = tuple[int, str]  # pid, start time (field 22 of /proc/PID/stat)


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2 :].split()  # fields from 3 (state) on


def table() -> dict[int, tuple[int, int, str, str]]:
    """Every live process: pid -> (ppid, pgid, start time, state)."""
    out: dict[int, tuple[int, int, str, str]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        f = _stat(int(name))
        if f is None or len(f) < 20:
            continue
        out[int(name)] = (int(f[1]), int(f[2]), f[19], f[0])
    return out


def descendants(root: int, procs: dict[int, tuple[int, int, str, str]] | None = None) -> dict[Proc, int]:
    """The live descendants of `root`: (pid, start time) -> process group."""
    procs = table() if procs is None else procs
    kids: dict[int, list[int]] = {}
    for pid, (ppid, _, _, _) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    out: dict[Proc, int] = {}
    stack = list(kids.get(root, ()))
    while stack:
        pid = stack.pop()
        ppid, pgid, start, state = procs[pid]
        if state != "Z":
            out[(pid, start)] = pgid
        stack.extend(kids.get(pid, ()))
    return out


def alive(p: Proc) -> bool:
    """Whether this very process (same pid, same start time) still runs (a zombie does not)."""
    f = _stat(p[0])
    return f is not None and len(f) > 19 and f[19] == p[1] and f[0] != "Z"


def end(procs: list[Proc], sig: signal.Signals = signal.SIGKILL) -> int:
    """Signal each process that is still the one recorded; returns how many were signalled."""
    n = 0
    for p in procs:
        if alive(p):
            try:
                os.kill(p[0], sig)
                n += 1
            except (ProcessLookupError, PermissionError):
                pass
    return n


class Descent:
    """The descendants an agent has had, sampled while it runs."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[Proc, int] = {}  # every descendant ever seen -> its process group
        self.marked: set[Proc] = set()  # those present when the current turn began

    def sample(self) -> dict[Proc, int]:
        """Look again (cheap enough for a few times a second); returns the live ones."""
        now = descendants(self.root)
        self.seen.update(now)
        return now

    def mark_turn(self) -> None:
        """A turn begins: what runs now is not the turn's to end on cancel."""
        self.marked = set(self.sample())

    def left_by_turn(self, agent_group: int) -> list[Proc]:
        """Processes the turn started in a group of their own that still run (what a cancel leaves behind)."""
        self.sample()
        return [p for p, g in self.seen.items() if p not in self.marked and g != agent_group and alive(p)]

    def everything(self) -> list[Proc]:
        """Every descendant ever seen that still runs (for kill and quit)."""
        self.sample()
        return [p for p in self.seen if alive(p)]
