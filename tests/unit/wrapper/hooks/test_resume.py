"""A server that dies mid-session: the next one rebuilds the session's engine from its recording.

Real hook processes and real servers (the second started on demand by the next hook after the first
was killed with SIGKILL): the repeats are counted across the restart as if nothing had happened.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.wrapper.hooks.test_hooks_roundtrip import EXE, Home, _alive, sample, verdict
from wrapper.hooks import resume
from wrapper.hooks.sessions import Sessions
from wrapper.settings import Settings


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    h = Home(tmp_path)
    try:
        yield h
    finally:
        h.stop()
        subprocess.run(["rm", "-rf", str(h.run_dir)], check=False)


def kill(home: Home) -> None:
    pid = home.pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # no cleanup: no end record, the socket file stays behind
    deadline = time.monotonic() + 60
    while _alive(pid):
        assert time.monotonic() < deadline, "the killed server is still running"
        time.sleep(0.05)


def call(home: Home, agent: str, n: int) -> str:
    pre, post = sample(agent, "pre-1.stdin.json"), sample(agent, "post-1.stdin.json")
    ids = {"tool_use_id": f"call-{n}"} if "tool_use_id" in pre else {}
    p = home.hook(agent, {**pre, **ids})
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    kind = verdict(agent, p.stdout)[0]
    if kind == "allow":
        assert home.hook(agent, {**post, **ids}).returncode == 0
    return kind


@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_six_identical_calls_across_a_killed_server_four_run(home: Home, agent: str) -> None:
    got = [call(home, agent, n) for n in range(3)]
    first = home.pid()
    kill(home)
    got += [call(home, agent, n) for n in range(3, 6)]
    assert home.pid() not in (None, first)  # a new server answered the last three
    assert got == ["allow"] * 4 + ["deny"] * 2


def test_scan_of_the_resumed_recording_gives_every_verdict_the_hooks_gave(home: Home) -> None:
    got = [call(home, "claude", n) for n in range(3)]
    kill(home)
    got += [call(home, "claude", n) for n in range(3, 6)]
    home.stop()
    newest = max(home.recordings(), key=lambda p: p.stat().st_mtime)
    assert any('"what": "resumed"' in line for line in newest.read_text().splitlines())
    p = subprocess.run([EXE, "scan", str(newest), "--json"], capture_output=True, env=home.env, timeout=90, check=False)
    found = [json.loads(line) for line in p.stdout.splitlines() if line.startswith(b"{")]
    assert [f["verdict"] for f in found if f.get("kind") == "verdict"] == got, p.stderr


def test_only_a_recent_recording_of_the_same_session_is_resumed(tmp_path: Path) -> None:
    meta = {"k": "meta", "harness": "hook", "agent": "claude", "sessionId": "a/b"}
    mine = tmp_path / "20260101-000000-hook-claude-a-b.jsonl"
    mine.write_text(json.dumps(meta) + "\n")
    other = tmp_path / "20260101-000001-hook-claude-a-b.jsonl"  # the same slug, another session id
    other.write_text(json.dumps({**meta, "sessionId": "a b"}) + "\n")
    now = time.time()
    os.utime(mine, (now - 10, now - 10))
    assert resume.find(tmp_path, "claude", "a/b", now) == mine
    assert resume.find(tmp_path, "claude", "a/b", now + resume.MAX_AGE_S + 60) is None  # too old: a new session
    assert resume.find(tmp_path, "codex", "a/b", now) is None


def test_an_ask_answered_before_the_restart_still_counts_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path / "state"))

    def local(sessions: Sessions, n: int) -> str:
        cmd = f"curl -s -w 'code-{n}' -o /dev/null http://127.0.0.1:3000/p"
        p = {"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}}
        return str(sessions.handle("codex", json.dumps({**p, "tool_use_id": f"t{n}"}).encode())["kind"])

    first = Sessions(Settings())
    assert [local(first, n) for n in range(5)] == ["allow"] * 4 + ["ask"]
    assert first.settle("codex", "s", "t4", "allow-turn")["kind"] == "allow"  # the same local URL, for the turn
    # the server dies here without closing anything; the next one meets the session afresh
    second = Sessions(Settings())
    assert [local(second, n) for n in range(5, 8)] == ["allow"] * 3
    assert second.live[("codex", "s")].n > first.live[("codex", "s")].n  # ids count on, none reused
