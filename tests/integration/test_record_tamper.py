"""The monitored command deletes or forges its own session's recording, end to end.

The real `breaker-tui --no-tui` runs a real child on a real pty; the child does what the report's tool
calls did (`rm` the newest recording; replace it with its first line and an end marker). Before the fix
the exit line named the missing file as the session's record and `scan` passed the forgery clean (exit 0).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration
NEWEST = 'R=$(ls -t "$BREAKER_TUI_STATE_DIR"/recordings/*.jsonl | head -1); '
FORGE = (
    NEWEST
    + 'head -1 "$R" > "$R.new"; printf \'{"at": 1, "k": "end", "complete": true}\\n\' >> "$R.new"; mv "$R.new" "$R"'
)


def _run(args: list[str], state: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BREAKER_TUI_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "tui", *args], env=env, capture_output=True, text=True, timeout=120)


def test_a_deleted_recording_is_not_named_as_the_record(tmp_path: Path) -> None:
    p = _run(["--no-tui", "--", "sh", "-c", NEWEST + 'rm -f "$R"; echo gone'], tmp_path)
    assert "the recording was deleted during the session" in p.stderr, p.stderr
    exit_line = p.stderr.strip().splitlines()[-1]
    assert exit_line.startswith("breaker-tui: recording NOT KEPT"), exit_line
    assert "breaker-tui: recording: " not in p.stderr


def test_a_forged_recording_fails_scan_with_its_own_status(tmp_path: Path) -> None:
    p = _run(["--no-tui", "--", "sh", "-c", FORGE + "; echo forged"], tmp_path)
    assert "the recording was replaced by another file during the session" in p.stderr, p.stderr
    (forged,) = (tmp_path / "recordings").glob("*.jsonl")
    s = _run(["scan", str(forged)], tmp_path)
    assert s.returncode == 4, s.stderr
    assert f"{forged}:2: the recording is EDITED" in s.stderr, s.stderr  # the real first line, then the chain breaks


def test_an_untouched_recording_is_verified(tmp_path: Path) -> None:
    p = _run(["--no-tui", "--", "echo", "hi"], tmp_path)
    (rec,) = (tmp_path / "recordings").glob("*.jsonl")
    assert f"breaker-tui: recording: {rec}" in p.stderr and "(digest " in p.stderr
    digest = p.stderr.split("(digest ")[1][:16]
    s = _run(["scan", str(rec)], tmp_path)
    assert s.returncode == 0 and "integrity: VERIFIED" in s.stderr and digest in s.stderr, s.stderr
