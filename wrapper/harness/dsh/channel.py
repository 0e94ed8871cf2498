"""The bridge channel: a socketpair whose far end dsh inherits, JSON lines, one bridge per launch.

The agent's tools run as the same user as the monitor, so nothing they can reach may lead to the
channel. A socket path and a token in a hand-off file could be reached: a process a tool planted
(`setsid`, outliving its session) swapped the next launch's path and relayed the traffic, turning
every deny into an allow. So there is no path and no token any more: each launch gets a
fresh `socketpair()`, the child inherits one end as fd 3 (`wrapper.process.child.Child`,
`pass_fds`, renumbered), the monitor closes its copy of that end at once, and Node marks fd 3
close-on-exec at start-up (past 15 it may not), so no tool dsh runs holds it. A connection nobody else can open needs no
authentication; the hello is still checked as defence in depth: it must come from the pid the
monitor launched, and that process must hold the far end (`/proc/PID/fd`). Nothing a peer sends can
raise out of here: every line is decoded on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from wrapper.harness.dsh.lines import Lines
from wrapper.harness.dsh.protocol import BadMessage, Hello, Inbound, Out, decode_line
from wrapper.process import proc

MAX_LINE = 8 << 20  # bytes; a longer line is dropped and counted
HELLO_MAX_LINE = 16384  # the first line (the hello) may be no longer than this (a cwd fits)
NOTICE_EVERY_S = 5.0  # repeated problems of one kind are reported at most this often


@dataclass
class ChannelStats:
    """What went wrong on the channel, for display (nothing here is ever raised)."""

    lines: int = 0
    bad_lines: int = 0
    oversized: int = 0
    rejected: int = 0
    second_hellos: int = 0
    connections: int = 0
    problems: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """Remember a problem (bounded)."""
        self.problems.append(text)
        del self.problems[:-50]


Handler = Callable[[Inbound, dict[str, Any]], Awaitable[None]]
BadHandler = Callable[[BadMessage], Awaitable[None]]
Notice = Callable[[str, str], None]


def socket_inode(fd: int) -> int:
    """The inode that names a socket in `/proc/PID/fd` (`socket:[INODE]`)."""
    return os.fstat(fd).st_ino


def holds_socket(pid: int, inode: int) -> bool | None:
    """Whether process `pid` holds the socket `inode`; None when its descriptors cannot be read."""
    flags = socket_flags(pid, inode)
    return None if flags == UNREADABLE else flags is not None


UNREADABLE = -1


def socket_flags(pid: int, inode: int) -> int | None:
    """The open flags of `pid`'s descriptor for socket `inode` (`/proc/PID/fdinfo`); None when it holds
    none, `UNREADABLE` when its descriptors cannot be read (0 when the flags cannot: treated as a leak).
    """
    links = proc.fd_links(pid)
    if links is None:
        return UNREADABLE
    want = f"socket:[{inode}]"
    fd = next((fd for fd, link in links.items() if link == want), None)
    if fd is None:
        return None
    flags = proc.fd_flags(pid, fd)
    return 0 if flags is None else flags


def peer_pid(sock: socket.socket) -> int | None:
    """SO_PEERCRED's pid (for a socketpair: the process that created it, which must be us)."""
    try:
        pid, _uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    except (OSError, AttributeError, struct.error):
        return None
    return int(pid)


@dataclass
class Launch:
    """One launch's end of the pair: the child inherits `child_end` (close it once the child runs)."""

    child_end: socket.socket
    inode: int
    expected_pid: int | None = None

    @property
    def fd(self) -> int:
        """The descriptor number the child inherits (the overlay names it)."""
        return self.child_end.fileno()

    def close_child_end(self) -> None:
        """The monitor's copy of the child's end: closed as soon as the child holds its own."""
        with contextlib.suppress(OSError):
            self.child_end.close()


