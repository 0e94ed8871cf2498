"""`breaker-tui hook AGENT` through a real `breaker-tui serve`: real processes, a real unix socket.

Each agent's captured payloads (the samples of the real CLIs) are sent six times as the agent sends them:
four run, the fifth and sixth are refused with a reason that names the repeat, in the agent's own format.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[4]
SAMPLES = Path(__file__).resolve().parents[3] / "data" / "hooks"
EXE = str(Path(sys.executable).parent / "breaker-tui")
AGENTS = ("claude", "codex", "gemini")


def sample(agent: str, name: str) -> dict[str, Any]:
    path = SAMPLES / agent / name
    if not path.exists():
        pytest.skip(f"the captured hook payloads are not here ({path})")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


class Home:
    """A private state, config and run folder for one test's server (the run folder short, for the socket)."""

    def __init__(self, tmp: Path) -> None:
        self.state = tmp / "state"
        self.run_dir = Path(tempfile.mkdtemp(prefix="bkh-", dir="/tmp"))
        (tmp / "no-config.toml").write_text("")  # a named config must exist: empty is all defaults
        self.env = {
            **os.environ,
            "BREAKER_TUI_STATE_DIR": str(self.state),
            "BREAKER_TUI_RUN_DIR": str(self.run_dir / "run"),
            "BREAKER_TUI_CONFIG": str(tmp / "no-config.toml"),
        }

    def hook(self, agent: str, payload: bytes | dict[str, Any], *flags: str) -> subprocess.CompletedProcess[bytes]:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        return subprocess.run(
            [EXE, "hook", agent, *flags], input=data, capture_output=True, env=self.env, timeout=90, check=False
        )

    def pid(self) -> int | None:
        try:
            return int((self.run_dir / "run" / "serve.pid").read_text())
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        """SIGTERM the server and wait until it is gone (its socket removed)."""
        pid = self.pid()
        if pid is None:
            return
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while (self.run_dir / "run" / "serve.sock").exists() or self.pid() is not None:
            assert time.monotonic() < deadline, "breaker-tui serve did not stop on SIGTERM"
            time.sleep(0.05)

    def recordings(self) -> list[Path]:
        return sorted((self.state / "recordings").glob("*hook-*.jsonl"))


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    h = Home(tmp_path)
    try:
        yield h
    finally:
        h.stop()
        subprocess.run(["rm", "-rf", str(h.run_dir)], check=False)


def verdict(agent: str, out: bytes) -> tuple[str, str]:
    """("allow", "") for silence, else the decision and reason in the agent's own answer."""
    if not out.strip():
        return "allow", ""
    a = json.loads(out)
    if agent == "gemini":
        return a["decision"], a["reason"]
    h = a["hookSpecificOutput"]
    assert h["hookEventName"] == "PreToolUse"
    return h["permissionDecision"], h["permissionDecisionReason"]


def runs_unchecked(out: bytes) -> bool:
    """Whether the hook let the call run and told the person why it was not checked (what each agent shows)."""
    a = json.loads(out)
    return set(a) == {"systemMessage"} and "runs unchecked" in a["systemMessage"]


def six_calls(home: Home, agent: str) -> list[tuple[str, str]]:
    pre, post = sample(agent, "pre-1.stdin.json"), sample(agent, "post-1.stdin.json")
    got = []
    for n in range(6):
        ids = {"tool_use_id": f"call-{n}"} if "tool_use_id" in pre else {}
        p = home.hook(agent, {**pre, **ids})
        assert p.returncode == 0, p.stderr
        got.append(verdict(agent, p.stdout))
        if got[-1][0] == "allow":  # the call ran: the agent reports its result
            r = home.hook(agent, {**post, **ids})
            assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")  # a result: nothing to answer or say
    return got


@pytest.mark.parametrize("agent", AGENTS)
def test_six_identical_shell_calls_four_run_and_the_fifth_and_sixth_are_refused(home: Home, agent: str) -> None:
    got = six_calls(home, agent)
    assert [k for k, _ in got] == ["allow"] * 4 + ["deny"] * 2
    for _, reason in got[4:]:
        assert "repeat" in reason.lower() and "rule repeat:" in reason
        assert "different" in reason  # it says what to do instead


def test_scan_of_a_hook_recording_gives_the_verdicts_the_hook_gave(home: Home) -> None:
    got = six_calls(home, "claude")
    home.stop()  # the recording ends with its end record
    (rec,) = home.recordings()
    p = subprocess.run([EXE, "scan", str(rec), "--json"], capture_output=True, env=home.env, timeout=90, check=False)
    found = [json.loads(line) for line in p.stdout.splitlines() if line.startswith(b"{")]
    verdicts = [f["verdict"] for f in found if f.get("kind") == "verdict"]
    assert verdicts == [k for k, _ in got], p.stderr
    assert b"damaged" not in p.stderr and b"mismatch" not in p.stderr


