"""Start-up time of the command, beside Toad's and the interpreter's: `python -m tui.benchstart`.

A person judges a terminal tool first by how soon it answers: `--version` and `--help` at once, the
screen well under two seconds. This times, in fresh processes, `python -c pass` (the floor: the
interpreter alone), `breaker-tui --version`, `--help`, and the start of `breaker-tui -- sh -c 'sleep
N'` in a real pseudo-terminal: the first word (the `starting …` line, printed before the screen's
libraries load) and the first screen (the screen's first frame, which ends with the footer's quit
key). Toad, another Textual program for agents, is timed the same way, turn about with the monitor so
the load moves both alike: `toad --version`, `python -c pass` on Toad's own interpreter, and Toad's
first screen with no agent chosen (its agent launcher, whose first frame ends with the footer's
command-palette key). Toad runs from `$BREAKER_BENCH_TOAD_PYTHON` when that interpreter has it, else
from a virtual environment kept outside the checkout (`~/.cache/breaker-tui/bench-toad`, made on the
first run; skipped, with the reason, when it cannot be installed), always with a scratch home, its
usage statistics off and every proxy pointed at a closed local port, so it writes nothing into the
person's home and reaches no network. Each figure is the median of `--runs`, given with its ratio to
`python -c pass`, the monitor's with its ratio to Toad's, and the load average beside them, because on
a shared machine the load moves every absolute figure.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
FIRST_SCREEN = b"^q quit"  # the footer's first key: drawn by the first frame of the live screen
# the last key of Toad's footer: its launcher's first frame (no agent chosen) is written top to bottom
# in one go and ends with the footer, so this marks that frame as drawn whole (Toad 0.6)
TOAD_FIRST_SCREEN = b"^p palette"
FIRST_WORD = b"starting"  # the line printed before the screen's libraries are loaded
ALT_SCREEN = b"\x1b[?1049h"  # a full-screen program takes the alternate screen before its first frame
FRAME_TEXT = 100  # visible characters on the alternate screen that make a frame (not a cursor move)
SCREEN_TIMEOUT_S = 60.0
TOAD = "batrachian-toad==0.6.20"
TOAD_PYTHON = (3, 14)  # Toad's Requires-Python
TOAD_HOME = Path.home() / ".cache" / "breaker-tui" / "bench-toad"
NOWHERE = "http://127.0.0.1:9"  # a closed local port: Toad's version check and statistics fail at once
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tui", *args]


def time_process(argv: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from starting `argv` (its output thrown away) until it has exited."""
    t0 = time.perf_counter()
    subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env, check=False
    )
    return time.perf_counter() - t0


def _screen_text(raw: bytes) -> bytes:
    return ANSI.sub(b"", raw)


def _own_terminal() -> None:
    """In the child: a session of its own, with the pseudo-terminal (its stdin) as the controlling terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Watch:
    """What a started program has written on its terminal, and when each sign of a screen came."""

    def __init__(self, marker: bytes | None) -> None:
        self.marker = marker
        self.seen = b""
        self.word = 0.0  # the `starting …` line
        self.marked = 0.0  # `marker` on the screen
        self.frame = 0.0  # a frame's worth of text on the alternate screen

    def take(self, chunk: bytes, at: float) -> None:
        """One read from the terminal, at `at` seconds after the start."""
        self.seen += chunk
        if not self.word and FIRST_WORD in self.seen:
            self.word = at
        if self.marker is not None and not self.marked and self.marker in _screen_text(self.seen):
            self.marked = at
        alt = self.seen.find(ALT_SCREEN)
        if not self.frame and alt >= 0 and len(_screen_text(self.seen[alt:]).strip()) >= FRAME_TEXT:
            self.frame = at

    def done(self) -> bool:
        """Whether the first screen is up: a frame drawn (and the marker, if there is one, shown)."""
        return bool(self.frame) and (self.marker is None or bool(self.marked))


def time_start(
    argv: list[str], size: tuple[int, int] = (80, 24), env: dict[str, str] | None = None, marker: bytes | None = None
) -> tuple[float, float, float]:
    """Start `argv` in a pseudo-terminal: seconds to the `starting` word, to `marker`, and to the first frame.

    The first frame is the moment the alternate screen holds a frame's worth of text (Textual writes
    a frame in one go). 0 for a sign that never came.
    """
    master, slave = pty.openpty()
    cols, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, preexec_fn=_own_terminal, env=env, close_fds=True
    )
    os.close(slave)
    watch = Watch(marker)
    try:
        while time.perf_counter() - t0 < SCREEN_TIMEOUT_S and not watch.done():
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the process ended and closed the terminal
                break
            watch.take(chunk, time.perf_counter() - t0)
        if not watch.done():
            shown = _screen_text(watch.seen)[-400:]
            raise RuntimeError(f"no first screen within {SCREEN_TIMEOUT_S:g} s; it printed: {shown!r}")
        return watch.word, watch.marked, watch.frame
    finally:
        _stop(proc)
        os.close(master)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with _quiet():
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        with _quiet():
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


class _quiet:
    """Suppress the process-already-gone errors of cleaning up."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return exc[0] is not None and issubclass(exc[0], (ProcessLookupError, PermissionError))  # type: ignore[arg-type]


