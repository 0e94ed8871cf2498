"""Reading an ACP agent's stdout as frames that can never hurt the reader.

An agent's stdout is data: a line may be longer than any limit, nested thousands deep (a model's
arguments become the frame), not UTF-8, or not JSON at all. `LineSplitter` cuts the byte stream into
lines with a bounded buffer and swallows the whole of an over-long line (its remainder is never taken
for a line of its own), and `decode_frame` turns one line into an object or says why not, without
letting `RecursionError` or anything else escape, as the dsh channel does. A request that cannot be
decoded still names its id and method when they lead the line, so a permission request in it is
answered (refused) instead of leaving the agent waiting.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 200  # deeper than any real ACP frame; deeper ones are dropped before anything walks them
_HEAD_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")')
_HEAD_METHOD = re.compile(rb'"method"\s*:\s*"([^"\\]{1,100})"')


@dataclass(frozen=True)
class BadFrame:
    """A line that is not a usable frame: why, and the request id and method when they could be read."""

    why: str
    rid: Any = None
    method: str | None = None


def depth_of(obj: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply `obj` nests (iteratively, so any depth is safe); stops counting past `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if d > deepest:
            deepest = d
            if deepest > limit:
                return deepest
        if isinstance(o, dict):
            stack.extend((v, d + 1) for v in o.values())
        elif isinstance(o, list):
            stack.extend((v, d + 1) for v in o)
    return deepest


def _head(line: bytes) -> tuple[Any, str | None]:
    head = line[:400]
    m = _HEAD_ID.search(head)
    rid: Any = None
    if m is not None:
        try:
            rid = json.loads(m.group(1))
        except ValueError:
            rid = None
    mm = _HEAD_METHOD.search(head)
    return rid, (mm.group(1).decode("ascii", "replace") if mm else None)


def decode_frame(line: bytes) -> dict[str, Any] | BadFrame:
    """One line from the agent: its JSON object, or a `BadFrame` (never an exception)."""
    try:
        obj = json.loads(line)
    except RecursionError:
        return BadFrame(f"nested too deeply ({len(line)} bytes)", *_head(line))
    except (ValueError, MemoryError):  # UnicodeDecodeError is a ValueError
        return BadFrame("not JSON")
    if not isinstance(obj, dict):
        return BadFrame(f"not a JSON object ({type(obj).__name__})")
    if depth_of(obj) > MAX_DEPTH:
        rid = obj.get("id")
        method = obj.get("method")
        return BadFrame(
            f"nested more than {MAX_DEPTH} deep ({len(line)} bytes)",
            rid if isinstance(rid, (int, str)) else None,
            method if isinstance(method, str) else None,
        )
    return obj


class LineSplitter:
    """Bytes in, complete lines out, never holding more than `limit` bytes of one line."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buf = bytearray()
        self.skipping = False  # inside an over-long line: drop until its newline
        self.dropped = 0  # over-long lines dropped

    def feed(self, chunk: bytes) -> list[bytes]:
        """The complete lines in `chunk` (with what came before); over-long lines are dropped whole."""
        out: list[bytes] = []
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                break
            if self.skipping:
                self.skipping = False
            elif len(self.buf) + nl - start > self.limit:
                self.dropped += 1
            else:
                self.buf += chunk[start:nl]
                out.append(bytes(self.buf))
            self.buf.clear()
            start = nl + 1
        rest = chunk[start:]
        if not self.skipping and rest:
            if len(self.buf) + len(rest) > self.limit:
                self.buf.clear()
                self.skipping = True
                self.dropped += 1
            else:
                self.buf += rest
        return out

    def tail(self) -> bytes:
        """What is left when the stream ends (a last line without its newline)."""
        rest, self.buf = bytes(self.buf), bytearray()
        return b"" if self.skipping else rest
