"""Display lag of the app under a fast stream: `python -m tui.bench` (2,000 reasoning deltas per second).

A delta's lag runs from its arrival (the moment the app received it) to the frame that draws the
row showing it: the stream log times it when Textual renders that row (headless, so the last step,
writing escape codes to a terminal, is not included). A delta counts as displayed only when a frame
drew its row and its text is in the log at the end; skipped or never-drawn deltas are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import time
from typing import Any

from engine.bench.core import finish, pct
from tui.app import PANEL_PERIOD_S, create_app
from tui.sources import ScriptedSource
from tui.widgets.stream import StreamView
from wrapper.settings import Settings


async def _settled(app: Any, pilot: Any) -> None:
    await pilot.wait_for_scheduled_animations()
    for _ in range(3):
        await pilot.pause(PANEL_PERIOD_S)


def reference_loop_ms(n: int = 300_000) -> float:
    """How fast this machine runs Python: ms for `n` additions in a loop, best of three. Lags scale
    with it; the README gives the figure of the machine its lags were measured on.
    """
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        total = 0
        for i in range(n):
            total += i
        best = min(best, time.perf_counter() - t0)
    return best * 1000


async def measure(rate: int, seconds: float, size: tuple[int, int] = (160, 45)) -> dict[str, float]:
    """Feed `rate` deltas/s for `seconds` into the real app (headless) and time arrival -> paint."""
    settings = Settings()
    src = ScriptedSource(
        [
            {"t": "ready", "sessionId": "bench", "model": "bench"},
            {"t": "request_start", "sessionId": "bench", "turn": 1, "step": 1},
        ],
        settings,
        "bench",
    )
    app = create_app(src, settings)
    sent = 0
    async with app.run_test(size=size) as pilot:
        await asyncio.wait_for(src.drained.wait(), 10)
        # the app has started (first frames drawn, panels painted once) before the stream does
        await asyncio.wait_for(_settled(app, pilot), 10)
        stream = app.query_one("#stream", StreamView)
        stream.lags.clear()
        frames0, writes0 = app.main.frames, stream.writes
        start = time.perf_counter()
        cpu0 = time.process_time()
        while (now := time.perf_counter()) - start < seconds:
            due = int((now - start) * rate)
            while sent < due:
                text = f"step {sent}: thinking about case {sent * 31 % 7919} of the adapter" + (
                    "\n" if sent % 8 == 7 else " "
                )
                src.feed(
                    {
                        "t": "event",
                        "sessionId": "bench",
                        "event": {
                            "type": "assistant/chunk",
                            "seq": sent,
                            "time": 0,
                            "data": {
                                "turn": 1,
                                "step": 1,
                                "chunk": {"type": "reasoning-delta", "index": 0, "text": text},
                            },
                        },
                    }
                )
                sent += 1
            await asyncio.sleep(0.002)
        t_end = time.perf_counter()
        cpu = (time.process_time() - cpu0) / (t_end - start)
        frames, writes = app.main.frames - frames0, stream.writes - writes0
        while stream.waiting or not src.more.empty():
            await pilot.pause()
            if time.perf_counter() - t_end > 10:
                break
        lags = [x * 1000 for x in stream.lags]
        shown = "\n".join(t.plain for _, t in stream._history) + "".join(stream._buf)
        in_log = len({int(n) for n in re.findall(r"step (\d+):", shown)})
        return {
            "deltas": sent,
            "deltas_per_s": sent / seconds,
            "displayed": min(len(lags), in_log),
            "drawn": len(lags),
            "in_log": in_log,
            "never_drawn": stream._log.unseen + stream.waiting,
            "lines_skipped": stream.skipped_total,
            "lag_p50_ms": pct(lags, 0.5),
            "lag_p99_ms": pct(lags, 0.99),
            "lag_max_ms": max(lags) if lags else 0.0,
            "stream_lines": stream.lines_written,
            "backlog_after_s": time.perf_counter() - t_end,
            "frames_per_s": frames / seconds,
            "writes_per_s": writes / seconds,
            "cpu_share": cpu,
            "load_1m": os.getloadavg()[0],
            "cpus": os.cpu_count() or 0,
            "reference_loop_ms": reference_loop_ms(),
        }


def main(argv: list[str] | None = None) -> int:
    """Print the numbers and write them to `--out`; with `--json` the last line is one JSON object."""
    ap = argparse.ArgumentParser(prog="python -m tui.bench", description=__doc__)
    ap.add_argument("--rate", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--size", default="160x45", help="terminal columns x rows (the stream gets part of it)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--out", default="bench-results/tui.json")
    a = ap.parse_args(argv)
    cols, rows = (int(n) for n in a.size.lower().split("x"))
    r = asyncio.run(measure(a.rate, a.seconds, (cols, rows)))
    print(f"stream   {r['deltas']:,} reasoning deltas in {a.seconds:g} s ({r['deltas_per_s']:,.0f}/s), {cols}x{rows}")
    print(
        f"display  lag from arrival to paint: p50 {r['lag_p50_ms']:.1f} ms  p99 {r['lag_p99_ms']:.1f} ms  "
        f"max {r['lag_max_ms']:.1f} ms; {r['displayed']:,} of {r['deltas']:,} deltas displayed "
        f"({r['never_drawn']:,} never drawn, {r['lines_skipped']:,} lines skipped), backlog cleared "
        f"{r['backlog_after_s'] * 1000:.0f} ms after the stream stopped; load average {r['load_1m']:.2f}"
    )
    print(
        f"frames   {r['frames_per_s']:.0f}/s, the log written {r['writes_per_s']:.0f} times/s; "
        f"the process (app and feeder) used {r['cpu_share']:.0%} of a core"
    )
    print(
        f"machine  load average {r['load_1m']:.2f} on {r['cpus']} cores; a reference loop (300,000 Python"
        f" additions) took {r['reference_loop_ms']:.1f} ms, best of 3"
    )
    return finish(r, a.out, a.json)


if __name__ == "__main__":
    raise SystemExit(main())
