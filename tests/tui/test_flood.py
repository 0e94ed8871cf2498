"""Back-pressure: a 50 MB flood of output and reasoning leaves the screen's memory flat."""

from __future__ import annotations

import os

import pytest

from engine import events as ev
from tests.tui import scripts
from tests.tui.conftest import make, settle
from wrapper.items import EngineItem, OutputItem

LINE = "x" * 1023 + "\n"
MIB = 1 << 20


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# A memory-flatness run: 50 rounds of 1 MiB took 54 s at a load of 11 on 2 cores, near the default 120 s.
@pytest.mark.slow
@pytest.mark.timeout(360)
async def test_a_50_mb_flood_does_not_grow_memory_without_bound() -> None:
    app, src = make([scripts.ready(), *scripts.turn(1, "flood")])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        base = _rss()
        samples = []
        for n in range(50):  # each round: 512 KiB of child output and 512 KiB of reasoning without a newline
            for _ in range(8):
                app._receive(OutputItem(LINE * 64))
            app._receive(EngineItem(ev.ReasoningDelta(scripts.SID, "y" * (512 << 10))))
            await pilot.pause()
            if n % 10 == 9:
                app.refresh_view()
                await pilot.pause()
                samples.append(_rss() - base)
        stream = app.w_stream
        assert len(stream._log.lines) <= stream.max_lines
        assert len(app.w_output.lines) <= app.settings.ui.max_output_lines
        assert stream._buf_chars <= 4000 and not stream._pending
        assert max(samples) < 80 * MIB, f"memory grew by {[s // MIB for s in samples]} MiB"
        assert samples[-1] - samples[1] < 24 * MIB, f"memory kept growing: {[s // MIB for s in samples]} MiB"
