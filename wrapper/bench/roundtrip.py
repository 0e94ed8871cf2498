"""Verdict round trip under a heavy event stream, and the monitor's CPU per MB: `python -m wrapper.bench`."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import time
from pathlib import Path

from engine.bench.core import finish
from wrapper.harness.registry import harness

LOAD = Path(__file__).resolve().parent / "data" / "bridge_load.mjs"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def measure(rate: int, seconds: float, verdict_ms: int) -> dict[str, float]:
    """Run the load generator (Node, speaking the bridge protocol) against a real dsh session channel."""
    env = {**os.environ, "RATE": str(rate), "SECONDS": str(seconds), "VERDICT_MS": str(verdict_ms)}
    cpu0, wall0 = _cpu(), time.perf_counter()
    out, bad_lines = await harness("dsh").load(LOAD, env, seconds + 60)
    cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    res = json.loads(out.strip().splitlines()[-1])
    mb = res["bytes"] / 2**20
    return {
        **res,
        "monitor_cpu_s": cpu,
        "wall_s": wall,
        "cpu_s_per_mb": cpu / mb if mb else 0.0,
        "cpu_share": cpu / wall if wall else 0.0,
        "bad_lines": bad_lines,
    }


def main(argv: list[str] | None = None) -> int:
    """Print the numbers and write them to `--out`; with `--json` the last line is one JSON object."""
    ap = argparse.ArgumentParser(prog="python -m wrapper.bench", description=__doc__)
    ap.add_argument("--rate", type=int, default=1500, help="events per second (default 1500)")
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--verdict-ms", type=int, default=20, help="a verdict request every N ms")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--out", default="bench-results/wrapper.json")
    a = ap.parse_args(argv)
    r = asyncio.run(measure(a.rate, a.seconds, a.verdict_ms))
    print(
        f"stream            {r['events']:,} events in {a.seconds:g} s ({r['events_per_s']:,.0f}/s), "
        f"{r['bytes'] / 2**20:.2f} MB"
    )
    print(
        f"verdict round trip p50 {r['rtt_p50_ms']:.2f} ms  p99 {r['rtt_p99_ms']:.2f} ms  "
        f"({r['verdicts']} verdicts, {r['lost']} unanswered)"
    )
    print(
        f"monitor CPU       {r['monitor_cpu_s']:.2f} s over {r['wall_s']:.1f} s wall = "
        f"{r['cpu_s_per_mb']:.2f} CPU-s per MB of stream ({r['cpu_share'] * 100:.0f}% of one core)"
    )
    from wrapper.bench import scan as scanbench

    s = scanbench.run()
    scanbench.report(s)
    return finish({**r, **s}, a.out, a.json)


if __name__ == "__main__":
    raise SystemExit(main())
