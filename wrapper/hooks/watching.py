"""The watch's side of the server's socket: the pending asks as they change, and the person's answers.

`breaker-tui watch` keeps one connection open (`{"op": "watch"}`): the server sends the whole list of
pending asks at once and again at every change, one JSON line each, and reads answers from the same
connection. The server takes answers from nowhere else, so only a watch of this user (the socket is 0600
in a 0700 folder, and the server checks the peer) can turn an ask into an allow.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from wrapper.hooks.rundir import socket_name

LINE_LIMIT = 8 << 20  # a snapshot of pending asks carries their calls' arguments


class AskLink:
    """One watch connection to the running server (none is started for it)."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or socket_name()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        """Connect and subscribe; OSError when no server listens."""
        self._reader, self._writer = await asyncio.open_unix_connection(self.path, limit=LINE_LIMIT)
        self._writer.write(b'{"v": 2, "op": "watch"}\n')
        await self._writer.drain()

    async def updates(self) -> AsyncIterator[list[dict[str, Any]]]:
        """Every list of pending asks the server sends, oldest ask first, until the connection ends."""
        if self._reader is None:
            return
        with contextlib.suppress(OSError, ValueError, asyncio.IncompleteReadError):
            while line := await self._reader.readline():
                said = json.loads(line)
                asks = said.get("asks") if isinstance(said, dict) else None
                if isinstance(asks, list):
                    yield [a for a in asks if isinstance(a, dict)]

    async def answer(self, ask_id: str, say: str) -> bool:
        """Send the person's answer (`allow-once`, `allow-turn` or `deny`); False when the connection is gone."""
        if self._writer is None:
            return False
        try:
            self._writer.write(json.dumps({"answer": ask_id, "say": say}).encode() + b"\n")
            await self._writer.drain()
        except (OSError, ConnectionError):
            return False
        return True

    def close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(OSError, RuntimeError):
                self._writer.close()
        self._reader = self._writer = None
