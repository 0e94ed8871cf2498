"""`serve --metrics`: a real server, real hook processes, and its Prometheus endpoint scraped over HTTP."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wrapper.hooks import install as I
from wrapper.hooks import metrics as M
from wrapper.hooks.server import configured_metrics
from wrapper.settings import HooksSettings, Settings

EXE = str(Path(sys.executable).parent / "breaker-tui")
URL = re.compile(rb"metrics on (http://127\.0\.0\.1:\d+/metrics)")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """`breaker-tui serve --metrics 127.0.0.1:0` in a private run folder: its metrics URL and its env."""
    run = tempfile.mkdtemp(prefix="bkm-", dir="/tmp")
    (tmp_path / "none.toml").write_text("")  # a named config must exist: empty is all defaults
    env = {
        **os.environ,
        "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"),
        "BREAKER_TUI_RUN_DIR": os.path.join(run, "run"),
        "BREAKER_TUI_CONFIG": str(tmp_path / "none.toml"),
    }
    proc = subprocess.Popen([EXE, "serve", "--metrics", "127.0.0.1:0"], env=env, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        seen = b""
        while (m := URL.search(seen)) is None:  # it says the URL, then that it listens on its socket
            line = proc.stderr.readline()
            assert line, f"serve exited before serving metrics: {seen.decode()}"
            seen += line
        while b"listening on" not in seen:
            line = proc.stderr.readline()
            assert line, f"serve exited before listening: {seen.decode()}"
            seen += line
        yield m.group(1).decode(), env
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        subprocess.run(["rm", "-rf", run], check=False)


def value(text: str, name: str, **labels: str) -> float:
    """One sample of the exposition text (0 when absent)."""
    for line in text.splitlines():
        if line.startswith("#") or not line.startswith(name):
            continue
        head, _, v = line.rpartition(" ")
        got = dict(re.findall(r'(\w+)="([^"]*)"', head))
        if head.split("{")[0] == name and all(got.get(k) == x for k, x in labels.items()):
            return float(v)
    return 0.0


@pytest.mark.slow
def test_the_metrics_endpoint_counts_the_hook_calls_and_verdicts(served: tuple[str, dict[str, str]]) -> None:
    url, env = served
    start = I.launcher()
    base = {"session_id": "metrics-1", "tool_name": "Bash", "cwd": "/tmp", "tool_input": {"command": "make test"}}
    kinds = []
    for n in range(6):  # six identical calls, each reported back as failed: the loop is refused
        pre = {**base, "hook_event_name": "PreToolUse", "tool_use_id": f"t{n}"}
        p = subprocess.run(
            [*start, "claude"], input=json.dumps(pre).encode(), capture_output=True, env=env, timeout=120
        )
        assert p.returncode == 0, p.stderr
        kinds.append(json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"] if p.stdout.strip() else "allow")
        if kinds[-1] == "allow":
            post = {**pre, "hook_event_name": "PostToolUseFailure", "error": "Exit code 2\nmake: *** [test] Error 2"}
            r = subprocess.run([*start, "claude"], input=json.dumps(post).encode(), capture_output=True, env=env)
            assert r.returncode == 0 and r.stderr == b"", r.stderr
    assert "deny" in kinds, kinds
    with urllib.request.urlopen(url, timeout=60) as resp:
        text = resp.read().decode()
    assert value(text, "breaker_tui_hook_calls_total", agent="claude", phase="before") == 6
    assert value(text, "breaker_tui_hook_calls_total", agent="claude", phase="after") == kinds.count("allow")
    assert value(text, "breaker_tui_hook_verdicts_total", agent="claude", kind="allow") == kinds.count("allow")
    denied = sum(
        float(line.rpartition(" ")[2])
        for line in text.splitlines()
        if line.startswith("breaker_tui_hook_verdicts_total{") and 'kind="deny"' in line and 'rule=""' not in line
    )
    assert denied == kinds.count("deny")  # every refusal counted under its rule
    assert value(text, "breaker_tui_hook_latency_seconds_count", agent="claude") == 6 + kinds.count("allow")
    assert value(text, "breaker_tui_hook_live_sessions") == 1


def test_metrics_without_prometheus_client_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "prometheus_client", None)  # as if the [metrics] extra were not installed
    with pytest.raises(M.MetricsError, match=r"breaker-tui\[metrics\]"):
        M.Metrics()


def test_a_bad_metrics_address_names_the_form() -> None:
    assert M.parse_address("9464") == ("127.0.0.1", 9464)
    assert M.parse_address("0.0.0.0:0") == ("0.0.0.0", 0)
    assert M.parse_address("[::1]:9") == ("::1", 9)
    with pytest.raises(M.MetricsError, match=r"\[HOST:\]PORT"):
        M.parse_address("localhost")
    with pytest.raises(M.MetricsError, match="0-65535"):
        M.parse_address("70000")


def with_hooks(**keys: Any) -> Settings:
    """Settings whose `[hooks]` section holds `keys`."""
    return Settings(hooks=HooksSettings(**keys))


def test_the_hooks_metrics_key_serves_metrics_from_a_server_without_the_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    m = configured_metrics(with_hooks(metrics="127.0.0.1:0"))
    assert m is not None
    url = URL.search(capsys.readouterr().err.encode())
    assert url is not None
    with urllib.request.urlopen(url.group(1).decode(), timeout=60) as r:
        assert b"breaker_tui_hook_live_sessions" in r.read()


def test_a_hooks_metrics_port_that_cannot_be_taken_is_said_and_the_server_runs_without(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert configured_metrics(with_hooks(metrics=f"127.0.0.1:{port}")) is None
    err = capsys.readouterr().err
    assert f"[hooks] metrics = '127.0.0.1:{port}'" in err and "serving without metrics" in err


def test_no_hooks_section_or_key_means_no_metrics() -> None:
    assert configured_metrics(Settings()) is None
    assert configured_metrics(with_hooks(ask_wait_s=3.0)) is None


def test_the_server_a_hook_starts_serves_metrics_when_the_config_says(tmp_path: Path) -> None:
    run = tempfile.mkdtemp(prefix="bkm-", dir="/tmp")
    config = tmp_path / "config.toml"
    config.write_text('[hooks]\nmetrics = "127.0.0.1:0"\n')
    env = {
        **os.environ,
        "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"),
        "BREAKER_TUI_RUN_DIR": os.path.join(run, "run"),
        "BREAKER_TUI_CONFIG": str(config),
    }
    payload = {"session_id": "m", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
    try:
        p = subprocess.run(
            [*I.launcher(), "claude"], input=json.dumps(payload).encode(), env=env, capture_output=True, timeout=120
        )
        assert p.returncode == 0 and p.stderr == b"", p.stderr  # a verdict: the hook started the server
        url = URL.search(Path(run, "run", "serve.log").read_bytes())
        assert url is not None, "the server a hook started did not serve metrics"
        with urllib.request.urlopen(url.group(1).decode(), timeout=60) as r:
            text = r.read().decode()
        assert value(text, "breaker_tui_hook_calls_total", agent="claude", phase="before") == 1
    finally:
        pid = Path(run, "run", "serve.pid")
        if pid.exists():
            os.kill(int(pid.read_text()), signal.SIGTERM)
        subprocess.run(["rm", "-rf", run], check=False)
