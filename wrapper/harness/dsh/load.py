"""A load generator against a real dsh `Session` channel: the round-trip benchmark's harness half.

The child is never started: only the channel and the monitor run, fed by `script` (Node, speaking the bridge
protocol), which inherits the socket pair's far end as dsh would.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from wrapper.harness.dsh.channel import Channel
from wrapper.harness.dsh.session import Session
from wrapper.settings import Settings, WrapperSettings
from wrapper.toolchain import node


async def under_load(script: Path, env: dict[str, str], timeout_s: float) -> tuple[str, int]:
    """Run `script` against the channel until it exits; its stdout and the count of lines the channel refused."""
    session = Session(["dsh"], Settings(wrapper=WrapperSettings(record=False)))
    session._loop = asyncio.get_running_loop()
    session.channel = Channel(session._on_message, session._on_notice)
    launch = session.channel.new_launch()
    drain = asyncio.create_task(_drain(session))
    proc = None
    try:
        proc = await asyncio.create_subprocess_exec(
            str(node()),
            str(script),
            env={**env, "BREAKER_FD": str(launch.fd)},
            stdout=asyncio.subprocess.PIPE,
            pass_fds=(launch.fd,),
        )
        session.channel.launched(launch, proc.pid)
        out, _ = await asyncio.wait_for(proc.communicate(), timeout_s)
    finally:
        if proc is not None and proc.returncode is None:  # timed out or interrupted: no generator outlives us
            proc.kill()
            await proc.wait()
        await session.channel.close()
        drain.cancel()
    return out.decode(), session.channel.stats.bad_lines


async def _drain(session: Session) -> None:
    while True:
        await session.queue.get()
