"""Resuming with a small real ACP agent (`acp_stub_agent.py`): a session it refuses, an agent that cannot load.

Either way the agent gets a new session and the person is told the old turns are not in its context;
it is never left without a session (before, a refused `session/load` ended the handshake: no prompts).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.integration.runs import Run, started
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import deny_all
from wrapper.items import StatusItem
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]
STUB = [sys.executable, str(Path(__file__).with_name("acp_stub_agent.py"))]


async def _start(tmp_path: Path, resume: str, load: bool) -> Run[AcpSession]:
    env = {**os.environ, **({"STUB_LOAD": "1"} if load else {})}
    settings = Settings(wrapper=WrapperSettings(record=False, kill_grace_s=1))
    return await started(AcpSession(STUB, settings, deny_all, str(tmp_path), env, resume=resume), 30)


@pytest.mark.parametrize(
    ("load", "said"),
    [
        (True, "could not load session forgotten (session/load: Resource not found"),
        (False, "does not advertise loadSession"),
    ],
)
async def test_a_session_that_cannot_be_loaded_gives_a_new_one_and_says_so(
    tmp_path: Path, load: bool, said: str
) -> None:
    run = await _start(tmp_path, "forgotten", load)
    s, items = run.session, run.items
    try:
        assert s.info.session_id.startswith("stub-"), "a new session"
        warnings = [i.text for i in items if isinstance(i, StatusItem) and i.kind == "warning"]
        assert any(said in w and "not in its context" in w for w in warnings), warnings
        assert await s.prompt("hello")
        assert await s.wait_turn_end(0, 30), "the new session takes prompts"
    finally:
        await run.close()
