"""The command line as a user runs it: headless runs, exit codes, scan on recordings and on dsh's logs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SHARED

pytestmark = pytest.mark.integration
CLI = [sys.executable, "-m", "tui"]


def _run(
    args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd or ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_headless_run_enforces_and_records_then_scan_reproduces_it(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("tool-loop")
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
    p = _run(["--no-tui", "--prompt", "Read notes.txt", "--", "dsh", "--profile", "dev"], env, w.workspace)
    assert p.returncode == 0, p.stderr
    denies = [ln for ln in p.stderr.splitlines() if ln.startswith("breaker: DENY")]
    assert len(denies) == 2 and "cmd:cat:cat notes.txt; echo ran >> calls.log 5/5" in denies[0]
    rec = next((tmp_path / "state" / "recordings").glob("*.jsonl"))
    assert oct(rec.stat().st_mode & 0o777) == "0o600"
    s = _run(["scan", str(rec), "--json"], env)
    assert s.returncode == 1, "a loop was found"
    verdicts = [json.loads(ln) for ln in s.stdout.splitlines()]
    assert [v["verdict"] for v in verdicts if v["kind"] == "verdict"] == ["allow"] * 4 + ["deny"] * 2
    assert "not reproduced" not in s.stderr


def test_headless_json_mode_and_approval_policy(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("dev-server-loop")
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
    p = _run(["--no-tui", "--json", "--prompt", "poll", "--", "dsh", "--profile", "dev"], env, w.workspace)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]
    assert any(ln["kind"] == "turn" for ln in lines) and any(ln["kind"] == "answer" for ln in lines)
    approvals = [ln for ln in lines if ln["kind"] == "approval"]
    assert approvals and approvals[0]["answer"] == "deny", "headless fails closed by default"
    assert approvals[0]["by"] == "policy", "the policy answered, not a person"


def test_a_plain_command_is_watched_and_interrupted_on_a_flood(tmp_path: Path) -> None:
    script = (
        "import sys, time\n"
        "while True:\n"
        "    sys.stdout.write('*** ' * 16 + '\\n'); sys.stdout.flush(); time.sleep(0.01)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "BREAKER_TUI_STATE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    p = _run(["--no-tui", "--", sys.executable, "-c", script], env, timeout=60)
    assert "TRIP output symbol-flood" in p.stderr
    assert p.returncode == 130, "the child was interrupted (SIGINT)"


def test_a_plain_command_s_long_output_is_watched_not_capped(tmp_path: Path) -> None:
    """200,000 lines (1.3 MB) of honest output: no lifetime size cap interrupts it, every line arrives."""
    env = {"PATH": "/usr/bin:/bin", "BREAKER_TUI_STATE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    p = _run(["--no-tui", "--", "seq", "1", "200000"], env, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "TRIP" not in p.stderr
    lines = p.stdout.split()
    assert len(lines) == 200000 and lines[-1] == "200000"


@pytest.mark.parametrize(
    "name", ["session.raw.jsonl", "session.headless-default.decoded.jsonl", "bridge-events.dev-runner.jsonl"]
)
def test_scan_runs_cleanly_on_the_sample_dsh_logs(name: str) -> None:
    p = _run(["scan", str(SHARED / "samples" / "dsh" / name)])
    assert p.returncode == 0, p.stdout + p.stderr
    assert "ALLOW bash" in p.stdout


def test_scan_reports_the_loop_in_the_reminder_capture_and_bad_input() -> None:
    p = _run(["scan", str(SHARED / "samples" / "dsh" / "bridge-events.loop-reminders.jsonl")])
    assert p.returncode == 1 and "DENY" in p.stdout
    bad = _run(["scan", str(SHARED / "samples" / "dsh" / "acp-exchange.cancel.jsonl")])
    assert bad.returncode == 2 and "neither a breaker-tui recording nor a dsh session log" in bad.stderr


def test_bad_config_fails_before_anything_starts(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[repeat]\nwindow = 2\n")
    p = _run(["--config", str(cfg), "--no-tui", "--", "dsh", "--profile", "dev"])
    assert p.returncode == 2
    assert "`window` must be an integer >= 4 (got 2)" in p.stderr and str(cfg) in p.stderr


def test_no_orphan_when_the_monitor_is_killed(world_factory: Any, tmp_path: Path) -> None:
    """SIGKILL the monitor itself: its dsh child must not outlive it."""
    import os
    import signal
    import time

    w = world_factory("hang")
    state = tmp_path / "state"
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    mon = subprocess.Popen(
        [*CLI, "--no-tui", "--prompt", "Think hard", "--", "dsh", "--profile", "dev"],
        cwd=w.workspace,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pid = None
    deadline = time.monotonic() + 60
    while pid is None and time.monotonic() < deadline:  # the recording names dsh's pid once the bridge says hello
        for rec in state.glob("recordings/*.jsonl"):
            for line in rec.read_text().splitlines():
                r = json.loads(line)
                if r.get("t") == "hello":
                    pid = r["pid"]
        time.sleep(0.1)
    assert pid is not None, "dsh never connected"
    os.kill(mon.pid, signal.SIGKILL)
    mon.wait(10)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            state_line = next(
                ln for ln in Path(f"/proc/{pid}/status").read_text().splitlines() if ln.startswith("State")
            )
        except (FileNotFoundError, StopIteration):
            return  # gone
        if "zombie" in state_line:
            return  # exited; only waiting for init to reap it
        time.sleep(0.1)
    os.killpg(pid, signal.SIGKILL)
    raise AssertionError(f"dsh (pid {pid}) outlived its monitor")
