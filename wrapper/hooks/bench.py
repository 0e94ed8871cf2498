"""Benchmark: the hook round trip an agent pays before every tool call, process start included.

`python -m wrapper.hooks.bench [--calls N]` starts a private `breaker-tui serve`, warms it, then runs
the hook command `hooks install` writes N times as Claude Code would (a new process each time, the
payload on stdin) and prints p50/p99 with the machine's load; `--alias` times `breaker-tui hook claude`
instead, the same hook behind breaker-tui's own command line. It also prints the socket round trip alone, so the cost of
starting the process is visible. Target: p99 <= 50 ms with the server warm.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_P99_MS = 50.0


def payload(n: int) -> bytes:
    """A Claude PreToolUse payload for a distinct shell call (so every call is judged and allowed)."""
    return json.dumps(
        {
            "session_id": "bench-session",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": f"echo step {n}", "description": "bench"},
            "tool_use_id": f"toolu_{n}",
            "cwd": "/tmp",
        }
    ).encode()


def pct(xs: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(prog="python -m wrapper.hooks.bench", description=__doc__)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--warm", type=int, default=20)
    ap.add_argument("--alias", action="store_true", help="time `breaker-tui hook claude` instead")
    a = ap.parse_args(argv)
    from wrapper.hooks.install import launcher

    exe = shutil.which("breaker-tui") or str(Path(sys.executable).parent / "breaker-tui")
    cmd = [exe, "hook", "claude"] if a.alias else [*launcher(), "claude"]
    tmp = Path(tempfile.mkdtemp(prefix="bkb-", dir="/tmp"))
    (tmp / "none.toml").write_text("")  # a named config must exist: empty is all defaults
    env = {
        **os.environ,
        "BREAKER_TUI_RUN_DIR": str(tmp / "run"),
        "BREAKER_TUI_STATE_DIR": str(tmp / "state"),
        "BREAKER_TUI_CONFIG": str(tmp / "none.toml"),
    }
    os.environ.update({k: env[k] for k in ("BREAKER_TUI_RUN_DIR", "BREAKER_TUI_STATE_DIR", "BREAKER_TUI_CONFIG")})
    from wrapper.hooks.client import ask_server

    try:
        for n in range(a.warm):  # the first call starts the server; the rest warm it
            subprocess.run(cmd, input=payload(n), env=env, capture_output=True, check=True)
        whole, sock = [], []
        for n in range(a.warm, a.warm + a.calls):
            t0 = time.perf_counter()
            p = subprocess.run(cmd, input=payload(n), env=env, capture_output=True, check=True)
            whole.append((time.perf_counter() - t0) * 1000)
            if p.stderr:
                print(f"hook said: {p.stderr.decode()[:200]}", file=sys.stderr)
            t0 = time.perf_counter()
            ask_server("claude", payload(10**6 + n), start=False)
            sock.append((time.perf_counter() - t0) * 1000)
        bare = []
        for _ in range(min(a.calls, 50)):  # the floor: starting this Python and doing nothing
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)
            bare.append((time.perf_counter() - t0) * 1000)
        load = os.getloadavg()
        print(f"machine: {os.cpu_count()} cpus, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        print(f"hook round trip, process start included ({a.calls} calls, server warm): {shlex.join(cmd)}")
        print(f"  p50 {statistics.median(whole):.1f} ms  p99 {pct(whole, 99):.1f} ms  max {max(whole):.1f} ms")
        print(f"python -I -S -c pass (the floor): p50 {statistics.median(bare):.1f} ms  p99 {pct(bare, 99):.1f} ms")
        print(f"socket round trip alone: p50 {statistics.median(sock):.2f} ms  p99 {pct(sock, 99):.2f} ms")
        verdict = "met" if pct(whole, 99) <= TARGET_P99_MS else "NOT met"
        print(f"target p99 <= {TARGET_P99_MS:g} ms: {verdict}")
    finally:
        pidfile = tmp / "run" / "serve.pid"
        if pidfile.exists():
            os.kill(int(pidfile.read_text()), signal.SIGTERM)
            deadline = time.monotonic() + 30
            while pidfile.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
