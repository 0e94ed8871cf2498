"""A real ACP agent (no model) whose start a test steers: `python start_agent.py FOLDER`.

At each `initialize` it appends a line to `FOLDER/asked` (a test waits for it: the handshake is under
way), then does what `FOLDER/mode` says at that moment, so a restart can behave otherwise:

- `hold`: never answers (a start the person stops before the answer);
- `exit`: exits at once without answering (it refuses the handshake by going away);
- `error`: answers `initialize` with an error (it refuses by its answer);
- `answer` (or no file): answers, and opens a session.

A prompt `exit` makes it exit by itself (status 5); a prompt `close` makes it close its stdout and live
on (the channel gone while it runs); any other prompt ends the turn at once.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def send(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def initialize(folder: Path, rid: object) -> None:
    with open(folder / "asked", "a") as f:
        f.write(f"{os.getpid()}\n")
    mode_file = folder / "mode"
    mode = mode_file.read_text().strip() if mode_file.exists() else "answer"
    if mode == "exit":
        sys.exit(1)
    if mode == "error":
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32600, "message": "no protocol in common"}})
    elif mode != "hold":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})


def prompt(rid: object, text: str) -> None:
    if text == "exit":
        sys.exit(5)
    if text == "close":
        sys.stdout.close()
        os.close(1)
        for _ in sys.stdin:  # alive, unseen, until it is stopped
            pass
        sys.exit(0)
    send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})


def main() -> None:
    folder = Path(sys.argv[1])
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "initialize":
            initialize(folder, rid)
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": f"start-{os.getpid()}"}})
        elif method == "session/prompt":
            prompt(rid, params["prompt"][0]["text"])


if __name__ == "__main__":
    main()
