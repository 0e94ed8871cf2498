"""What the default rules cost next to the seed rules on real results: `python -m engine.bench --real DIR`.

The synthetic mix of `engine.bench` answers every call with `ok`; real results are long, noisy and
repeated, and reading them is what the default rules add over the seeds. This replays every trace
of a folder (e.g. `real-public/traces`) through `engine.trace.simulate` under each mode, interleaved
round by round so machine load hits both, and prints the best round's microseconds per call (wall
clock and this process's CPU time, the steadier one on a shared machine) and
the ratio, with the load average beside them. `--profile N` prints the default rules' top N
functions by own time (cProfile) instead; `--rounds N` sets the rounds.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import time
from pathlib import Path

from engine.config import BreakerConfig
from engine.trace import TraceEvent, TraceMeta, parse_line, simulate

Trace = tuple[TraceMeta | None, list[TraceEvent]]
MODES = ("seed", "default")


def read_trace(path: Path) -> Trace:
    """One `.jsonl` trace, parsed into its meta and events (done before any timing)."""
    meta: TraceMeta | None = None
    events: list[TraceEvent] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        item = parse_line(json.loads(raw), n, len(events))
        if isinstance(item, TraceMeta):
            meta = item
        else:
            events.append(item)
    return meta, events


def read_traces(folder: Path) -> list[Trace]:
    """Every trace under `folder` (its `traces/` subfolder if it has one), in name order."""
    if (folder / "traces").is_dir():
        folder = folder / "traces"
    return [read_trace(p) for p in sorted(folder.rglob("*.jsonl"))]


def count_calls(traces: list[Trace]) -> int:
    """Tool calls in the traces (the denominator of every per-call figure)."""
    return sum(1 for _, events in traces for e in events if e.kind == "call")


def replay(traces: list[Trace], mode: str) -> tuple[float, float]:
    """Wall and CPU seconds of this process to replay every trace once under `mode` (on a shared
    machine the CPU time is the steadier figure: waiting for a core is not counted).
    """
    base = BreakerConfig.from_mapping({"engine": {"mode": mode}})
    w0, c0 = time.perf_counter(), time.process_time()
    for meta, events in traces:
        simulate(meta, events, base=base)
    return time.perf_counter() - w0, time.process_time() - c0


def measure(traces: list[Trace], rounds: int) -> dict[str, float]:
    """Best-of-`rounds` microseconds per call for each mode (interleaved), their ratio and the load."""
    calls = max(1, count_calls(traces))
    wall = dict.fromkeys(MODES, float("inf"))
    cpu = dict.fromkeys(MODES, float("inf"))
    load_before = os.getloadavg()[0]
    for _ in range(rounds):
        for mode in MODES:
            w, c = replay(traces, mode)
            wall[mode], cpu[mode] = min(wall[mode], w), min(cpu[mode], c)
    return {
        "traces": len(traces),
        "calls": calls,
        "seed_us_per_call": wall["seed"] / calls * 1e6,
        "default_us_per_call": wall["default"] / calls * 1e6,
        "ratio": wall["default"] / wall["seed"],
        "seed_cpu_us_per_call": cpu["seed"] / calls * 1e6,
        "default_cpu_us_per_call": cpu["default"] / calls * 1e6,
        "cpu_ratio": cpu["default"] / cpu["seed"],
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def profile(traces: list[Trace], top: int) -> None:
    """Print the default rules' `top` functions by own time over one replay."""
    prof = cProfile.Profile()
    prof.enable()
    replay(traces, "default")
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def report(folder: Path, rounds: int = 3, top: int = 0, as_json: bool = False) -> int:
    """Replay a folder of traces under both modes and print the per-call cost (or, with `top`, a profile)."""
    traces = read_traces(folder)
    if not traces:
        print(f"no .jsonl traces under {folder}")
        return 2
    if top:
        profile(traces, top)
        return 0
    r = measure(traces, rounds)
    print(
        f"real replay           {r['traces']:.0f} traces, {r['calls']:.0f} calls, best of {rounds} rounds; "
        f"load {r['load_before']:.2f} -> {r['load_after']:.2f}"
    )
    print(
        f"  wall: seed rules {r['seed_us_per_call']:.1f} us/call, default rules {r['default_us_per_call']:.1f} "
        f"us/call: x{r['ratio']:.2f} (target <= 2)"
    )
    print(
        f"  cpu:  seed rules {r['seed_cpu_us_per_call']:.1f} us/call, default rules "
        f"{r['default_cpu_us_per_call']:.1f} us/call: x{r['cpu_ratio']:.2f}"
    )
    if as_json:
        print(json.dumps(r))
    return 0