class Channel:
    """Serves one socketpair per launch; the launch's first hello, from the launched pid, is the bridge."""

    def __init__(
        self,
        on_message: Handler,
        on_notice: Notice,
        max_line: int = MAX_LINE,
        on_bad: BadHandler | None = None,
        hello_timeout: float | None = None,
    ) -> None:
        self.on_message = on_message
        self.on_notice = on_notice
        self.on_bad = on_bad
        self.max_line = max_line
        self.hello_timeout = hello_timeout
        self.stats = ChannelStats()
        self.connected = asyncio.Event()
        self.launch: Launch | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._last_notice: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}
        self._on_exec: dict[int, int] = {}  # pid -> start: held a close-on-exec copy at the last check

    def new_launch(self) -> Launch:
        """A fresh pair for the next launch: served at once, its far end for the child to inherit."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        ours.setblocking(False)
        launch = Launch(theirs, socket_inode(theirs.fileno()))
        self.launch = launch
        task = asyncio.ensure_future(self._serve(ours, launch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return launch

    def launched(self, launch: Launch, pid: int | None) -> None:
        """The child runs (as `pid`, None if it could not start): only it may say hello on this pair."""
        launch.expected_pid = pid
        launch.close_child_end()

    def other_holders(self, child: int) -> list[int]:
        """Processes under the child, other than it, that hold the current launch's end (a leaked channel).

        Every process dsh starts holds the channel for a moment: Node forks, and the fork carries all of
        dsh's descriptors until it execs the tool, when the close-on-exec one goes. Killing such a fork
        killed the tool (a poll "killed by signal: SIGKILL", now and then under load). So a copy marked
        close-on-exec counts only when the same process (pid and start time) still holds it at the next
        check, long after any exec; a copy that survives exec is a leak at once.
        """
        launch = self.launch
        if launch is None:
            return []
        out: list[int] = []
        seen: dict[int, int] = {}
        for s in proc.descendants({child}):
            flags = socket_flags(s.pid, launch.inode)
            if flags is None or flags == UNREADABLE:
                continue
            if not flags & os.O_CLOEXEC or self._on_exec.get(s.pid) == s.start:
                out.append(s.pid)
            else:
                seen[s.pid] = s.start
        self._on_exec = seen
        return out

    @property
    def is_connected(self) -> bool:
        """Whether a bridge is attached."""
        return self._writer is not None and not self._writer.is_closing()

    async def send(self, msg: Out) -> bool:
        """Send one command; False when no bridge is attached (never raises)."""
        w = self._writer
        if w is None or w.is_closing():
            return False
        try:
            w.write(msg.model_dump_json(exclude_none=True).encode() + b"\n")
            await w.drain()
            return True
        except (ConnectionError, OSError, RuntimeError) as e:
            self.stats.note(f"send failed: {e}")
            return False

    async def close(self) -> None:
        """Drop every connection (the child's ends close with it)."""
        if self.launch is not None:
            self.launch.close_child_end()
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
        for t in list(self._tasks):
            t.cancel()
        for t in list(self._tasks):
            with contextlib.suppress(BaseException):
                await t

    # -- reporting, bounded ----------------------------------------------------------------
    def _report(self, key: str, level: str, text: str) -> None:
        """Note every problem; show one of a kind at most every NOTICE_EVERY_S (with a count of the rest)."""
        self.stats.note(text)
        now = time.monotonic()
        if now - self._last_notice.get(key, -1e9) < NOTICE_EVERY_S:
            self._suppressed[key] = self._suppressed.get(key, 0) + 1
            return
        more = self._suppressed.pop(key, 0)
        self._last_notice[key] = now
        self.on_notice(level, text + (f" ({more} more like it since the last notice)" if more else ""))

    # -- serving ---------------------------------------------------------------------------
    async def _serve(self, conn: socket.socket, launch: Launch) -> None:
        authed = False
        writer: asyncio.StreamWriter | None = None
        try:
            try:
                reader, writer = await asyncio.open_unix_connection(sock=conn, limit=64 * 1024)
            except OSError:
                with contextlib.suppress(OSError):
                    conn.close()
                return
            lines = Lines(reader, HELLO_MAX_LINE)
            raw = await self._first_line(lines)
            hello = self._hello(raw, conn, launch) if raw is not None else None
            if hello is None:
                return
            authed = True
            lines.max_line = self.max_line
            self.stats.connections += 1
            self._writer = writer
            self.connected.set()
            await self._deliver(hello[0], hello[1])
            async for line in lines:
                if line is None:
                    self._oversized(lines.dropped)
                    continue
                await self._one(line)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a broken peer must never take the channel down
            self.stats.note(f"connection failed: {e!r}")
        finally:
            if authed and self._writer is writer:
                self._writer = None
                self.connected.clear()
                self.on_notice("bridge-lost", "the dsh bridge disconnected")
            if writer is not None:
                with contextlib.suppress(Exception):
                    writer.close()
            else:
                with contextlib.suppress(OSError):
                    conn.close()

    async def _first_line(self, lines: Lines) -> str | None:
        try:
            raw = await asyncio.wait_for(lines.__anext__(), self.hello_timeout)
        except TimeoutError:
            self._refuse(f"the bridge said nothing within {self.hello_timeout or 0:g} s")
            return None
        except StopAsyncIteration:
            return None
        if raw is None:
            self._refuse(f"the bridge sent more than {HELLO_MAX_LINE} bytes before its hello")
            return None
        return raw

    def _refuse(self, why: str, level: str = "warning") -> None:
        self.stats.rejected += 1
        self._report("rejected", level, f"rejected a bridge connection: {why}; dropped it")

    def _hello(self, raw: str, conn: socket.socket, launch: Launch) -> tuple[Hello, dict[str, Any]] | None:
        try:
            msg, obj = decode_line(raw)
        except BadMessage:
            msg, obj = None, {}
        if not isinstance(msg, Hello):
            self._refuse("its first line was not a hello")
            return None
        problem = self._peer_problem(msg, conn, launch)
        if problem is not None:
            self._refuse(problem, "error")
            return None
        return msg, obj

    @staticmethod
    def _peer_problem(msg: Hello, conn: socket.socket, launch: Launch) -> str | None:
        """Defence in depth: why this hello cannot be the bridge of the dsh this launch started, or None."""
        creator = peer_pid(conn)
        if creator is not None and creator != os.getpid():
            return f"the socket pair was made by pid {creator}, not by this monitor"
        want = launch.expected_pid
        if want is None:
            return "it said hello before its child was started"
        if msg.pid != want:
            return f"the hello names pid {msg.pid}, not the dsh breaker-tui started (pid {want})"
        if holds_socket(want, launch.inode) is False:
            return f"pid {want} does not hold the channel's other end"
        return None

    async def _one(self, line: str) -> None:
        self.stats.lines += 1
        try:
            msg, obj = decode_line(line)
        except BadMessage as e:
            await self._bad(e, line)
            return
        if isinstance(msg, Hello):
            self.stats.second_hellos += 1
            self._report("second-hello", "error", f"refused a second hello on the bridge channel (pid {msg.pid})")
            return
        await self._deliver(msg, obj)

    async def _deliver(self, msg: Inbound, obj: dict[str, Any]) -> None:
        try:
            await self.on_message(msg, obj)
        except Exception as e:  # a handler bug must not kill the channel
            t = str(obj.get("t"))[:40]
            self.stats.note(f"handler failed on {t}: {e!r}")
            self.on_notice("error", f"internal error handling {t}: {type(e).__name__}: {str(e)[:200]}")

    async def _bad(self, e: BadMessage, line: str) -> None:
        self.stats.bad_lines += 1
        if e.oversized is not None:
            self.stats.oversized += 1
            self._report(
                "oversized-event",
                "warning",
                f"the bridge dropped a {e.t or 'message'} of {e.oversized:,} bytes: over the channel limit "
                f"of {self.max_line:,} bytes (`max_line_bytes` in [wrapper])",
            )
        elif line.lstrip().startswith("{") and '"t"' in line[:400] and e.t is not None:
            self._report("unknown", "warning", f"unreadable message from the bridge ignored: {e}")
        else:
            self._report("malformed", "warning", f"malformed line from the bridge ({len(line)} chars) ignored: {e}")
        if self.on_bad is not None:
            try:
                await self.on_bad(e)
            except Exception as err:
                self.stats.note(f"handler failed on a bad line: {err!r}")

    def _oversized(self, n: int) -> None:
        self.stats.oversized += 1
        self._report(
            "oversized",
            "warning",
            f"dropped a {n:,}-byte line from the bridge: over the channel limit of {self.max_line:,} bytes "
            "(`max_line_bytes` in [wrapper])",
        )
