"""What the mock model's API modules (Anthropic, Responses, Gemini) need of the server: one small interface.

The server (`mock.server.MockModel`) imports the API modules; they see it only through `ModelCore`, so the
two do not import each other.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from wrapper.mock.scenarios import Reply


class ModelCore(Protocol):
    """The server's state and helpers an API module uses."""

    scenario: str
    workspace: str
    _hangs: list[threading.Event]

    def once(self, reply: Reply) -> Reply:
        """The reply, with one-shot scenario effects applied."""
        ...

    def _json(self, h: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
        """Send a JSON response."""
        ...


def obj(d: Any, key: str) -> dict[str, Any]:
    """`d[key]` when it is a JSON object, else an empty one (requests are data, never trusted)."""
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, dict) else {}


def start_stream(h: BaseHTTPRequestHandler) -> None:
    """Answer 200 with an event stream that ends when the connection closes (every API streams alike)."""
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.send_header("Cache-Control", "no-cache")
    h.send_header("Connection", "close")
    h.end_headers()
