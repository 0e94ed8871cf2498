"""The installed hook command: its fast form, replacing an older one, and `hooks status`/`doctor` probing it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from wrapper.hooks import health
from wrapper.hooks import install as I

EXE = str(Path(sys.executable).parent / "breaker-tui")
OLD = "/gone/bin/breaker-tui hook gemini"  # what an older breaker-tui wrote, from a place it has left
HEAVY = ("textual", "engine", "pydantic", "tui", "platformdirs", "json", "socket", "pathlib", "asyncio")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A private HOME, state and (short) run folder, in this process and for the CLI's; removed after."""
    run = tempfile.mkdtemp(prefix="bkh-", dir="/tmp")
    (tmp_path / "none.toml").write_text("")  # a named config must exist: empty is all defaults
    values = {
        "HOME": str(tmp_path),
        "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"),
        "BREAKER_TUI_RUN_DIR": os.path.join(run, "run"),
        "BREAKER_TUI_CONFIG": str(tmp_path / "none.toml"),
    }
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    for k in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(k, raising=False)
    yield {**os.environ, **values}
    stop_server(values)
    subprocess.run(["rm", "-rf", run], check=False)


def gemini_settings(home: Path, command: str) -> Path:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    group = {"matcher": ".*", "hooks": [{"name": "breaker-tui", "type": "command", "command": command}]}
    path.write_text(json.dumps({"hooks": {"BeforeTool": [group], "AfterTool": [group]}}, indent=2) + "\n")
    return path


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


@pytest.mark.slow
def test_the_installed_hook_process_imports_nothing_heavy(env: dict[str, str]) -> None:
    """The real command install writes, answering a real payload through a real server, watched by -X importtime."""
    start = I.launcher()
    pre = {"session_id": "imports", "hook_event_name": "PreToolUse", "tool_name": "Bash"}
    payload = json.dumps({**pre, "tool_input": {"command": "ls"}, "tool_use_id": "t1", "cwd": "/tmp"}).encode()
    first = subprocess.run([*start, "claude"], input=payload, capture_output=True, env=env, timeout=120)
    assert first.returncode == 0 and first.stderr == b"", first.stderr  # this one started the server
    cmd = [start[0], "-X", "importtime", *start[1:], "claude"]
    p = subprocess.run(cmd, input=payload, capture_output=True, env=env, timeout=120, check=False)
    assert p.returncode == 0 and p.stdout == b"", p.stderr  # a distinct call: allowed, silently
    lines = [ln.split("|")[-1] for ln in p.stderr.decode().splitlines() if ln.startswith("import time:")]
    modules = {m.strip() for m in lines[1:]}
    assert "wrapper.hooks.agents" in modules  # the report is the hook's own
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], heavy


def stop_server(env: dict[str, str]) -> None:
    """SIGTERM the server this test started, and wait until it has removed its pid file."""
    pid = Path(env["BREAKER_TUI_RUN_DIR"]) / "serve.pid"
    if pid.exists():
        subprocess.run(["kill", pid.read_text().strip()], check=False)
        deadline = time.monotonic() + 60
        while pid.exists() and time.monotonic() < deadline:
            time.sleep(0.05)


def test_the_installed_command_is_the_fast_form_and_it_runs() -> None:
    start = I.launcher()
    assert start[1:3] == ["-I", "-S"] and start[3].endswith("wrapper/hooks/client.py")
    ok, said = health.probe(start)
    assert ok and said.startswith("breaker-tui hook: runs"), said
    assert I.is_ours(I.hook_command("codex", start, True), "codex")
    assert I.is_ours("/x/python -m wrapper.hooks.client claude", "claude")
    assert I.is_ours(OLD, "gemini") and not I.is_ours(OLD, "claude")
    assert not I.is_ours("/x/python /x/mine/client.py gemini", "gemini")


