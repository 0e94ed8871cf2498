"""Run as a subprocess by test_channel_faults.py: a real Channel with almost no file descriptors left.

Prints JSON lines: `ready` (socket and token), every notice, and at the end (stdin closed) the stats.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
from pathlib import Path
from typing import Any

from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.channel import Channel


def say(**obj: Any) -> None:
    print(json.dumps(obj), flush=True)


async def main() -> None:
    async def on_message(msg: P.Inbound, raw: dict[str, Any]) -> None:
        if isinstance(msg, P.VerdictRequest):
            await ch.send(P.Verdict(id=msg.id, kind="allow"))

    ch = Channel(on_message, lambda kind, text: say(notice=text, kind=kind), directory=Path(sys.argv[1]))
    await ch.start()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    in_use = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (in_use + 3, hard))
    say(ready=str(ch.path), token=ch.token)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    s = ch.stats
    say(stats={"accept_errors": s.accept_errors, "rejected": s.rejected, "connections": s.connections})
    await ch.close()


asyncio.run(main())
