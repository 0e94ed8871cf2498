"""A tiny real ACP agent for the harness's edge cases (no model).

No `loadSession`, a garbage line, a helper that ignores SIGTERM (as Codex's native binary does), and
dying mid-turn.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def send(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def update(sid: str, u: dict[str, object]) -> None:
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": u}})


def main() -> None:
    n = 0
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            n += 1
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": f"stub-{os.getpid()}-{n}"}})
        elif method == "session/prompt":
            sid = params["sessionId"]
            text = params["prompt"][0]["text"]
            sys.stdout.write("this is not json\n")
            update(sid, {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "thinking"}})
            if text == "spawn":
                code = (
                    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                    "print('up', flush=True); time.sleep(600)"
                )
                helper = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
                assert helper.stdout is not None
                helper.stdout.readline()
                update(
                    sid,
                    {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": f"helper {helper.pid}"},
                    },
                )
            if text == "die":
                sys.exit(3)
            update(sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "done"}})
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})


if __name__ == "__main__":
    main()
