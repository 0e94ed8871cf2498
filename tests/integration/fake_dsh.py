"""A stand-in for a runner dsh whose start a test steers: `python fake_dsh.py FOLDER [dsh's arguments]`.

It runs where dsh runs (under the monitor's pty, as the launched pid) and speaks the bridge's side of the
real inherited channel (fd 3). At start it appends its pid to `FOLDER/started`, then does what
`FOLDER/mode` says at that moment, so a restart can behave otherwise:

- `silent`: never says hello (a bridge that did not load);
- `exit`: exits at once with status 1, before any hello;
- `hello`: says hello, and its runner never gets ready (it is still starting);
- `ready` (or no file): says hello and that its runner is ready.

Stopped (SIGINT, or a `quit` message) while its runner starts, it fails the runner as dsh's bridge does
when dsh takes its services down: `runner_error` "the agents service is not available in this profile".
A prompt `exit` makes it exit by itself with status 7; a prompt `work` starts turn 1, which never ends;
pings are answered.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

NO_SERVICE = "the agents service is not available in this profile"


class Bridge:
    def __init__(self) -> None:
        self.channel = socket.socket(fileno=3)
        self.hello = False
        self.ready = False

    def send(self, obj: dict[str, Any]) -> None:
        self.channel.sendall((json.dumps(obj) + "\n").encode())

    def stop(self, code: int) -> None:
        if self.hello and not self.ready:
            self.send({"t": "runner_error", "message": NO_SERVICE})
        os._exit(code)


def turn_start(n: int) -> dict[str, Any]:
    """dsh's event for a turn that starts (this stand-in never ends it)."""
    data = {"type": "turn/start", "seq": n, "time": 0, "data": {"turn": n}}
    return {"t": "event", "sessionId": "fake-1", "event": data}


def main() -> None:
    folder = Path(sys.argv[1])
    with open(folder / "started", "a") as f:
        f.write(f"{os.getpid()}\n")
    mode_file = folder / "mode"
    mode = mode_file.read_text().strip() if mode_file.exists() else "ready"
    if mode == "exit":
        sys.exit(1)
    bridge = Bridge()
    signal.signal(signal.SIGINT, lambda *_: bridge.stop(130))
    # each state is set before it is said: a SIGINT may arrive between two statements (a handler runs
    # between any two), and the monitor acts on what was said
    if mode != "silent":
        bridge.hello = True
        bridge.send({"t": "hello", "pid": os.getpid(), "runner": True, "version": "fake"})
    if mode == "ready":
        bridge.ready = True
        bridge.send({"t": "ready", "sessionId": "fake-1", "provider": "mock", "model": "mock-model"})
    for line in bridge.channel.makefile():
        msg = json.loads(line)
        if msg.get("t") == "ping":
            bridge.send({"t": "pong", "id": msg.get("id", "")})
        elif msg.get("t") == "prompt" and msg.get("text") == "exit":
            os._exit(7)
        elif msg.get("t") == "prompt" and msg.get("text") == "work":
            bridge.send(turn_start(1))
        elif msg.get("t") == "quit":
            bridge.stop(int(msg.get("code") or 0))


if __name__ == "__main__":
    main()
