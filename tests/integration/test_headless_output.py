"""`--no-tui` output a script can trust: the answer once on stdout, LF only; the child's talk never on stdout.

Each test fails on the pty-based headless run this replaced: a plain command's stdout came back with CRLF
and its stderr merged in, piped stdin never reached it, `--json` dropped its output, and dsh's one-task
answer was printed twice (once from its events, once from its own screen through the pty).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration
CLI = [sys.executable, "-m", "tui"]


def _plain_env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "BREAKER_TUI_STATE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}


def _run(args: list[str], env: dict[str, str], stdin: bytes | None = None, cwd: Path | None = None) -> Any:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, input=stdin, timeout=120, cwd=cwd or ROOT)


def test_a_plain_command_keeps_its_stdout_its_stderr_and_its_status(tmp_path: Path) -> None:
    p = _run(["--no-tui", "--", "sh", "-c", 'printf "a\\nb\\n"; echo err >&2; exit 7'], _plain_env(tmp_path))
    assert p.stdout == b"a\nb\n", "stdout is the command's own, byte for byte"
    assert b"err\n" in p.stderr and b"err" not in p.stdout
    assert p.returncode == 7


def test_piped_stdin_reaches_a_plain_command(tmp_path: Path) -> None:
    p = _run(["--no-tui", "--", "cat"], _plain_env(tmp_path), stdin=b"a\nb\n")
    assert p.returncode == 0 and p.stdout == b"a\nb\n"


def test_bytes_that_are_not_utf8_pass_through_unchanged(tmp_path: Path) -> None:
    data = bytes(range(256)) * 4
    p = _run(["--no-tui", "--", "cat"], _plain_env(tmp_path), stdin=data)
    assert p.returncode == 0 and p.stdout == data


def test_json_keeps_every_output_event_of_a_plain_command(tmp_path: Path) -> None:
    p = _run(["--no-tui", "--json", "--", "sh", "-c", "echo hi; echo oops >&2"], _plain_env(tmp_path))
    events = [json.loads(line) for line in p.stdout.decode().splitlines()]
    outputs = [(e["stream"], e["text"]) for e in events if e["kind"] == "output"]
    assert ("stdout", "hi\n") in outputs and ("stderr", "oops\n") in outputs


def test_a_one_task_dsh_profile_prints_its_answer_once_with_lf_only(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("normal")
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
    p = _run(["--no-tui", "--", "dsh", "--profile", "headless", "Say hello"], env, cwd=w.workspace)
    assert p.returncode == 0, p.stderr[-2000:]
    out = p.stdout.decode()
    assert out.strip(), "the answer is printed"
    assert "\r" not in out, "no CR from dsh's terminal"
    first = out.strip().splitlines()[0]
    assert out.count(first) == 1, f"the answer is printed once: {out!r}"


def test_quiet_drops_the_child_s_terminal_output(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("normal")
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
    loud = _run(["--no-tui", "--", "dsh", "--profile", "headless", "Say hello"], env, cwd=w.workspace)
    quiet = _run(["--no-tui", "--quiet", "--", "dsh", "--profile", "headless", "Say hello"], env, cwd=w.workspace)
    assert loud.returncode == quiet.returncode == 0
    assert quiet.stdout == loud.stdout, "the answer is the same"
    answer = quiet.stdout.decode().strip().splitlines()[0].encode()
    assert answer in loud.stderr, "dsh's own screen (which shows the answer) goes to stderr"
    assert answer not in quiet.stderr, "--quiet drops dsh's own screen output"
