"""Every process a session's tools started ends with the session.

A tool can leave processes behind: `setsid sleep 600 &` leaves dsh's process group and session, so
signalling the group misses it, and when dsh exits it is re-parented to pid 1 and lives on. Such a
process planted by one session attacked the next one's channel, and a running tool
survived a closed terminal or a dsh crash. Two mechanisms, as the system allows:

* a **cgroup v2 leaf** (`breaker-tui-<pid>-<start>-<n>` beside the monitor's own cgroup) when that
  directory is writable: the child enters it in the forked process before exec, so nothing it
  starts is ever outside; `cgroup.kill` ends every member at once, whatever its session or parent.
  A sandboxed tool cannot move itself out (dsh's Landlock domain refuses the write). The leaf
  outlives a SIGKILLed monitor, so the next start finds it, reports its members and kills them.
* always, **PR_SET_CHILD_SUBREAPER**: orphans of the child are re-parented to the monitor instead
  of pid 1, and a `/proc` sweep kills every descendant of the child, every process that was one
  (remembered with its start time), and every orphan re-parented to us whose environment carries
  this run's marker. While dsh lives, an orphan re-parented to us is an escapee and is reported.

Only pids known to be ours are ever reaped (`waitpid(pid)`, never `waitpid(-1)`, which would steal
pexpect's exit status).
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from wrapper.process import proc

PR_SET_CHILD_SUBREAPER = 36
LEAF_PREFIX = "breaker-tui-"
MARKER_ENV = "BREAKER_TUI_RUN"  # in the child's environment: the orphans of this run carry it
SWEEP_ROUNDS = 20
_counter = itertools.count(1)
_subreaper: bool | None = None


def set_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux; idempotent)."""
    global _subreaper
    if _subreaper is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def cgroup2_dir() -> Path | None:
    """This process's own cgroup v2 directory (the unified hierarchy may sit anywhere: read the mounts)."""
    mounts = proc.own("mounts").splitlines()
    own = next((ln.split("::", 1)[1] for ln in proc.own("cgroup").splitlines() if ln.startswith("0::")), None)
    root = next((ln.split()[1] for ln in mounts if len(ln.split()) > 2 and ln.split()[2] == "cgroup2"), None)
    if root is None or own is None:
        return None
    d = Path(root + own.strip().rstrip("/"))
    return d if d.is_dir() else None


