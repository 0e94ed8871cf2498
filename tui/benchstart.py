"""Start-up time of the command: `python -m tui.benchstart`.

A person judges a terminal tool first by how soon it answers: `--version` and `--help` at once, the
screen well under two seconds. This times, in fresh processes, `python -c pass` (the floor: the
interpreter alone), `breaker-tui --version`, `--help`, and the start of `breaker-tui -- sh -c 'sleep
N'` in a real pseudo-terminal: the first word (the `starting …` line, printed before the screen's
libraries load) and the first screen (the screen's first frame, which ends with the footer's quit
key). Each figure is the median of `--runs`, with its ratio to `python -c pass` and the load average,
because on a shared machine the load moves every absolute figure.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
FIRST_SCREEN = b"^q quit"  # the footer's first key: drawn by the first frame of the live screen
FIRST_WORD = b"starting"  # the line printed before the screen's libraries are loaded
SCREEN_TIMEOUT_S = 60.0


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tui", *args]


def time_process(argv: list[str]) -> float:
    """Seconds from starting `argv` (its output thrown away) until it has exited."""
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def _screen_text(raw: bytes) -> bytes:
    return ANSI.sub(b"", raw)


def _own_terminal() -> None:
    """In the child: a session of its own, with the pseudo-terminal (its stdin) as the controlling terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def time_start(
    argv: list[str], size: tuple[int, int] = (80, 24), env: dict[str, str] | None = None
) -> tuple[float, float]:
    """Seconds from starting `argv` in a pseudo-terminal until `FIRST_WORD`, then `FIRST_SCREEN`, is on it."""
    master, slave = pty.openpty()
    cols, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, preexec_fn=_own_terminal, env=env, close_fds=True
    )
    os.close(slave)
    seen = b""
    word = 0.0
    try:
        while time.perf_counter() - t0 < SCREEN_TIMEOUT_S:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the process ended and closed the terminal
                break
            seen += chunk
            if not word and FIRST_WORD in seen:
                word = time.perf_counter() - t0
            if FIRST_SCREEN in _screen_text(seen):
                return word, time.perf_counter() - t0
        raise RuntimeError(f"no first screen within {SCREEN_TIMEOUT_S:g} s; it printed: {_screen_text(seen)[-400:]!r}")
    finally:
        with _quiet():
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with _quiet():
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)


class _quiet:
    """Suppress the process-already-gone errors of cleaning up."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return exc[0] is not None and issubclass(exc[0], (ProcessLookupError, PermissionError))  # type: ignore[arg-type]


def _start_medians(runs: int, size: tuple[int, int], env: dict[str, str]) -> dict[str, float]:
    starts = [time_start(_command("--", "sh", "-c", "sleep 30"), size, env) for _ in range(runs)]
    return {
        "first_word_s": statistics.median(w for w, _ in starts),
        "first_screen_s": statistics.median(s for _, s in starts),
    }


def median(run: Callable[[], float], runs: int) -> float:
    """The median of `runs` timings of `run`."""
    return statistics.median(run() for _ in range(runs))


def measure(runs: int, size: tuple[int, int]) -> dict[str, float]:
    """Every figure once per run, medians; a scratch config and state folder keep the person's out of it."""
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / f"breaker-benchstart-{os.getpid()}"
    scratch.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(scratch / "state"),
        "XDG_CONFIG_HOME": str(scratch / "config"),
        "TERM": "xterm-256color",
    }
    env.pop("BREAKER_TUI_CONFIG", None)
    out = {
        "load_1m_before": os.getloadavg()[0],
        "python_pass_s": median(lambda: time_process([sys.executable, "-c", "pass"]), runs),
        "version_s": median(lambda: time_process(_command("--version")), runs),
        "help_s": median(lambda: time_process(_command("--help")), runs),
        **_start_medians(runs, size, env),
        "load_1m_after": os.getloadavg()[0],
    }
    import shutil

    shutil.rmtree(scratch, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the figures, their ratios to `python -c pass` and the load."""
    ap = argparse.ArgumentParser(prog="python -m tui.benchstart", description=__doc__)
    ap.add_argument("--runs", type=int, default=5, help="median of this many runs (default 5)")
    ap.add_argument("--size", default="80x24", help="terminal columns x rows for the first screen")
    a = ap.parse_args(argv)
    cols, rows = (int(n) for n in a.size.lower().split("x"))
    r = measure(a.runs, (cols, rows))
    floor = r["python_pass_s"]
    print(f"load     average {r['load_1m_before']:.2f} before, {r['load_1m_after']:.2f} after ({os.cpu_count()} cores)")
    for key, label, target in (
        ("python_pass_s", "python -c pass", None),
        ("version_s", "breaker-tui --version", 0.3),
        ("help_s", "breaker-tui --help", 0.3),
        ("first_word_s", "first word (starting …)", 0.3),
        ("first_screen_s", f"first screen {cols}x{rows}", 1.5),
    ):
        goal = f"  (target < {target:g} s: {'met' if r[key] < target else 'NOT met'})" if target else ""
        print(f"{label:24} {r[key] * 1000:7.0f} ms  {r[key] / floor:6.1f}x python -c pass{goal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
