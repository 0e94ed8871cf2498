"""Cutting a byte stream into lines with a hard length limit, for the bridge channel.

A peer that never sends a newline must not make the monitor buffer without end: a line longer
than the limit is dropped as it arrives (once reported as `None`) and the stream resyncs at the
next newline. Pure and chunking-independent, so it can be fuzzed without a socket.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator


class Lines:
    """Complete lines of a stream; a line longer than `max_line` yields None once (and is skipped)."""

    def __init__(self, reader: asyncio.StreamReader, max_line: int) -> None:
        self.reader = reader
        self.max_line = max_line
        self.dropped = 0
        self._buf = bytearray()
        self._discarding = False
        self._ready: list[str | None] = []

    def __aiter__(self) -> AsyncIterator[str | None]:
        return self

    async def __anext__(self) -> str | None:
        while not self._ready:
            chunk = await self.reader.read(256 * 1024)
            if not chunk:
                raise StopAsyncIteration
            self._ready.extend(split_lines(self, chunk))
        return self._ready.pop(0)


def split_lines(state: Lines, chunk: bytes) -> list[str | None]:
    """Cut a chunk into lines, continuing `state`'s partial line; None marks a dropped oversized line."""
    out: list[str | None] = []
    start = 0
    buf = state._buf
    while True:
        nl = chunk.find(b"\n", start)
        if nl < 0:
            if not state._discarding:
                buf += chunk[start:]
                if len(buf) > state.max_line:
                    state.dropped = len(buf)
                    buf.clear()
                    state._discarding = True
                    out.append(None)
            return out
        piece = chunk[start:nl]
        start = nl + 1
        if state._discarding:
            state._discarding = False
            continue
        if len(buf) + len(piece) > state.max_line:
            state.dropped = len(buf) + len(piece)
            buf.clear()
            out.append(None)
            continue
        buf += piece
        line = buf.decode("utf-8", "replace")
        buf.clear()
        if line.strip():
            out.append(line)
