"""Headless runs that report, exit statuses that tell the truth, and a `dev` profile that coexists with dsh's own."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from wrapper.exits import Exit

pytestmark = pytest.mark.integration
CLI = [sys.executable, "-m", "tui"]
DEV = ["--", "dsh", "--profile", "dev"]


def _run(
    args: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 120, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=cwd or ROOT, env=env, capture_output=True, text=True, timeout=timeout, input=stdin
    )


def _env(w: Any, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**w.env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT), **extra}


def test_the_answer_goes_to_stdout_and_the_turn_outcome_to_stderr(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("normal")
    p = _run(["--no-tui", "--prompt", "-", *DEV], _env(w, tmp_path), w.workspace, stdin="Say hello\n")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip(), "the answer is printed"
    assert "breaker: turn 1: completed" in p.stderr
    assert "breaker-tui: recording: " in p.stderr and " — 1 turn(s), 0 denied, 0 trip(s)" in p.stderr


def test_a_model_that_is_down_makes_the_run_fail(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("normal")
    w.mock.stop()  # nothing listens on the endpoint any more
    p = _run(["--no-tui", "--prompt", "Say hello", *DEV], _env(w, tmp_path), w.workspace, timeout=180)
    assert p.returncode == 1, (p.returncode, p.stderr[-2000:])


def test_an_interactive_profile_without_a_prompt_is_refused(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("normal")
    p = _run(["--no-tui", *DEV], _env(w, tmp_path), w.workspace, timeout=30)
    assert p.returncode == 2 and "give --prompt TEXT" in p.stderr


def test_options_that_need_no_tui_refuse_without_it(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BREAKER_TUI_STATE_DIR": str(tmp_path)}
    for opt in (["--json"], ["--prompt", "hi"], ["--approvals", "allow"]):
        p = _run([*opt, "--", "true"], env, timeout=30)
        assert p.returncode == 2 and "only work(s) with --no-tui" in p.stderr, (opt, p.stderr)


def test_a_closed_stdout_does_not_change_the_exit_status(tmp_path: Path) -> None:
    script = "import sys\nfor i in range(20000): print(i)\nsys.exit(3)\n"
    env = {"PATH": "/usr/bin:/bin", "BREAKER_TUI_STATE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    cmd = shlex.join([*CLI, "--no-tui", "--", sys.executable, "-c", script])
    p = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{cmd} | head -1"], env=env, capture_output=True, text=True, timeout=60
    )
    assert p.stdout.strip() == "0"
    assert p.returncode == 3, p.stderr[-2000:]


def test_a_missing_dsh_in_tui_mode_exits_3_with_the_reason_and_no_screen(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "BREAKER_TUI_DSH": str(tmp_path / "no-dsh"),
        "BREAKER_TUI_STATE_DIR": str(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    p = _run(DEV, env, timeout=30)
    assert p.returncode == 3 and "dsh was not found" in p.stderr and "setup-dsh" in p.stderr
    assert "\x1b[" not in p.stdout, "no screen was drawn"


def test_init_profile_refuses_paths_and_overwrites(tmp_path: Path) -> None:
    env = {**os.environ, "DSH_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    bad = _run(["init-profile", "../../x"], env, timeout=30)
    assert bad.returncode == 2 and "not a profile name" in bad.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "home").exists()
    ok = _run(["init-profile", "dev"], env, timeout=30)
    assert ok.returncode == 0, ok.stderr
    again = _run(["init-profile", "dev"], env, timeout=30)
    assert again.returncode == 2 and "--force" in again.stderr
    forced = _run(["init-profile", "dev", "--force"], env, timeout=30)
    assert forced.returncode == 0


@pytest.mark.parametrize("order", [("dev", "headless"), ("headless", "dev")])
def test_the_dev_profile_and_dsh_headless_share_one_dsh_home(
    world_factory: Any, tmp_path: Path, order: tuple[str, str]
) -> None:
    w = world_factory("normal")
    env = _env(w, tmp_path)
    for profile in order:
        if profile == "dev":
            p = _run(["--no-tui", "--prompt", "Say hello", *DEV], env, w.workspace, timeout=180)
        else:
            p = _run(["--no-tui", "--", "dsh", "--profile", "headless", "Say hello"], env, w.workspace, timeout=180)
        assert p.returncode == 0, (profile, p.stdout[-1500:], p.stderr[-1500:])
        assert "compression" not in p.stdout + p.stderr, profile


@pytest.mark.parametrize("as_json", [False, True])
def test_scan_prints_hostile_fingerprints_inert(tmp_path: Path, as_json: bool) -> None:
    import json

    from tests.tui import scripts
    from wrapper.records.recorder import FORMAT

    cmd = "cat '\x1b]0;TITLE\x07\x1b[2J[/]\x9b31m'"
    msgs = [scripts.ready(), *scripts.turn(1, "x")]
    for i in range(6):
        msgs += scripts.call(i, "bash", {"command": cmd})
    rec = tmp_path / "hostile.jsonl"
    lines = [{"at": 0, "k": "meta", "format": FORMAT, "version": 1}]
    lines += [{"at": n * 0.01, "k": "in", **m} for n, m in enumerate(msgs)]
    rec.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BREAKER_TUI_STATE_DIR": str(tmp_path)}
    p = _run(["scan", str(rec), *(["--json"] if as_json else [])], env, timeout=60)
    # written by hand, so nothing vouches for it: UNVERIFIED outranks the loop it holds (still reported)
    assert p.returncode == Exit.UNVERIFIED, p.stderr
    assert "DENY" in p.stdout or '"deny"' in p.stdout
    for ch in ("\x1b", "\x07", "\x9b"):
        assert ch not in p.stdout and ch not in p.stderr
    if as_json:
        assert all(json.loads(ln) for ln in p.stdout.splitlines())
