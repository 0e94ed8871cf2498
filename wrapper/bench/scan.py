"""What `scan` costs on a trace, and whether its memory stays flat: `python -m wrapper.bench.scan [--json]`.

A 1,000-call trace (realistic, mostly distinct calls with their outputs and a thought before each)
is written to a temporary file and scanned as `breaker-tui scan` does it: read as a stream,
replayed through a fresh engine. Printed, not asserted: the time per call (next to the plain tool
check's, timed in the same run, since the machine's speed drifts), and the tracemalloc peak of a
100-call scan against a 1,000-call scan (flat memory: the ratio stays near 1, not near 10). Also
run by `python -m wrapper.bench`.

`--dir DIR` and `--quotes MB,...` measure the command itself, `breaker-tui scan DIR` or `scan FILE` run
as a child process, in files/s and MB/s: over a folder of session files (it judges them in parallel,
so the machine's CPU count and load, printed beside the figures, bound it), and over generated
SWE-agent trajectories whose one action is `echo a'ba'b...` of the given size (the shape whose
scan once took quadratic time). A scan that runs past `--limit` seconds is stopped and said so.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from engine.bench.calls import tool_calls
from engine.bench.core import finish, tool_speed
from engine.trace import simulate
from wrapper.records.trace_io import open_trace


def write_trace(path: Path, calls: int, thoughts: bool = True) -> int:
    """A trace of `calls` tool calls, each after a short distinct thought; returns its event count."""
    events = 0
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps({"t": "meta", "name": f"bench-{calls}"}) + "\n")
        fh.write(json.dumps({"t": "user", "text": "Work through the backlog."}) + "\n")
        events += 1
        for i, (tool, args) in enumerate(tool_calls(calls)):
            think = {"t": "think", "text": f"Step {i}: next I look at item {i * 7919 % 10007} of the backlog."}
            call: dict[str, Any] = {"t": "call", "tool": tool, "args": args, "output": f"result {i}: ok", "exit": 0}
            if thoughts:
                fh.write(json.dumps(think) + "\n")
                events += 1
            fh.write(json.dumps(call) + "\n")
            events += 1
    return events


def scan_once(path: Path) -> tuple[float, int]:
    """Seconds to read and replay the trace, and how many interventions it produced."""
    t0 = time.perf_counter()
    with open_trace(path) as t:
        found = simulate(t.meta, t.events)
    return time.perf_counter() - t0, len(found)


def read_once(path: Path) -> float:
    """Seconds to read and validate the trace alone (no replay)."""
    t0 = time.perf_counter()
    with open_trace(path) as t:
        for _ in t.events:
            pass
    return time.perf_counter() - t0


def scan_peak(path: Path) -> float:
    """tracemalloc peak (MiB) of one scan of `path`."""
    tracemalloc.start()
    try:
        scan_once(path)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def run(calls: int = 1000) -> dict[str, float]:
    """Every measurement, as one flat dict."""
    with tempfile.TemporaryDirectory(prefix="breaker-scanbench-") as d:
        big, small, bare = Path(d) / "big.jsonl", Path(d) / "small.jsonl", Path(d) / "bare.jsonl"
        events = write_trace(big, calls)
        write_trace(small, max(1, calls // 10))
        write_trace(bare, calls, thoughts=False)
        scan_once(big)  # warm caches and imports
        best, found = min(scan_once(big) for _ in range(3))
        bare_best = min(scan_once(bare)[0] for _ in range(3))
        read_best = min(read_once(big) for _ in range(3))
        peak_small, peak_big = scan_peak(small), scan_peak(big)
        size = big.stat().st_size
    tool = tool_speed(5000)
    per_call_us = best / calls * 1e6
    return {
        "scan_calls": calls,
        "scan_events": events,
        "scan_file_bytes": size,
        "scan_seconds": best,
        "scan_interventions": found,
        "scan_us_per_call": per_call_us,
        "scan_us_per_event": best / events * 1e6,
        "read_us_per_event": read_best / events * 1e6,
        "scan_us_per_call_calls_only": bare_best / calls * 1e6,
        "tool_check_p50_us": tool["p50_us"],
        "scan_per_call_over_tool_check_p50": per_call_us / tool["p50_us"],
        "scan_calls_only_over_tool_check_p50": bare_best / calls * 1e6 / tool["p50_us"],
        "scan_peak_mib_small": peak_small,
        "scan_peak_mib_big": peak_big,
        "scan_peak_ratio_big_over_small": peak_big / peak_small if peak_small else 0.0,
    }


_SCAN_CLI = "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))"


def machine() -> str:
    """The machine's CPU count and load averages (1, 5, 15 minutes), to print beside a throughput."""
    one, five, fifteen = os.getloadavg()
    return f"{os.cpu_count()} CPUs, load {one:.1f} {five:.1f} {fifteen:.1f}"