class Toad(NamedTuple):
    """How Toad is started, and the interpreter it runs on (whose `python -c pass` is its floor)."""

    command: list[str]
    python: str


def _runs_toad(python: str) -> bool:
    """Whether `python` has Toad installed."""
    probe = [python, "-c", "import importlib.metadata as m; m.version('batrachian-toad')"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def _toad_python() -> str | None:
    """An interpreter Toad runs on: `$BREAKER_BENCH_TOAD_PYTHON`, else python3.14 or newer on PATH."""
    names = [os.environ.get("BREAKER_BENCH_TOAD_PYTHON", ""), "python3.16", "python3.15", "python3.14", "python3"]
    for name in filter(None, names):
        exe = shutil.which(name)
        if exe is None:
            continue
        probe = subprocess.run(
            [exe, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True, check=False
        )
        got = tuple(int(n) for n in probe.stdout.split()) if probe.returncode == 0 else ()
        if got >= TOAD_PYTHON:
            return exe
    return None


def _given_toad() -> Toad | None:
    """Toad from `$BREAKER_BENCH_TOAD_PYTHON` when that interpreter has it: the `toad` script beside it."""
    given = os.environ.get("BREAKER_BENCH_TOAD_PYTHON", "")
    exe = shutil.which(given) if given else None
    if exe is None or not _runs_toad(exe):
        return None
    script = Path(exe).parent / "toad"
    return Toad([str(script)] if script.exists() else [exe, "-m", "toad"], exe)


def toad_command(say: Callable[[str], None] = print) -> tuple[Toad | None, str]:
    """Toad from the interpreter given, else from its cached virtual environment (made on the first run), or why not."""
    given = _given_toad()
    if given is not None:
        return given, ""
    toad, python = TOAD_HOME / "bin" / "toad", TOAD_HOME / "bin" / "python"
    if toad.exists():
        return Toad([str(toad)], str(python)), ""
    base = _toad_python()
    if base is None:
        need = ".".join(map(str, TOAD_PYTHON))
        return None, (
            f"{TOAD} needs Python >= {need} and none is on PATH (set BREAKER_BENCH_TOAD_PYTHON to one to time it)"
        )
    say(f"installing {TOAD} into {TOAD_HOME} (once)…")
    shutil.rmtree(TOAD_HOME, ignore_errors=True)
    steps = ([base, "-m", "venv", str(TOAD_HOME)], [str(TOAD_HOME / "bin" / "pip"), "install", "-q", TOAD])
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            shutil.rmtree(TOAD_HOME, ignore_errors=True)
            return None, f"could not install {TOAD}: {(done.stderr or done.stdout).strip().splitlines()[-1:]}"
    return (Toad([str(toad)], str(python)), "") if toad.exists() else (None, f"{TOAD} installed no `toad` command")


def versions(python: str) -> str:
    """`Python X.Y.Z, batrachian-toad V` of an interpreter (`?` for a Toad it lacks)."""
    code = (
        "import importlib.metadata as m, platform\n"
        "try:\n    v = m.version('batrachian-toad')\nexcept m.PackageNotFoundError:\n    v = '?'\n"
        "print(f'Python {platform.python_version()}, batrachian-toad {v}')"
    )
    probe = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return probe.stdout.strip() or f"{python}: {probe.stderr.strip()[-200:]}"


def median(run: Callable[[], float], runs: int) -> float:
    """The median of `runs` timings of `run`."""
    return statistics.median(run() for _ in range(runs))


def turn_about(timers: dict[str, Callable[[], float]], runs: int) -> dict[str, float]:
    """The median of `runs` timings of each timer, the timers taking turns so the load moves all alike."""
    got: dict[str, list[float]] = {name: [] for name in timers}
    for _ in range(runs):
        for name, timer in timers.items():
            got[name].append(timer())
    return {name: statistics.median(times) for name, times in got.items()}


def turn_ratio(ours: list[float], theirs: list[float]) -> float:
    """The median of each turn's ratio: a turn's two starts share a minute of the machine, whose speed
    drifts from minute to minute, so their ratio moves less than the ratio of the two medians.
    """
    return statistics.median(a / b for a, b in zip(ours, theirs, strict=True))


def _scratch_env(scratch: Path) -> dict[str, str]:
    """The environment of a timed start: a scratch config and state folder keep the person's out of it."""
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(scratch / "state"),
        "XDG_CONFIG_HOME": str(scratch / "config"),
        "XDG_DATA_HOME": str(scratch / "data"),
        "TERM": "xterm-256color",
    }
    env.pop("BREAKER_TUI_CONFIG", None)
    # an installed copy has its bytecode compiled (pip does it); a checkout run with this set compiles
    # every module from source at each start, a tenth of a second of CPU that no user pays
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def toad_env(env: dict[str, str], scratch: Path) -> dict[str, str]:
    """Toad's environment: a home and XDG folders of its own in `scratch`, no statistics, no network.

    Toad posts a usage event at start unless its settings say no, and asks its site for a newer
    version a second after its screen is up; the settings file turns the first off and the proxies,
    all pointed at a closed local port, make any request fail at once.
    """
    home = scratch / "toad"
    out = {
        **env,
        "HOME": str(home / "home"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_DATA_HOME": str(home / "data"),
        **dict.fromkeys(PROXIES, NOWHERE),
    }
    out.pop("NO_PROXY", None)
    out.pop("no_proxy", None)
    settings = home / "config" / "toad" / "toad.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    (home / "home").mkdir(exist_ok=True)
    settings.write_text(json.dumps({"statistics": {"allow_collect": False}}))
    return out


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def measure(runs: int, size: tuple[int, int], toad: Toad | None = None) -> dict[str, float]:
    """Every figure once per run, medians; the monitor and Toad started turn about, so the load moves both alike."""
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / f"breaker-benchstart-{os.getpid()}"
    scratch.mkdir(exist_ok=True)
    env = _scratch_env(scratch)
    out = {"load_1m_before": os.getloadavg()[0]}
    start = _command("--", "sh", "-c", "sleep 30")
    # not counted: these write the bytecode of what the screens import, and Toad its settings and database
    time_start(start, size, env, FIRST_SCREEN)
    timers: dict[str, Callable[[], float]] = {
        "python_pass_s": lambda: time_process([sys.executable, "-c", "pass"], env),
        "version_s": lambda: time_process(_command("--version"), env),
        "help_s": lambda: time_process(_command("--help"), env),
    }
    if toad is not None:
        t_env = toad_env(env, scratch)
        time_start(toad.command, size, t_env, TOAD_FIRST_SCREEN)
        timers["toad_python_pass_s"] = lambda: time_process([toad.python, "-c", "pass"], t_env)
        timers["toad_version_s"] = lambda: time_process([*toad.command, "--version"], t_env)
    out |= turn_about(timers, runs)
    ours: list[tuple[float, float, float]] = []
    theirs: list[tuple[float, float, float]] = []
    for _ in range(runs):
        ours.append(time_start(start, size, env, FIRST_SCREEN))
        if toad is not None:
            theirs.append(time_start(toad.command, size, t_env, TOAD_FIRST_SCREEN))
    out["first_word_s"] = statistics.median(w for w, _, _ in ours)
    out["first_screen_s"] = statistics.median(m for _, m, _ in ours)
    out["first_frame_s"] = statistics.median(f for _, _, f in ours)
    if theirs:
        out["toad_first_screen_s"] = statistics.median(m for _, m, _ in theirs)
        out["first_screen_per_toad"] = turn_ratio([m for _, m, _ in ours], [m for _, m, _ in theirs])
        out["toad_first_frame_s"] = statistics.median(f for _, _, f in theirs)
    out["load_1m_after"] = os.getloadavg()[0]
    shutil.rmtree(scratch, ignore_errors=True)
    return out


# (key, label, the floor it is divided by, the Toad figure it is compared with, target in seconds)
ROWS = (
    ("python_pass_s", "python -c pass", None, None, None),
    ("toad_python_pass_s", "python -c pass (Toad's Python)", None, None, None),
    ("version_s", "breaker-tui --version", "python_pass_s", "toad_version_s", 0.3),
    ("toad_version_s", "Toad --version", "toad_python_pass_s", None, None),
    ("help_s", "breaker-tui --help", "python_pass_s", None, 0.3),
    ("first_word_s", "first word (starting …)", "python_pass_s", None, 0.3),
    ("first_screen_s", "first screen {size} (^q quit)", "python_pass_s", "toad_first_screen_s", 1.5),
    ("first_frame_s", "first frame {size}", "python_pass_s", "toad_first_frame_s", 1.5),
    ("toad_first_screen_s", "Toad first screen {size} (^p palette)", "toad_python_pass_s", None, None),
    ("toad_first_frame_s", "Toad first frame {size}", "toad_python_pass_s", None, None),
)


def _row(r: dict[str, float], key: str, label: str, floor: str | None, toad: str | None, target: float | None) -> str:
    cells = [f"{label:38} {r[key] * 1000:7.0f} ms"]
    if floor is not None and r.get(floor):
        cells.append(f"{r[key] / r[floor]:6.1f}x python -c pass")
    if toad is not None and r.get(toad):
        cells.append(f"{r[key] / r[toad]:5.2f}x Toad")
    if target is not None:
        cells.append(f"(target < {target:g} s: {'met' if r[key] < target else 'NOT met'})")
    return "  ".join(cells)


def report(r: dict[str, float], size: str, load: str = "") -> list[str]:
    """The figures: each with its ratio to its own interpreter's `python -c pass`, the monitor's also to Toad's.

    `load` is the 1, 5 and 15 minute load averages when the figures were taken (`uptime`'s).
    """
    loads = f"{r['load_1m_before']:.2f} before, {r['load_1m_after']:.2f} after ({os.cpu_count()} cores)"
    lines = [f"load     average {loads}" + (f"; 1, 5, 15 min at the end: {load}" if load else "")]
    for key, label, floor, toad, target in ROWS:
        if key in r:
            lines.append(_row(r, key, label.format(size=size), floor, toad, target))
    if "first_screen_per_toad" in r:
        lines.append(f"breaker-tui / Toad, first screen, turn by turn (median): {r['first_screen_per_toad']:.2f}x")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the figures, their ratios to `python -c pass` and to Toad's, and the load."""
    ap = argparse.ArgumentParser(prog="python -m tui.benchstart", description=__doc__)
    ap.add_argument("--runs", type=int, default=5, help="median of this many runs (default 5)")
    ap.add_argument("--size", default="80x24", help="terminal columns x rows for the first screen")
    ap.add_argument("--no-toad", action="store_true", help="do not time Toad (nor install it)")
    a = ap.parse_args(argv)
    cols, rows = (int(n) for n in a.size.lower().split("x"))
    toad, why = (None, "--no-toad") if a.no_toad else toad_command()
    print(f"breaker-tui: {versions(sys.executable).split(',')[0]}")
    print(f"Toad: {versions(toad.python)} ({' '.join(toad.command)})" if toad else f"Toad: skipped: {why}")
    print(f"load average 1, 5, 15 min at the start: {_load()}")
    r = measure(a.runs, (cols, rows), toad)
    print("\n".join(report(r, f"{cols}x{rows}", _load())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
