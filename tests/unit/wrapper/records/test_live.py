"""A recording still being written reads as live, not damaged: the writer's lock, read by `scan` and `replay`.

The writer is a real second process holding a real Recorder open (the hook server and a monitor write theirs so),
and `breaker-tui scan` runs as a person runs it; the lock is a real flock, read back through /proc/locks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from wrapper.harness.registry import replayer_for
from wrapper.records import scan
from wrapper.records.live import writer
from wrapper.records.recorder import Recorder
from wrapper.records.sources import load

EXE = str(Path(sys.executable).parent / "breaker-tui")
WRITER = """
import sys
from pathlib import Path
from wrapper.records.recorder import Recorder

r = Recorder(Path(sys.argv[1]), {"argv": ["dsh"], "config": {}})
r.write("in", {"t": "ready", "sessionId": "s1", "provider": "p", "model": "m"})
for i in range(6):
    args = {"command": "make test"}
    r.write("in", {"t": "verdict_request", "id": f"v{i}", "sessionId": "s1", "callId": f"c{i}", "name": "bash",
                   "args": args})
    r.write("out", {"t": "verdict", "id": f"v{i}", "kind": "deny" if i >= 4 else "allow"})
print("written", flush=True)
sys.stdin.read()  # the session goes on until the test lets it end
r.close()
"""


def _scan(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EXE, "scan", str(path)], capture_output=True, text=True, timeout=120, check=False, env=os.environ.copy()
    )


def test_a_recording_another_process_writes_scans_as_live_naming_it_then_verified_once_closed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "live.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "written"
        live = _scan(path)
        assert live.returncode == scan.EXIT_UNVERIFIED, live.stderr
        assert "integrity: LIVE: still being written by python" in live.stderr
        assert f"(pid {child.pid}); the 14 records so far are intact" in live.stderr
        assert "damaged" not in live.stderr and "INCOMPLETE" not in live.stderr
        assert live.stdout.count("DENY") == 2, "the verdicts so far are scanned"
        child.stdin.close()
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
    done = _scan(path)
    assert done.returncode == scan.EXIT_FOUND, done.stderr
    assert "integrity: VERIFIED" in done.stderr


def test_an_open_recorder_reads_live_and_its_lock_goes_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = Recorder(tmp_path / "r.jsonl", {"argv": ["dsh"], "config": {}})
    r.write("in", {"t": "ready", "sessionId": "s1", "provider": "p", "model": "m"})
    who = writer(r.path)
    assert who is not None and who.endswith(f"(pid {os.getpid()})")
    loaded = load(r.path)
    check = loaded.integrity
    assert check is not None and check.status == "live" and check.unvouched and not check.lies
    assert loaded.incomplete is None and not loaded.problems
    assert scan.main([str(r.path)], replayer_for) == scan.EXIT_UNVERIFIED
    assert "the file is damaged" not in capsys.readouterr().err
    assert r._fd is not None
    os.close(r._fd)  # the writer dies: its lock goes with it, and the file is incomplete again
    r._fd = None
    assert writer(r.path) is None
    check = load(r.path).integrity
    assert check is not None and check.status == "incomplete"


def test_a_live_record_half_written_as_it_is_read_is_not_a_bad_line(tmp_path: Path) -> None:
    r = Recorder(tmp_path / "r.jsonl", {})
    r.write("in", {"t": "event"})
    assert r._fd is not None
    os.write(r._fd, b'{"at": 1, "k": "in", "t": "ev')  # the writer is between the two halves of one record
    loaded = load(r.path)
    assert loaded.integrity is not None and loaded.integrity.status == "live"
    assert loaded.incomplete is None and not loaded.problems and loaded.bad_lines == 0
    os.close(r._fd)
