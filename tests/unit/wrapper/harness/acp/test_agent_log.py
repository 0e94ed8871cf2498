"""An ACP agent's stderr is its own log, labelled so at its source (live and replayed).

Its stdout is the protocol, so what it writes on stderr (Claude Code's `phase=register durationMs=…`,
`[idle-compaction] skip…`) is not a screen meant for the person: the screen folds it into a count instead
of opening the child-output pane, and opens it when the agent fails.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from wrapper.harness.acp.replay import AcpReplayer
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.acp.stream import AGENT_LOG
from wrapper.harness.base import deny_all
from wrapper.items import Item, OutputItem
from wrapper.records.recorder import Recorder
from wrapper.records.sources import load
from wrapper.settings import AcpSettings, Settings, WrapperSettings

# An agent that logs one line on stderr, then reads its stdin and never answers.
LOGGER = [
    sys.executable,
    "-c",
    "import sys\nsys.stderr.write('phase=register durationMs=3\\n'); sys.stderr.flush()\nfor _ in sys.stdin: pass",
]


async def test_a_live_agents_stderr_is_labelled_its_log(tmp_path: Path) -> None:
    settings = Settings(acp=AcpSettings(startup_timeout_s=60), wrapper=WrapperSettings(record=False, kill_grace_s=1))
    s = AcpSession(LOGGER, settings, deny_all, cwd=str(tmp_path))
    items: list[Item] = []
    logged = asyncio.Event()

    async def pump() -> None:
        async for i in s:
            items.append(i)
            if isinstance(i, OutputItem):
                logged.set()

    task = asyncio.create_task(pump())
    try:
        await s.start()
        await asyncio.wait_for(logged.wait(), 30)  # generous: a python start on a loaded machine
        out = [i for i in items if isinstance(i, OutputItem)]
        assert [(o.text, o.stream) for o in out] == [("phase=register durationMs=3\n", AGENT_LOG)]
    finally:
        await s.close()
        await asyncio.wait_for(task, 10)


def test_a_replayed_agents_stderr_is_labelled_its_log(tmp_path: Path) -> None:
    path = tmp_path / "acp.jsonl"
    rec = Recorder(path, {"harness": "acp", "agent": "claude"})
    rec.write("child", {"text": "[idle-compaction] skip: cache TTL is unknown\n"})
    rec.close()
    out = [s.item for s in AcpReplayer(load(path)).steps() if isinstance(s.item, OutputItem)]
    assert [(o.text, o.stream) for o in out] == [("[idle-compaction] skip: cache TTL is unknown\n", AGENT_LOG)]
