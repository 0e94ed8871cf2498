"""What replaying a trace costs the engine, and whether its memory stays flat (part of `python -m engine.bench`).

`scan` and `eval` replay traces through `engine.trace.simulate`; this measures that replay alone,
on events built in memory (the file side is measured by `python -m wrapper.bench.scan`): the time
per tool call of a 1,000-call trace with a thought before each call, next to the plain tool
check's, and the tracemalloc peak of a 100-call replay against a 1,000-call one, with the events
produced one at a time as the file reader produces them.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator

from engine.bench.calls import tool_calls  # the benchmark's own call mix
from engine.trace import TraceEvent, simulate


def trace_events(calls: int) -> Iterator[TraceEvent]:
    """A realistic session: a user message, then `calls` mostly distinct calls, each after a thought."""
    yield TraceEvent(0, 1, "user", text="Work through the backlog.")
    index = 1
    for i, (tool, args) in enumerate(tool_calls(calls)):
        yield TraceEvent(index, index + 1, "think", text=f"Step {i}: next I look at item {i * 7919 % 10007}.")
        yield TraceEvent(index + 1, index + 2, "call", tool=tool, args=args, output=f"result {i}: ok", exit=0)
        index += 2


def replay_seconds(calls: int) -> float:
    """Best of three replays of a `calls`-call trace."""
    best = float("inf")
    for _ in range(3):
        events = list(trace_events(calls))
        t0 = time.perf_counter()
        simulate(None, events)
        best = min(best, time.perf_counter() - t0)
    return best


def replay_peak_mib(calls: int) -> float:
    """tracemalloc peak (MiB) of one replay, the events generated lazily."""
    tracemalloc.start()
    try:
        simulate(None, trace_events(calls))
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def run(calls: int = 1000) -> dict[str, float]:
    """The measurements, as one flat dict (times in microseconds per call)."""
    seconds = replay_seconds(calls)
    small, big = replay_peak_mib(calls // 10), replay_peak_mib(calls)
    return {
        "trace_replay_calls": calls,
        "trace_replay_us_per_call": seconds / calls * 1e6,
        "trace_replay_peak_mib_small": small,
        "trace_replay_peak_mib_big": big,
        "trace_replay_peak_ratio": big / small if small else 0.0,
    }
