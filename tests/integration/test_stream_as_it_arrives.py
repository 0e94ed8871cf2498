"""An agent's answer is on the screen word by word as it arrives, not at the end of the turn.

The agent (`acp_words_agent.py`, a real process on a real pipe through the ACP harness) sends each
word only once the test has seen the previous one in the app's stream, so holding text back
anywhere between the pipe and the screen stops the stream and fails the test.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.tui.conftest import stream_text
from tui.app import create_app
from tui.sources import LiveSource
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.tui, pytest.mark.timeout(120)]
AGENT = [sys.executable, str(Path(__file__).with_name("acp_words_agent.py"))]
WORDS = 5


async def test_each_word_of_a_slow_stream_is_shown_before_the_next_is_sent(tmp_path: Path) -> None:
    ack = tmp_path / "ack"
    ack.write_text("0")
    env = {**os.environ, "WORDS_ACK": str(ack), "WORDS_COUNT": str(WORDS)}
    s = Settings(wrapper=WrapperSettings(recordings_dir=str(tmp_path / "rec")))
    src = LiveSource(AGENT, s, env=env, cwd=str(tmp_path), first_prompt="Say five words.", acp=True)
    app = create_app(src, s)
    async with app.run_test(size=(100, 30)) as pilot:
        for i in range(WORDS):
            await wait_until(lambda i=i: f"word{i}x" in stream_text(app), 30, f"word {i} on the screen")
            ack.write_text(str(i + 1))
        await wait_until(lambda: src.info.turn >= 1 and not src.info.busy, 30, "the turn's end")
        await pilot.press("ctrl+q")
