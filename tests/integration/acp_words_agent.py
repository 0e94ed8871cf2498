"""A real ACP agent process that streams its answer one word at a time, each word only after the test
has seen the one before on the screen (`WORDS_ACK` holds how many it has seen).

A monitor that held text back until the end of the turn (or until a line is complete) would never
show the first word, and the agent would never send the second: the test fails rather than waits
on a clock.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

WORDS = int(os.environ.get("WORDS_COUNT", "5"))


def send(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def acked(path: Path) -> int:
    try:
        return int(path.read_text() or "0")
    except (OSError, ValueError):
        return 0


def stream(sid: str, ack: Path) -> None:
    for i in range(WORDS):
        while acked(ack) < i:  # the test has not seen the previous word yet
            time.sleep(0.01)
        chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"word{i}x "}}
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": chunk}})


def main() -> None:
    ack = Path(os.environ["WORDS_ACK"])
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": f"words-{os.getpid()}"}})
        elif method == "session/prompt":
            stream(params["sessionId"], ack)
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})


if __name__ == "__main__":
    main()