def _leaf_owner(name: str) -> tuple[int, int] | None:
    """The (pid, start time) a leaf's name records, if it is one of ours."""
    parts = name[len(LEAF_PREFIX) :].split("-")
    if not name.startswith(LEAF_PREFIX) or len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _members(leaf: Path) -> list[int]:
    try:
        return [int(x) for x in (leaf / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _kill_leaf(leaf: Path, timeout: float = 3.0) -> None:
    """SIGKILL every member (`cgroup.kill`, or one by one on old kernels), wait until empty, remove it."""
    try:
        (leaf / "cgroup.kill").write_text("1")
    except OSError:
        for pid in _members(leaf):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if "populated 0" in (leaf / "cgroup.events").read_text():
                break
        time.sleep(0.02)
    with contextlib.suppress(OSError):
        leaf.rmdir()


@dataclass(frozen=True)
class Leftover:
    """A process an earlier session left behind, found (and ended) at start."""

    pid: int
    command: str
    where: str

    def describe(self) -> str:
        """One line for people."""
        return f"pid {self.pid} ({self.command or '?'}) from {self.where}"


def earlier_leftovers(base: Path | None = None) -> list[Leftover]:
    """Leaves of monitors that are gone: report their members, kill them, remove the leaves."""
    base = base or cgroup2_dir()
    if base is None:
        return []
    found: list[Leftover] = []
    with contextlib.suppress(OSError):
        for leaf in base.iterdir():
            owner = _leaf_owner(leaf.name)
            if owner is None or not leaf.is_dir() or proc.alive(*owner):
                continue
            found.extend(
                Leftover(p, proc.cmdline(p), f"the session of breaker-tui pid {owner[0]}") for p in _members(leaf)
            )
            _kill_leaf(leaf)
    return found


@dataclass
class Containment:
    """One session's processes: its cgroup leaf (when one can be made) and what the sweep knows."""

    marker: str
    leaf: Path | None = None
    subreaper: bool = False
    roots: set[int] = field(default_factory=set)  # the children launched (dsh), current and past
    known: dict[int, int] = field(default_factory=dict)  # pid -> start time, every descendant seen
    reported: set[int] = field(default_factory=set)

    @classmethod
    def create(cls, marker: str) -> Containment:
        """A leaf under this process's cgroup when writable; the subreaper always."""
        c = cls(marker, subreaper=set_subreaper())
        base = cgroup2_dir()
        st = proc.start_time(os.getpid())
        if base is not None and st is not None and os.access(base, os.W_OK):
            leaf = base / f"{LEAF_PREFIX}{os.getpid()}-{st}-{next(_counter)}"
            with contextlib.suppress(OSError):
                leaf.mkdir(mode=0o755)
                if (leaf / "cgroup.procs").exists():
                    c.leaf = leaf
        return c

    @property
    def how(self) -> str:
        """What holds the session's processes, for the status line and the logs."""
        if self.leaf is not None:
            return f"cgroup {self.leaf.name}"
        return "subreaper" if self.subreaper else "process group only"

    def preexec(self) -> None:
        """In the forked child before exec: enter the leaf, so the child is never outside it."""
        if self.leaf is not None:
            with open(self.leaf / "cgroup.procs", "w") as f:
                f.write("0")

    def launched(self, pid: int) -> None:
        """A child (dsh) was started as `pid`."""
        self.roots.add(pid)

    def scan(self, live_child: int | None = None) -> list[proc.ProcStat]:
        """Remember every current descendant; return orphans re-parented to us while `live_child` runs (escapees)."""
        stats = proc.all_stats()
        for s in proc.descendants(self.roots, stats):
            self.known.setdefault(s.pid, s.start)
        me = os.getpid()
        escaped: list[proc.ProcStat] = []
        if live_child is None or not self.subreaper:
            return escaped
        for s in stats:
            if s.ppid == me and s.pid not in self.roots and self._ours(s) and s.pid not in self.reported:
                self.reported.add(s.pid)
                escaped.append(s)
        return escaped

    def _ours(self, s: proc.ProcStat) -> bool:
        if self.known.get(s.pid) == s.start:
            return True
        return proc.environ_has(s.pid, f"{MARKER_ENV}={self.marker}".encode())

    def targets(self) -> list[proc.ProcStat]:
        """What the sweep ends: descendants of the children, known ones, and our orphans that carry the marker."""
        stats = proc.all_stats()
        by_pid = {s.pid: s for s in stats}
        out = {s.pid: s for s in proc.descendants(self.roots, stats)}
        me = os.getpid()
        for pid, start in self.known.items():
            s = by_pid.get(pid)
            if s is not None and s.start == start:
                out[pid] = s
        for s in stats:
            if s.ppid == me and s.pid not in self.roots and s.pid not in out and self._ours(s):
                out[s.pid] = s
        return [s for pid, s in out.items() if pid not in self.roots and pid != me]

    def sweep(self) -> list[tuple[int, str]]:
        """End every process of the session but the children themselves; return (pid, command) of those killed."""
        killed: dict[int, str] = {}
        # cgroup.kill would end a child still running too: only once every child has exited
        if self.leaf is not None and not any(proc.alive(r) for r in self.roots):
            for pid in _members(self.leaf):
                if pid not in self.roots:
                    killed[pid] = proc.cmdline(pid)
            with contextlib.suppress(OSError):
                (self.leaf / "cgroup.kill").write_text("1")
        for _ in range(SWEEP_ROUNDS):
            targets = [s for s in self.targets() if s.state != "Z"]
            if not targets:
                break
            for s in targets:
                killed.setdefault(s.pid, proc.cmdline(s.pid))
                with contextlib.suppress(OSError):
                    os.kill(s.pid, signal.SIGKILL)
            time.sleep(0.02)
        self._reap(set(killed) | set(self.known))
        return sorted(killed.items())

    def _reap(self, pids: set[int]) -> None:
        """Collect the zombies of processes re-parented to us (only these pids: never another's)."""
        me = os.getpid()
        for pid in pids:
            s = proc.stat(pid)
            if s is not None and s.ppid == me and pid not in self.roots:
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)

    def close(self) -> list[tuple[int, str]]:
        """The session ends: sweep, then remove the leaf (members killed first)."""
        killed = self.sweep()
        if self.leaf is not None:
            _kill_leaf(self.leaf)
            if not self.leaf.exists():
                self.leaf = None
        return killed