def test_reinstall_replaces_an_older_command_with_the_fast_one(env: dict[str, str], tmp_path: Path) -> None:
    path = gemini_settings(tmp_path, OLD)
    I.apply(I.install_plan("gemini", path, I.launcher()), installing=True)
    assert I.hook_commands("gemini", path) == [I.hook_command("gemini", I.launcher(), False)]
    assert OLD not in path.read_text()


def test_status_and_doctor_name_a_dangling_hook_and_uninstall_still_removes_it(
    env: dict[str, str], tmp_path: Path
) -> None:
    path = gemini_settings(tmp_path, OLD)
    s = cli(env, "hooks", "status")
    assert s.returncode == 1, s.stdout + s.stderr
    assert "gemini: installed" in s.stdout and "BROKEN" in s.stdout and "every Gemini call is blocked" in s.stdout
    assert "/gone/bin/breaker-tui does not exist" in s.stdout and "serve: not running" in s.stdout
    from wrapper.doctor import doctor

    lines = {c.name: c for c in doctor()}
    assert not lines["hooks gemini"].ok and "every Gemini call is blocked" in lines["hooks gemini"].detail
    assert "hooks uninstall gemini" in lines["hooks gemini"].fix
    u = cli(env, "hooks", "uninstall", "gemini")
    assert u.returncode == 0, u.stderr
    assert I.hook_commands("gemini", path) == [] and "breaker-tui" not in path.read_text()


def test_status_says_a_working_hook_runs(env: dict[str, str]) -> None:
    i = cli(env, "hooks", "install", "claude")
    assert i.returncode == 0, i.stderr
    assert i.stdout.startswith("installed breaker-tui's hooks for claude")
    again = cli(env, "hooks", "install", "claude")  # the second time nothing changes, and it says so
    assert again.returncode == 0 and "already installed, unchanged," in again.stdout, again.stdout
    s = cli(env, "hooks", "status", "claude")
    assert s.returncode == 0, s.stdout
    assert "claude: installed" in s.stdout and "client.py claude: runs (breaker-tui hook: runs" in s.stdout
    from wrapper.doctor import doctor

    assert {c.name: c.ok for c in doctor()}.get("hooks claude") is True


@pytest.mark.parametrize("config", ["[engine\n", "[repeat]\nwindow = 'many'\n"])
def test_status_and_doctor_say_when_no_hook_can_start_the_server(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    """A config the server refuses: it is not running and the next hook cannot start it, so no call is checked."""
    i = cli(env, "hooks", "install", "claude")
    assert i.returncode == 0, i.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text(config)
    env = {**env, "BREAKER_TUI_CONFIG": str(bad)}
    s = cli(env, "hooks", "status", "claude")
    assert s.returncode == 1, s.stdout + s.stderr
    assert "serve: PROBLEM: not running, and no hook can start it: bad config" in s.stdout
    assert "the first hook starts it" not in s.stdout
    from wrapper.doctor import doctor

    monkeypatch.setenv("BREAKER_TUI_CONFIG", str(bad))
    lines = {c.name: c for c in doctor()}
    assert not lines["hook server"].ok and "no hook can start it" in lines["hook server"].detail


def test_a_project_configs_problems_are_fixed_in_the_project_and_an_untrusted_codex_by_its_trust(
    env: dict[str, str], tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    gemini_settings(project, OLD)  # a project's own config naming a hook that is gone
    s = subprocess.run(
        [EXE, "hooks", "status", "gemini", "--project"],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert s.returncode == 1 and "fix: breaker-tui hooks install gemini --project" in s.stdout, s.stdout
    no_codex = {**env, "PATH": str(Path(sys.executable).parent)}  # install cannot ask Codex: not trusted
    i = subprocess.run(
        [EXE, "hooks", "install", "codex", "--project"], cwd=project, capture_output=True, text=True, env=no_codex
    )
    assert i.returncode == 1 and "NOT trusted" in i.stderr, i.stderr
    s = subprocess.run(
        [EXE, "hooks", "status", "codex", "--project"], cwd=project, capture_output=True, text=True, env=no_codex
    )
    assert s.returncode == 1 and f"fix: trust {project} in Codex" in s.stdout, s.stdout
