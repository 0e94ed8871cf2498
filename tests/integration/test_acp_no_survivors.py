"""No process of any agent survives cancel + quit: the process table is read after both, for each agent.

The mock model makes the agent run a command that forks a background child (`sleep(300) &`) and then keeps
running, so the cancel lands mid-call. Codex starts its commands in a session of their own (ending the
agent's process group left them orphaned under init); the others run them in the agent's group. Whatever
the agent does, once the turn is cancelled and breaker-tui quit, no process whose working directory is
inside the test's world (the agent, its commands, their children) may still run. `/proc` is read directly:
psutil is not a dependency.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.acp_helpers import acp_run

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]
AGENTS = ("opencode", "claude", "codex", "gemini")


def in_world(root: Path) -> list[tuple[int, str]]:
    """(pid, command line) of every live process whose working directory is under `root` (zombies are gone)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{name}/cwd")
            stat = Path(f"/proc/{name}/stat").read_text()
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if stat[stat.rindex(")") + 2 :].startswith("Z"):
            continue
        if cwd == str(root) or cwd.startswith(str(root) + os.sep):
            out.append((int(name), cmd.strip()))
    return out


@pytest.mark.parametrize("agent", AGENTS)
async def test_nothing_survives_cancel_and_quit(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "sleeper", tmp_path) as run:
        s = run.session
        root = run.world.root
        before = s.turns_done
        assert await s.prompt("Run the long job.")

        def running(what: str) -> bool:
            return any(what in cmd for _, cmd in in_world(root))

        await run.until(
            lambda: running("time.sleep(301)") and running("time.sleep(300)"), 180, "the long job and its child"
        )
        assert await s.cancel()
        assert await s.wait_turn_end(before, 60), "the cancel did not end the turn"
        await s.quit()
        await run.until(lambda: not in_world(root), 30, f"every process in the world to end: {in_world(root)}")
    assert in_world(root) == []