def session_files(path: Path) -> list[Path]:
    """The files `scan DIR` judges (or the one file given)."""
    if path.is_file():
        return [path]
    suffixes = (".jsonl", ".json", ".traj", ".zst", ".zstd")
    return sorted(f for f in path.rglob("*") if f.suffix in suffixes and f.is_file() and not f.is_symlink())


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def scan_command(path: Path, limit: float) -> tuple[float, float] | None:
    """Wall and CPU seconds of `breaker-tui scan PATH` in a child process (output discarded), None past `limit`.

    The CPU seconds are the child's and its workers' (a loaded machine stretches the wall time more).
    """
    t0, c0 = time.perf_counter(), _children_cpu()
    try:
        subprocess.run(
            [sys.executable, "-c", _SCAN_CLI, "scan", str(path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - t0, _children_cpu() - c0


def throughput(name: str, path: Path, limit: float) -> dict[str, Any]:
    """One `scan` of `path`: its files, bytes, seconds, files/s and MB/s, and the machine around it."""
    files = session_files(path)
    size = sum(f.stat().st_size for f in files)
    load_before = os.getloadavg()[0]
    timed = scan_command(path, limit)
    seconds, cpu = timed if timed is not None else (None, None)
    return {
        "name": name,
        "files": len(files),
        "bytes": size,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "files_per_s": len(files) / seconds if seconds else None,
        "mb_per_s": size / 1e6 / seconds if seconds else None,
        "mb_per_cpu_s": size / 1e6 / cpu if cpu else None,
        "cpus": os.cpu_count(),
        "load_1m": (load_before + os.getloadavg()[0]) / 2,
    }


def write_quote_heavy(path: Path, megabytes: float) -> None:
    """A SWE-agent trajectory of one step whose action is `echo a'ba'b...`, about `megabytes` MB long."""
    action = "echo " + "a'b" * int(megabytes * 1e6 / 3)
    step = {"thought": "write the file", "action": action, "observation": "ok"}
    path.write_text(json.dumps({"trajectory": [step], "history": [{"role": "user", "content": "task"}]}))


def throughputs(folder: Path | None, quote_mb: list[float], limit: float) -> list[dict[str, Any]]:
    """`scan` throughput over `folder` (when given) and over a quote-heavy trajectory of each size."""
    rows = []
    if folder is not None:
        rows.append(throughput(f"scan {folder}", folder, limit))
    with tempfile.TemporaryDirectory(prefix="breaker-scanbench-") as d:
        if quote_mb:  # what any scan costs: the interpreter, the imports, a one-step file
            tiny = Path(d) / "tiny.traj"
            write_quote_heavy(tiny, 0.0)
            rows.append(throughput("scan, one tiny SWE-agent action (the start-up cost)", tiny, limit))
        for mb in quote_mb:
            p = Path(d) / f"quotes-{mb:g}mb.traj"
            write_quote_heavy(p, mb)
            rows.append(throughput(f"scan, one {mb:g} MB quote-heavy SWE-agent action", p, limit))
            p.unlink()
    return rows


def report_throughputs(rows: list[dict[str, Any]], limit: float) -> None:
    """Print one line per measured scan, with the machine's CPU count and load."""
    for r in rows:
        where = f"{r['files']} files, {r['bytes'] / 1e6:.1f} MB"
        if r["seconds"] is None:
            print(f"{r['name']}: did not finish in {limit:g} s ({where}; {r['cpus']} CPUs, load {r['load_1m']:.1f})")
            continue
        print(
            f"{r['name']}: {r['seconds']:.2f} s ({r['cpu_seconds']:.2f} CPU s), {r['files_per_s']:.3g} files/s, "
            f"{r['mb_per_s']:.3g} MB/s, {r['mb_per_cpu_s']:.3g} MB per CPU s "
            f"({where}; {r['cpus']} CPUs, load {r['load_1m']:.1f})"
        )


def report(r: dict[str, float]) -> None:
    """Print the measurements."""
    print(
        f"scan, {r['scan_calls']:.0f}-call trace   {r['scan_seconds'] * 1000:8.1f} ms  "
        f"({r['scan_events']:.0f} events, {r['scan_file_bytes'] / 1024:.0f} KiB, {r['scan_interventions']:.0f} found)  "
        f"{r['scan_us_per_call']:.0f} us/call, {r['scan_us_per_event']:.0f} us/event "
        f"(of which reading and validating {r['read_us_per_event']:.0f} us/event)"
    )
    print(
        f"  per call vs tool check p50 {r['tool_check_p50_us']:.1f} us: "
        f"{r['scan_per_call_over_tool_check_p50']:.1f}x (reading, JSON, the reasoning lenses and the result included); "
        f"a calls-only trace {r['scan_us_per_call_calls_only']:.0f} us/call, "
        f"{r['scan_calls_only_over_tool_check_p50']:.1f}x"
    )
    print(
        f"scan memory           peak {r['scan_peak_mib_small']:.2f} MiB at {r['scan_calls'] / 10:.0f} calls, "
        f"{r['scan_peak_mib_big']:.2f} MiB at {r['scan_calls']:.0f} calls "
        f"(ratio {r['scan_peak_ratio_big_over_small']:.2f}; flat is ~1, linear would be ~10)"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the numbers (and write them to `--out`); with `--json` the last line is one JSON object."""
    ap = argparse.ArgumentParser(prog="python -m wrapper.bench.scan", description=__doc__)
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    ap.add_argument("--calls", type=int, default=1000, help="calls in the big trace (the small one has a tenth)")
    ap.add_argument("--out", default="bench-results/scan.json", help="where to write the JSON results")
    ap.add_argument("--dir", type=Path, help="also time `breaker-tui scan DIR` over this folder (files/s, MB/s)")
    ap.add_argument(
        "--quotes",
        default="",
        metavar="MB,...",
        help="also time `scan` of a generated quote-heavy SWE-agent action of each size (e.g. 0.3,1.2,9)",
    )
    ap.add_argument("--limit", type=float, default=600.0, help="seconds after which a timed scan is stopped")
    ap.add_argument("--throughput-only", action="store_true", help="skip the 1,000-call trace measurements")
    a = ap.parse_args(argv)
    if a.dir is not None and not a.dir.exists():
        ap.error(f"--dir {a.dir}: no such file or folder")
    try:
        quote_mb = [float(x) for x in a.quotes.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--quotes {a.quotes!r}: give sizes in MB separated by commas, e.g. 0.3,1.2,9")
    r: dict[str, Any] = {} if a.throughput_only else dict(run(a.calls))
    if not a.throughput_only:
        report(r)
    if a.dir is not None or quote_mb:
        print(f"scan throughput on {machine()}")
        rows = throughputs(a.dir, quote_mb, a.limit)
        report_throughputs(rows, a.limit)
        r["throughput"] = rows
    return finish(r, a.out, a.json)


if __name__ == "__main__":
    raise SystemExit(main())
