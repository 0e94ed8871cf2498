"""Real ACP agents (installed by `breaker-tui setup-agent`) against the mock model, one private world each."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.integration.runs import READY_S, Run, open_run, running, scripted
from wrapper.harness.acp.presets import PRESETS, installed
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.acp.world import make_acp_world
from wrapper.items import Answer
from wrapper.mock.world import World
from wrapper.process.proc import group_alive
from wrapper.settings import Settings

AGENTS = ("opencode", "claude")


def need(agent: str) -> None:
    """Skip (with the fix) when the agent is not installed; CI installs both with `setup-agent`."""
    if not installed(PRESETS[agent]):
        pytest.skip(f"{agent} is not installed: run `breaker-tui setup-agent {agent}`")


AcpRun = Run[AcpSession]
"""A live ACP session and everything it produced (the integration tests' one `Run`)."""


@contextlib.asynccontextmanager
async def acp_run(
    agent: str,
    scenario: str,
    root: Path,
    answers: list[Answer] | None = None,
    settings: Settings | None = None,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
    before: Callable[[World], None] | None = None,
) -> AsyncIterator[AcpRun]:
    """Start `agent` on `scenario`; the approver answers from `answers`, then allows once.

    `command` runs another copy (the person's, by path or name), `env` changes the agent's environment
    (their PATH), `before` writes their own settings into the world's home before the agent starts.
    """
    if command is None:
        need(agent)
    world = make_acp_world(agent, scenario, root)
    world.env.update(env or {})
    if before is not None:
        before(world)
    cfg = settings or Settings()
    meta = {"harness": "acp", "agent": agent, "config": cfg.engine.model_dump(mode="json")}
    run = open_run(command or [agent], world, cfg, scripted(answers, "allow-once"), root / "recording.jsonl", meta)
    assert isinstance(run.session, AcpSession)
    try:
        async with running(run, READY_S):
            yield run
    finally:
        world.close()


def frames(path: Path) -> list[dict[str, Any]]:
    """The ACP messages of a recording, in order (each with `_dir` and `_loading` when it was history)."""
    out = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("k") == "acp":
            out.append({**rec["msg"], "_dir": rec["dir"], "_loading": rec.get("loading", False)})
    return out


def group_gone(pgid: int) -> bool:
    """Whether no live process of the group is left (zombies waiting for their reaper do not count)."""
    return not group_alive(pgid)
