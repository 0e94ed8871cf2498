"""The bridge channel: a unix socket in a private directory, JSON lines, a per-launch token."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wrapper.protocol import BadMessage, Hello, Inbound, Out, parse_inbound

MAX_LINE = 8 << 20  # bytes; a longer line is dropped and counted


@dataclass
class ChannelStats:
    """What went wrong on the channel, for display (nothing here is ever raised)."""

    lines: int = 0
    bad_lines: int = 0
    oversized: int = 0
    rejected: int = 0
    connections: int = 0
    last_problem: str = ""
    problems: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """Remember a problem (bounded)."""
        self.last_problem = text
        self.problems.append(text)
        del self.problems[:-50]


Handler = Callable[[Inbound, dict[str, Any]], Awaitable[None]]
Notice = Callable[[str, str], None]


class Channel:
    """Listens on `<private dir>/bridge.sock`; accepts bridges that present the token first."""

    def __init__(self, on_message: Handler, on_notice: Notice, max_line: int = MAX_LINE) -> None:
        self.on_message = on_message
        self.on_notice = on_notice
        self.max_line = max_line
        self.token = secrets.token_urlsafe(24)
        self.dir = Path(tempfile.mkdtemp(prefix="breaker-tui-"))
        os.chmod(self.dir, 0o700)
        self.path = self.dir / "bridge.sock"
        self.stats = ChannelStats()
        self.connected = asyncio.Event()
        self._writer: asyncio.StreamWriter | None = None
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Open the socket (0600 inside the 0700 directory)."""
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path), limit=64 * 1024)
        os.chmod(self.path, 0o600)

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
        """Stop listening, drop the bridge and remove the private directory."""
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
        for t in list(self._tasks):
            t.cancel()
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- connection handling ---------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        authed = False
        try:
            async for raw in self._lines(reader):
                if not authed:
                    hello = self._hello(raw)
                    if hello is None:
                        self.stats.rejected += 1
                        self.stats.note("a connection did not present the launch token first; dropped it")
                        self.on_notice("warning", "rejected a bridge connection without the launch token")
                        return
                    authed = True
                    self.stats.connections += 1
                    old, self._writer = self._writer, writer
                    if old is not None and old is not writer:
                        with contextlib.suppress(Exception):
                            old.close()
                    self.connected.set()
                    await self.on_message(hello, json.loads(raw))
                    continue
                self.stats.lines += 1
                try:
                    obj = json.loads(raw)
                except ValueError:
                    self.stats.bad_lines += 1
                    self.stats.note(f"malformed line from the bridge: {raw[:120]!r}")
                    self.on_notice("warning", f"malformed line from the bridge ({len(raw)} bytes) ignored")
                    continue
                try:
                    msg = parse_inbound(obj)
                except BadMessage as e:
                    self.stats.bad_lines += 1
                    self.stats.note(f"unknown message: {e}")
                    self.on_notice("warning", f"unknown message from the bridge ignored: {e}")
                    continue
                try:
                    await self.on_message(msg, obj)
                except Exception as e:  # a handler bug must not kill the channel
                    self.stats.note(f"handler failed on {obj.get('t')}: {e!r}")
                    self.on_notice("error", f"internal error handling {obj.get('t')}: {e!r}")
        finally:
            if authed and self._writer is writer:
                self._writer = None
                self.connected.clear()
                self.on_notice("bridge-lost", "the dsh bridge disconnected")
            with contextlib.suppress(Exception):
                writer.close()
            if task is not None:
                self._tasks.discard(task)

    def _hello(self, raw: str) -> Hello | None:
        try:
            msg = parse_inbound(json.loads(raw))
        except (ValueError, BadMessage):
            return None
        if not isinstance(msg, Hello) or not secrets.compare_digest(msg.token, self.token):
            return None
        return msg

    async def _lines(self, reader: asyncio.StreamReader):  # type: ignore[no-untyped-def]
        """Yield complete lines; drop (and count) any longer than `max_line`."""
        buf = bytearray()
        discarding = False
        while True:
            chunk = await reader.read(256 * 1024)
            if not chunk:
                return
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                if nl < 0:
                    if not discarding:
                        buf += chunk[start:]
                        if len(buf) > self.max_line:
                            self._oversized(len(buf))
                            buf.clear()
                            discarding = True
                    break
                piece = chunk[start:nl]
                start = nl + 1
                if discarding:
                    discarding = False
                    continue
                if len(buf) + len(piece) > self.max_line:
                    self._oversized(len(buf) + len(piece))
                    buf.clear()
                    continue
                buf += piece
                line = buf.decode("utf-8", "replace")
                buf.clear()
                if line.strip():
                    yield line

    def _oversized(self, n: int) -> None:
        self.stats.oversized += 1
        self.stats.note(f"dropped a {n}-byte line (limit {self.max_line})")
        self.on_notice("warning", f"dropped an oversized line from the bridge ({n} bytes > {self.max_line})")