def test_the_socket_is_owner_only(home: Home) -> None:
    assert home.hook("claude", sample("claude", "pre-1.stdin.json")).returncode == 0
    run = home.run_dir / "run"
    assert stat.S_IMODE(run.stat().st_mode) == 0o700
    assert stat.S_IMODE((run / "serve.sock").stat().st_mode) == 0o600


def test_a_failed_command_feeds_its_exit_code_to_the_recording(home: Home) -> None:
    for agent in AGENTS:
        pre = sample(agent, "pre-1.stdin.json")
        post = sample(agent, "post-failed-command.stdin.json")
        pre = {**pre, "session_id": post["session_id"], "tool_input": post["tool_input"]}
        assert home.hook(agent, pre).returncode == 0
        assert home.hook(agent, post).returncode == 0
    home.stop()
    texts = {}
    for rec in home.recordings():
        rows = [json.loads(line) for line in rec.read_text().splitlines()]
        agent = rows[0]["agent"]
        texts[agent] = [r for r in rows if r.get("t") == "result_request"]
    assert texts["claude"][0]["isError"] and texts["claude"][0]["text"].endswith("[exit code: 3]")
    assert texts["gemini"][0]["isError"] and texts["gemini"][0]["text"].endswith("[exit code: 3]")
    assert not texts["codex"][0]["isError"]  # Codex does not say: one output string
    assert texts["codex"][0]["text"] == "out-line\nerr-line\n"


def test_a_malformed_payload_gets_a_clear_answer_and_the_call_runs(home: Home) -> None:
    p = home.hook("claude", b"{not json")
    assert p.returncode == 0 and runs_unchecked(p.stdout)
    assert b"not JSON" in p.stderr and b"runs unchecked" in p.stderr


def test_a_malformed_payload_is_refused_when_installed_fail_closed(home: Home) -> None:
    p = home.hook("gemini", b"[1, 2]", "--fail-closed")
    assert p.returncode == 0
    kind, reason = verdict("gemini", p.stdout)
    assert kind == "deny" and "fail-closed" in reason and "not an object" in reason


def test_a_ten_megabyte_payload_is_judged(home: Home) -> None:
    pre = sample("claude", "pre-1.stdin.json")
    big = {**pre, "tool_name": "Write", "tool_input": {"file_path": "x", "content": "y" * (10 << 20)}}
    p = home.hook("claude", big)
    assert p.returncode == 0 and p.stdout == b"", p.stderr
    assert p.stderr == b""  # a verdict came (allow), not a fallback


def test_an_unknown_tool_is_judged_not_crashed_on(home: Home) -> None:
    pre = sample("gemini", "pre-1.stdin.json")
    for _ in range(6):
        p = home.hook("gemini", {**pre, "tool_name": "mystery_tool", "tool_input": {"x": [1, {"y": None}]}})
        assert p.returncode == 0 and p.stderr == b"", p.stderr
    assert home.hook("gemini", {**pre, "tool_name": "mystery_tool", "tool_input": "a string"}).returncode == 0


def test_with_no_server_possible_fail_closed_refuses_and_the_default_lets_the_call_run(
    home: Home, tmp_path: Path
) -> None:
    h = home  # the fixture's: its run folder is removed after
    h.env["BREAKER_TUI_RUN_DIR"] = str(tmp_path / ("x" * 120))  # too long for a socket: no server can listen
    pre = sample("codex", "pre-1.stdin.json")
    p = h.hook("codex", pre)
    assert p.returncode == 0 and runs_unchecked(p.stdout) and b"runs unchecked" in p.stderr
    p = h.hook("codex", pre, "--fail-closed")
    kind, reason = verdict("codex", p.stdout)
    assert kind == "deny" and "fail-closed" in reason


def test_the_hook_process_imports_neither_the_engine_nor_textual(home: Home) -> None:
    pre = json.dumps(sample("claude", "pre-1.stdin.json"))
    code = (
        "import sys, io\n"
        "from tui.cli import main\n"
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({pre!r}.encode()))\n"
        "rc = main(['hook', 'claude'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'pydantic', 'asyncio')"
        " or m.startswith('engine.') and m != 'engine.errors')\n"
        "print('HEAVY', heavy, rc, file=sys.stderr)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=home.env, cwd=ROOT, timeout=90, check=False
    )
    assert b"HEAVY [] 0" in p.stderr, p.stderr


