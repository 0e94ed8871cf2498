"""The bridge channel: a unix socket in a private directory, JSON lines, one bridge per launch.

The agent's own tools run as the same user as the monitor, so the socket's permissions alone do
not keep them out. What does: the launch token reaches only the bridge (through a file it deletes),
the first connection that presents it is the bridge for the whole launch and any later `hello` is
refused and reported, and peers that have not said hello are few (capped), short-lived (a hello
timeout) and small (a tiny line limit). Nothing a peer sends can raise out of here: every line is
decoded on its own, and the accept loop backs off instead of spinning when descriptors run out.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import shutil
import socket
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wrapper.harness.dsh.lines import Lines
from wrapper.harness.dsh.protocol import BadMessage, Hello, Inbound, Out, decode_line

MAX_LINE = 8 << 20  # bytes; a longer line is dropped and counted
HELLO_MAX_LINE = 16384  # an unauthenticated peer may send no more than this before its hello (a cwd fits)
HELLO_TIMEOUT_S = 2.0  # a peer that has not said hello by then is dropped
MAX_UNAUTHENTICATED = 8  # peers allowed to wait for their hello at once; more are closed on accept
NOTICE_EVERY_S = 5.0  # repeated problems of one kind are reported at most this often
_OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


@dataclass
class ChannelStats:
    """What went wrong on the channel, for display (nothing here is ever raised)."""

    lines: int = 0
    bad_lines: int = 0
    oversized: int = 0
    rejected: int = 0
    second_hellos: int = 0
    connections: int = 0
    accept_errors: int = 0
    unauthenticated: int = 0  # peers connected now that have not said hello yet
    problems: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """Remember a problem (bounded)."""
        self.problems.append(text)
        del self.problems[:-50]


Handler = Callable[[Inbound, dict[str, Any]], Awaitable[None]]
BadHandler = Callable[[BadMessage], Awaitable[None]]
Notice = Callable[[str, str], None]


class Channel:
    """Listens on `<dir>/bridge.sock`; the first peer to present this launch's token is the bridge."""

    def __init__(
        self,
        on_message: Handler,
        on_notice: Notice,
        max_line: int = MAX_LINE,
        directory: Path | None = None,
        on_bad: BadHandler | None = None,
        hello_timeout: float = HELLO_TIMEOUT_S,
        max_unauthenticated: int = MAX_UNAUTHENTICATED,
    ) -> None:
        self.on_message = on_message
        self.on_notice = on_notice
        self.on_bad = on_bad
        self.max_line = max_line
        self.hello_timeout = hello_timeout
        self.max_unauthenticated = max_unauthenticated
        if directory is None:
            directory = Path(tempfile.mkdtemp(prefix="breaker-tui-"))
            self._own_dir = True
        else:
            self._own_dir = False
        self.dir = directory
        os.chmod(self.dir, 0o700)
        self.path = self.dir / "bridge.sock"
        self.stats = ChannelStats()
        self.connected = asyncio.Event()
        self.token = ""
        self._hello_taken = False
        self._writer: asyncio.StreamWriter | None = None
        self._sock: socket.socket | None = None
        self._accepting: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._last_notice: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}
        self.new_launch()

    def new_launch(self) -> str:
        """A fresh token for the next launch; the next peer that presents it becomes the bridge."""
        self.token = secrets.token_urlsafe(24)
        self._hello_taken = False
        return self.token

    async def start(self) -> None:
        """Open the socket (0600 inside the 0700 directory) and start accepting."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.bind(str(self.path))
        os.chmod(self.path, 0o600)
        sock.listen(64)
        self._sock = sock
        self._accepting = asyncio.ensure_future(self._accept_loop())

    @property
    def is_connected(self) -> bool:
        """Whether an authenticated bridge is attached."""
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
        """Stop listening, drop every peer and remove the socket (and the directory when it is ours)."""
        if self._accepting is not None:
            self._accepting.cancel()
            with contextlib.suppress(BaseException):
                await self._accepting
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
        for t in list(self._tasks):
            t.cancel()
        with contextlib.suppress(OSError):
            self.path.unlink()
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

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

    # -- accepting -------------------------------------------------------------------------
    async def _accept_loop(self) -> None:
        loop = asyncio.get_running_loop()
        backoff = 0.05
        assert self._sock is not None
        while True:
            try:
                conn, _ = await loop.sock_accept(self._sock)
            except asyncio.CancelledError:
                raise
            except OSError as e:
                # out of descriptors (or memory): wait, do not spin; say so once per burst
                self.stats.accept_errors += 1
                key = "accept-exhausted" if e.errno in _OUT_OF_RESOURCES else "accept-error"
                self._report(key, "error", f"the bridge socket cannot accept connections: {e.strerror or e}")
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 1.0)
                continue
            backoff = 0.05
            if self.stats.unauthenticated >= self.max_unauthenticated:
                with contextlib.suppress(OSError):
                    conn.close()
                self.stats.rejected += 1
                self._report(
                    "flood",
                    "warning",
                    f"refused a connection to the bridge socket: {self.max_unauthenticated} peers "
                    "are already waiting to say hello",
                )
                continue
            self.stats.unauthenticated += 1
            task = asyncio.ensure_future(self._serve(conn))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _serve(self, conn: socket.socket) -> None:
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
            hello = self._hello(raw) if raw is not None else None
            if hello is None:
                return
            authed = True
            self.stats.unauthenticated -= 1
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
            if not authed:
                self.stats.unauthenticated -= 1
            if authed and self._writer is writer:
                self._writer = None
                self.connected.clear()
                self.on_notice("bridge-lost", "the dsh bridge disconnected")
            if writer is not None:
                with contextlib.suppress(Exception):
                    writer.close()

    async def _first_line(self, lines: Lines) -> str | None:
        try:
            raw = await asyncio.wait_for(lines.__anext__(), self.hello_timeout)
        except TimeoutError:
            self._refuse(f"a peer said nothing within {self.hello_timeout:g} s")
            return None
        except StopAsyncIteration:
            return None
        if raw is None:
            self._refuse(f"a peer sent more than {HELLO_MAX_LINE} bytes before its hello")
            return None
        return raw

    def _refuse(self, why: str) -> None:
        self.stats.rejected += 1
        self._report("rejected", "warning", f"rejected a bridge connection: {why}; dropped it")

    def _hello(self, raw: str) -> tuple[Hello, dict[str, Any]] | None:
        try:
            msg, obj = decode_line(raw)
        except BadMessage:
            msg, obj = None, {}
        if not isinstance(msg, Hello) or not secrets.compare_digest(msg.token.encode(), self.token.encode()):
            self._refuse("it did not present the launch token first")
            return None
        if self._hello_taken:
            self.stats.second_hellos += 1
            self.stats.rejected += 1
            self._report(
                "second-hello",
                "error",
                f"refused a second bridge (pid {msg.pid}) presenting the launch token: something in the "
                "agent's environment got hold of it; the first bridge keeps the channel",
            )
            return None
        self._hello_taken = True
        return msg, obj

    async def _one(self, line: str) -> None:
        self.stats.lines += 1
        try:
            msg, obj = decode_line(line)
        except BadMessage as e:
            await self._bad(e, line)
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
