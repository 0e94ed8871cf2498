"""The status line says ENFORCING only while a live bridge answers; the channel's state, not the config, decides."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import make, settle, text_of
from tui.app import create_app
from tui.sources import LiveSource
from wrapper.settings import Settings


async def test_enforcing_follows_the_live_channel_and_a_stopped_session_exits_3() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        assert text_of(app.w_status).startswith("ENFORCING"), "a connected bridge: enforcing"

        def says(word: str) -> bool:
            app.refresh_view()
            return text_of(app.w_status).startswith(word)

        src.info.bridge = "waiting"  # launched, no hello yet
        await wait_until(lambda: says("NOT MONITORED YET"), 5, "the wait for the hello")
        src.info.bridge = "lost"
        await wait_until(lambda: says("NOT MONITORED"), 5, "a lost bridge")
        src.info.bridge, src.info.unmonitored = "connected", "no hello within 30 s"
        await wait_until(lambda: says("NOT MONITORED"), 5, "a stopped session stays NOT MONITORED")
        assert "ENFORCING" not in text_of(app.w_status)
        assert app.exit_status() == 3


# A real ACP agent whose start the test steers (`FOLDER/mode`: hold, answer, ...; `FOLDER/asked`: one
# line per `initialize` it received).
AGENT = Path(__file__).resolve().parents[1] / "unit" / "wrapper" / "harness" / "acp" / "start_agent.py"


def _acp_agent(tmp_path: Path, mode: str) -> tuple[Path, LiveSource]:
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "mode").write_text(mode)
    settings = Settings()  # the defaults: a loosened config would not say ENFORCING
    return folder, LiveSource([sys.executable, str(AGENT), str(folder)], settings, acp=True, opened=False)


def _asked(folder: Path) -> int:
    f = folder / "asked"
    return len(f.read_text().splitlines()) if f.exists() else 0


async def test_a_quit_while_an_acp_agent_starts_is_the_persons_stop_exit_0(tmp_path: Path) -> None:
    folder, src = _acp_agent(tmp_path, "hold")
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(lambda: _asked(folder) == 1, 60, "initialize to reach the agent")
        await pilot.press("ctrl+q")
    assert app.exit_status() == 0, "a quit the person asked for is not the agent's refusal"
    assert "NOT MONITORED" not in src.recording


async def test_a_kill_while_an_acp_agent_starts_then_a_restart_is_enforcing_to_the_end(tmp_path: Path) -> None:
    folder, src = _acp_agent(tmp_path, "hold")
    app = create_app(src, src.settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(lambda: _asked(folder) == 1, 60, "initialize to reach the agent")
        await pilot.press("ctrl+k")
        await wait_until(lambda: src.info.child == "exited", 60, "the kill")
        (folder / "mode").write_text("answer")
        await pilot.press("ctrl+r")
        await wait_until(lambda: src.info.bridge == "connected", 60, "the restarted session")
        app.refresh_view()
        assert text_of(app.w_status).startswith("ENFORCING"), text_of(app.w_status)
        assert app.exit_status() == 0
        await pilot.press("ctrl+q")
    assert app.exit_status() == 0, "a kill and a restart are not failures"
    assert "NOT MONITORED" not in src.recording