@pytest.mark.slow
def test_twenty_sessions_at_once_each_get_their_own_window(home: Home) -> None:
    from concurrent.futures import ThreadPoolExecutor

    pre = sample("claude", "pre-1.stdin.json")
    assert home.hook("claude", {**pre, "session_id": "warm"}).returncode == 0  # one server, started once

    def session(n: int) -> list[str]:
        out = []
        for k in range(6):
            p = home.hook("claude", {**pre, "session_id": f"s{n}", "tool_use_id": f"c{n}-{k}"})
            assert p.returncode == 0, p.stderr
            out.append(verdict("claude", p.stdout)[0])
        return out

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(session, range(20)))
    assert all(r == ["allow"] * 4 + ["deny"] * 2 for r in results), results
    home.stop()
    assert len(home.recordings()) == 21
    for rec in home.recordings():
        assert json.loads(rec.read_text().splitlines()[-1])["k"] == "end"  # every recording closed whole


def _alive(pid: int) -> bool:
    """Whether `pid` runs; a zombie has stopped (an orphaned server waits for a slow first process to reap it)."""
    try:
        line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return line.rpartition(")")[2].split()[0] != "Z"


def test_a_server_killed_mid_session_costs_no_answer_and_a_new_one_takes_over(home: Home) -> None:
    pre = sample("gemini", "pre-1.stdin.json")
    assert home.hook("gemini", pre).returncode == 0
    pid = home.pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # no cleanup: its socket file stays behind
    deadline = time.monotonic() + 60
    while _alive(pid):
        assert time.monotonic() < deadline, "the killed server is still running"
        time.sleep(0.05)
    p = home.hook("gemini", pre)
    assert p.returncode == 0 and p.stderr == b"", p.stderr  # a verdict: the next hook started a new server
    assert home.pid() not in (None, pid)
    first = home.recordings()[0].read_text().splitlines()
    assert any('"verdict_request"' in line for line in first)  # what the killed server judged was written through


def test_a_server_that_cannot_start_is_named_at_once_with_its_reason(home: Home, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[engine\n")
    home.env["BREAKER_TUI_CONFIG"] = str(bad)
    p = home.hook("claude", sample("claude", "pre-1.stdin.json"))
    assert p.returncode == 0 and runs_unchecked(p.stdout)
    assert b"exited with status 2" in p.stderr and b"bad config" in p.stderr and b"runs unchecked" in p.stderr


def test_a_new_prompt_from_the_person_starts_a_new_window_and_scan_agrees(home: Home) -> None:
    pre = sample("claude", "pre-1.stdin.json")
    got = []
    for n in range(6):
        prompt = {"prompt_id": "second-prompt"} if n >= 4 else {}  # the person prompted again before call 5
        p = home.hook("claude", {**pre, **prompt, "tool_use_id": f"call-{n}"})
        got.append(verdict("claude", p.stdout)[0])
    assert got == ["allow"] * 6
    home.stop()
    (rec,) = home.recordings()
    p = subprocess.run([EXE, "scan", str(rec), "--json"], capture_output=True, env=home.env, timeout=90, check=False)
    found = [json.loads(line) for line in p.stdout.splitlines() if line.startswith(b"{")]
    assert [f["verdict"] for f in found if f.get("kind") == "verdict"] == got, p.stderr


@pytest.mark.parametrize("shadowed", ["wrapper", "engine"])
def test_the_agents_python_environment_reaches_neither_the_hook_nor_the_server_it_starts(
    home: Home, tmp_path: Path, shadowed: str
) -> None:
    """A project whose own `wrapper` or `engine` package is on the agent's PYTHONPATH (names any project may use)
    must not stand in for breaker-tui's, in the installed hook (`-I`) or in the server that hook starts: one that
    failed to import would leave every call unchecked.
    """
    from wrapper.hooks.install import hook_command, launcher

    shadow = tmp_path / "project"
    (shadow / shadowed).mkdir(parents=True)
    (shadow / shadowed / "__init__.py").write_text("raise SystemExit('the project\\'s own package was imported')\n")
    env = {**home.env, "PYTHONPATH": str(shadow)}
    pre = sample("claude", "pre-1.stdin.json")
    got = []
    for n in range(5):
        p = subprocess.run(
            hook_command("claude", launcher(), False),
            shell=True,
            input=json.dumps({**pre, "tool_use_id": f"call-{n}"}).encode(),
            capture_output=True,
            env=env,
            cwd=shadow,
            timeout=90,
            check=False,
        )
        assert p.returncode == 0 and p.stderr == b"", p.stderr  # a verdict each time: the server started
        got.append(verdict("claude", p.stdout)[0])
    assert got == ["allow"] * 4 + ["deny"]


def test_hooks_status_names_the_running_server_and_how_to_stop_it(home: Home) -> None:
    assert home.hook("claude", sample("claude", "pre-1.stdin.json")).returncode == 0  # the hook starts it
    pid = home.pid()
    s = subprocess.run([EXE, "hooks", "status"], capture_output=True, text=True, env=home.env, timeout=90, check=False)
    assert f"pid {pid}: `kill {pid}` stops it" in s.stdout, s.stdout
    home.stop()  # that kill: the socket and the pid file go
