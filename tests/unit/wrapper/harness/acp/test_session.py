"""A message sent before the agent's session opens waits for the start, bounded only by the start's own setting.

The first prompt of `--no-tui --prompt` is sent while the agent is still starting. It used to give up after
a fixed minute of its own, shorter than `startup_timeout_s`, so an agent that took 55 s to answer
`initialize` on a loaded machine failed with "not ready for prompts"; and when the start had already
failed, the prompt still waited out its minute.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import deny_all
from wrapper.items import Item, StatusItem
from wrapper.settings import AcpSettings, Settings, WrapperSettings

# An agent that reads its stdin and never answers: its `initialize` never completes.
SILENT = [sys.executable, "-c", "import sys\nfor _ in sys.stdin: pass"]


async def test_a_prompt_before_a_failed_start_answers_with_the_start_not_a_clock_of_its_own(tmp_path: Path) -> None:
    settings = Settings(acp=AcpSettings(startup_timeout_s=1), wrapper=WrapperSettings(record=False, kill_grace_s=1))
    s = AcpSession(SILENT, settings, deny_all, cwd=str(tmp_path))
    items: list[Item] = []

    async def pump() -> None:
        async for i in s:
            items.append(i)

    task = asyncio.create_task(pump())
    try:
        await s.start()
        # generous: the start gives up after 1 s and ends the agent; the prompt must answer then
        sent = await asyncio.wait_for(s.prompt("hello"), 30)
        assert sent is False
        said = [i.text for i in items if isinstance(i, StatusItem)]
        assert any("startup_timeout_s" in t for t in said), said
    finally:
        await s.close()
        await asyncio.wait_for(task, 10)
