"""The channel against misbehaving peers: real unix sockets, real dsh alongside."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from wrapper.items import StatusItem

pytestmark = pytest.mark.integration


async def _connect(path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.wait_for(asyncio.open_unix_connection(path), 5)


async def test_connection_without_the_token_is_dropped_and_reported(run_factory: Any) -> None:
    run = await run_factory("normal")
    ch = run.session.channel
    reader, writer = await _connect(str(ch.path))
    writer.write(b'{"t":"hello","token":"guess"}\n{"t":"verdict_request","id":"x","name":"bash"}\n')
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b"", "the impostor is disconnected without an answer"
    await run.until(lambda: ch.stats.rejected == 1, what="the rejection")
    assert any("without the launch token" in i.text for i in run.of(StatusItem))
    await run.turn("Say hello")  # the real bridge is unaffected


async def test_malformed_and_oversized_lines_are_counted_and_skipped(run_factory: Any) -> None:
    run = await run_factory("normal")
    ch = run.session.channel
    ch.max_line = 4096
    reader, writer = await _connect(str(ch.path))
    writer.write(json.dumps({"t": "hello", "token": ch.token}).encode() + b"\n")
    writer.write(b"this is not json\n")
    writer.write(b'{"t":"no-such-message"}\n')
    writer.write(
        b'{"t":"event","sessionId":"x","event":{"type":"turn/start","data":{"turn":1},"pad":"' + b"x" * 10000 + b'"}}\n'
    )
    writer.write(
        json.dumps(
            {
                "t": "verdict_request",
                "id": "v1",
                "sessionId": "imp",
                "callId": "c1",
                "name": "read",
                "args": {"path": "a"},
            }
        ).encode()
        + b"\n"
    )
    await writer.drain()
    line = await asyncio.wait_for(reader.readline(), 5)
    assert json.loads(line) == {"t": "verdict", "id": "v1", "kind": "allow", "message": ""}
    assert ch.stats.bad_lines == 2 and ch.stats.oversized == 1
    warnings = " ".join(i.text for i in run.of(StatusItem) if i.kind == "warning")
    assert "malformed line" in warnings and "oversized line" in warnings and "unknown message" in warnings
    writer.close()
