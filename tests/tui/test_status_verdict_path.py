"""The status line says ENFORCING only while a live bridge answers; the channel's state, not the config, decides."""

from __future__ import annotations

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import make, settle, text_of


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
