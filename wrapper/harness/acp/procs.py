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

from wrapper.process import proc

Proc = tuple[int, int]  # pid, start time (field 22 of /proc/PID/stat)


def table() -> dict[int, proc.ProcStat]:
    """Every live process by pid."""
    return {s.pid: s for s in proc.all_stats()}


def descendants(root: int, procs: dict[int, proc.ProcStat] | None = None) -> dict[Proc, int]:
    """The live descendants of `root`: (pid, start time) -> process group."""
    stats = list((table() if procs is None else procs).values())
    return {(s.pid, s.start): s.pgid for s in proc.descendants({root}, stats) if s.state != "Z"}


def alive(p: Proc) -> bool:
    """Whether this very process (same pid, same start time) still runs (a zombie does not)."""
    s = proc.stat(p[0])
    return s is not None and s.start == p[1] and s.state != "Z"


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
