"""What a long session's recording costs to read back: `python -m wrapper.bench.recording [--events N] [--json]`.

A recording in the shape a long dsh session leaves (what the reliability probe's fake dsh sends: reasoning
deltas, 400 a model request, a tool call with its verdict and result every so often, a 5-call loop every
1000 calls) is written through the real `Recorder` (so it carries the digest chain and its index entry) into a
temporary directory, then read back as `breaker-tui scan` and `breaker-tui replay` read it. Printed, not
asserted: the file's size, the scan's seconds and peak RSS (a child process, so the figure is the real
resident size, not Python's own count), the scan's integrity verdict, and the seconds until the replay
player holds its first frame. The target: 1,000,000 events scan in under a minute and replay their first
frame in under 2 s; `tests/unit/wrapper/records/test_long_recording.py` holds the memory bound and the first frame of a
smaller one, and leaves the pace to this benchmark.

CPU seconds alone swing by 1.5x with what else runs on the machine, so the pace is also printed as the
scan's CPU over the CPU of `json.loads` of the same lines, timed just before and after it in the same
process: about 4.5 µs a line on the development machine, so a minute for a million events is x12.5. The
plain engine scans at x9-11, the compiled one at x6-8.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import build_info
from engine.bench.core import finish
from wrapper.records.recorder import Recorder

SID = "session-load-1"
STEP_DELTAS = 400


def write_recording(path: Path, events: int, calls: int) -> int:
    """A long session's recording at `path` (written by the real recorder); returns its record count."""
    rec = Recorder(path, {"argv": ["dsh", "--profile", "headless", "go"], "cwd": "/", "config": {}})
    r = random.Random(3)
    words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(3, 10))) for _ in range(30000)]

    def event(etype: str, data: dict[str, Any]) -> None:
        rec.write("in", {"t": "event", "sessionId": SID, "event": {"type": etype, "data": data}})

    rec.write("in", {"t": "hello", "pid": 1, "version": "1", "runner": False, "cwd": "/"})
    rec.write("in", {"t": "agent_created", "sessionId": SID, "depth": 0})
    event("turn/start", {"turn": 1})
    sent = done = step = burst = 0
    every = max(1, events // max(1, calls))
    while sent < events or done < calls:
        step += 1
        rec.write(
            "in", {"t": "request_start", "sessionId": SID, "purpose": None, "turn": 1, "step": step, "model": "m"}
        )
        event("step/start", {"turn": 1, "step": step})
        n = min(STEP_DELTAS, events - sent, every if done < calls else STEP_DELTAS)
        for _ in range(max(0, n)):
            text = " ".join(r.choice(words) for _ in range(6)) + " "
            chunk = {"type": "reasoning-delta", "index": 0, "text": text}
            event("assistant/chunk", {"turn": 1, "step": step, "chunk": chunk})
            sent += 1
        event(
            "assistant/chunk", {"turn": 1, "step": step, "chunk": {"type": "finish", "reason": {"kind": "tool-calls"}}}
        )
        if done < calls:
            burst = 5 if done % 1000 == 0 else burst
            looping = burst > 0
            burst -= looping
            args = {"command": "cat notes.txt"} if looping else {"command": f"echo step {done} > out{done}.txt"}
            cid = f"call_{done}"
            event("tool/call", {"turn": 1, "step": step, "callId": cid, "name": "bash", "arguments": json.dumps(args)})
            ask = {"sessionId": SID, "callId": cid, "name": "bash", "args": args, "parent": False}
            rec.write("in", {"t": "verdict_request", "id": f"v{done}", **ask})
            rec.write("out", {"t": "verdict", "id": f"v{done}", "kind": "allow", "delivered": True})
            rec.write(
                "in",
                {
                    "t": "result_request",
                    "id": f"r{done}",
                    **ask,
                    "isError": False,
                    "text": "the notes\n" if looping else f"ok {done}\n",
                },
            )
            done += 1
        event("step/end", {"turn": 1, "step": step})
    event("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    rec.close()
    return rec.lines


_CHILD = """
import json, resource, sys, time
from wrapper.process.proc import peak_rss_kib
t0 = time.perf_counter()
if sys.argv[1] == "scan":
    import contextlib, io
    from wrapper.harness.registry import replayer_for
    from wrapper.records import scan
    def loads_cpu():
        c0 = time.process_time()
        with open(sys.argv[2], "rb") as f:
            for l in f:
                json.loads(l)
        return time.process_time() - c0
    # the machine's speed around the scan: json.loads of every line, in CPU seconds, just before and just
    # after it (the mean: a shared machine's speed drifts during a scan of several seconds)
    before = loads_cpu()
    out, err = io.StringIO(), io.StringIO()
    c0 = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = scan.main([sys.argv[2]], replayer_for)
    scan_cpu = time.process_time() - c0
    after = loads_cpu()
    extra = {"code": code, "integrity": next((l for l in err.getvalue().splitlines() if "integrity" in l), ""),
             "scan_cpu": scan_cpu, "loads_cpu": (before + after) / 2}
else:
    from pathlib import Path
    from wrapper.harness.registry import replayer_for
    from wrapper.records.replay import Player
    from wrapper.records.sources import load
    from wrapper.settings import Settings
    player = Player(load(Path(sys.argv[2])), Settings(), replayer_for)
    extra = {"first_items": len(player.forward(1)), "indexed": player.indexed}
seconds = time.perf_counter() - t0
u = resource.getrusage(resource.RUSAGE_SELF)
# this process's own peak: ru_maxrss is kept across exec on Linux, so a child of a large test worker
# would report the worker's peak as its own
hwm = peak_rss_kib() or u.ru_maxrss
print(json.dumps({"seconds": seconds, "cpu": u.ru_utime + u.ru_stime, "rss_mib": hwm / 1024, **extra}))
"""


def measure(what: str, path: Path) -> dict[str, Any]:
    """Run `scan` or the replay player's first frame on `path` in a fresh interpreter; its figures."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))}
    p = subprocess.run(
        [sys.executable, "-c", _CHILD, what, str(path)], capture_output=True, text=True, env=env, check=False
    )
    if p.returncode != 0:
        raise RuntimeError(f"{what} failed: {p.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(p.stdout.strip().splitlines()[-1])
    return result


def run(events: int = 1_000_000, calls: int = 10_000) -> dict[str, Any]:
    """Every measurement, as one flat dict."""
    with tempfile.TemporaryDirectory(prefix="breaker-recbench-") as d:
        path = Path(d) / "long.jsonl"
        t0 = time.perf_counter()
        records = write_recording(path, events, calls)
        written = time.perf_counter() - t0
        size = path.stat().st_size
        scan = measure("scan", path)
        first = measure("replay", path)
    return {
        "rec_events": events,
        "rec_calls": calls,
        "rec_records": records,
        "rec_file_mib": size / 2**20,
        "rec_write_seconds": written,
        "rec_scan_seconds": scan["seconds"],
        "rec_scan_cpu_seconds": scan["cpu"],
        # the scan's own CPU (no interpreter start, no imports) per record: the figure the unit test holds
        "rec_scan_cpu_us_per_record": scan["scan_cpu"] / records * 1e6,
        # ... over the CPU of json.loads of every line, timed around it: a ratio a loaded machine keeps
        "rec_scan_over_loads": scan["scan_cpu"] / scan["loads_cpu"],
        "rec_load_average": os.getloadavg()[0],
        "rec_engine_build": build_info(),
        "rec_scan_rss_mib": scan["rss_mib"],
        "rec_scan_exit": scan["code"],
        "rec_scan_integrity": scan["integrity"],
        "rec_replay_first_frame_seconds": first["seconds"],
        "rec_replay_first_frame_cpu_seconds": first["cpu"],
        "rec_replay_rss_mib": first["rss_mib"],
    }


def report(r: dict[str, Any]) -> None:
    """Print the measurements."""
    print(
        f"recording, {r['rec_events']:,} events + {r['rec_calls']:,} calls: {r['rec_records']:,} records, "
        f"{r['rec_file_mib']:.0f} MiB, written in {r['rec_write_seconds']:.1f} s"
    )
    print(
        f"  scan    {r['rec_scan_seconds']:6.1f} s ({r['rec_scan_cpu_seconds']:.1f} s CPU, "
        f"{r['rec_scan_cpu_us_per_record']:.1f} µs CPU per record past the imports, "
        f"x{r['rec_scan_over_loads']:.1f} json.loads of its lines)  "
        f"peak RSS {r['rec_scan_rss_mib']:.0f} MiB  "
        f"exit {r['rec_scan_exit']}  {r['rec_scan_integrity']}"
    )
    print(
        f"  replay  first frame after {r['rec_replay_first_frame_seconds']:.2f} s "
        f"({r['rec_replay_first_frame_cpu_seconds']:.2f} s CPU, imports included), "
        f"RSS {r['rec_replay_rss_mib']:.0f} MiB"
    )
    print(f"  engine build: {r['rec_engine_build']}; load average at the end: {r['rec_load_average']:.1f}")


def main(argv: list[str] | None = None) -> int:
    """Print the numbers (and write them to `--out`); with `--json` the last line is one JSON object."""
    ap = argparse.ArgumentParser(prog="python -m wrapper.bench.recording", description=__doc__)
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    ap.add_argument("--events", type=int, default=1_000_000, help="reasoning deltas in the recording")
    ap.add_argument("--calls", type=int, default=10_000, help="tool calls in it")
    ap.add_argument("--out", default="bench-results/recording.json", help="where to write the JSON results")
    a = ap.parse_args(argv)
    r = run(a.events, a.calls)
    report(r)
    return finish(r, a.out, a.json)


if __name__ == "__main__":
    raise SystemExit(main())
