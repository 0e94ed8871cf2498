"""Which copy of a known agent runs (`wrapper.harness.acp.resolve`): the person's own, with the preset added once.

Fake launchers in a temporary PATH stand for the installed agents: what is decided here is only
which file runs and with which arguments (the integration tests run the real agents).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from wrapper.harness.acp.presets import PRESETS
from wrapper.harness.acp.resolve import preset_for, resolve
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import deny_all
from wrapper.harness.registry import is_acp
from wrapper.settings import Settings, WrapperSettings

NODE = Path("/opt/bundled/node")


def exe(d: Path, name: str, body: str = "#!/bin/sh\nexit 0\n") -> str:
    d.mkdir(parents=True, exist_ok=True)
    f = d / name
    f.write_text(body)
    f.chmod(0o755)
    return str(f)


@pytest.fixture
def nothing_pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BREAKER_TUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def pin(name: str) -> str:
    p = PRESETS[name]
    p.launcher().parent.mkdir(parents=True, exist_ok=True)
    p.launcher().write_text("#!/bin/sh\n")
    p.launcher().chmod(0o755)
    return str(p.launcher())


def test_a_full_path_runs_as_given_with_the_acp_argument_once(nothing_pinned: Path) -> None:
    pin("opencode")  # a pinned copy exists, and still the person's path runs
    mine = exe(nothing_pinned / "prefix/bin", "opencode")
    r = resolve([mine, "acp"], "/usr/bin", NODE)
    assert r is not None and r.argv == [mine, "acp"], r
    assert r.why == "the path you gave" and not r.pinned
    r = resolve([mine], "/usr/bin", NODE)
    assert r is not None and r.argv == [mine, "acp"]


def test_a_path_that_is_not_an_executable_says_so(nothing_pinned: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such executable file"):
        resolve([str(nothing_pinned / "nope/opencode"), "acp"], "", NODE)


def test_the_agent_on_path_is_preferred_to_the_pinned_copy(nothing_pinned: Path) -> None:
    pin("codex")
    mine = exe(nothing_pinned / "bin", "codex-acp")
    for typed in ("codex", "codex-acp"):
        r = resolve([typed], str(nothing_pinned / "bin"), NODE)
        assert r is not None and r.launcher == mine and "on your PATH as codex-acp" in r.why
    r = resolve(["codex-acp"], "/nonexistent", NODE)
    assert r is not None and r.pinned and "pinned copy" in r.why


def test_codex_acp_is_acp_not_a_plain_command() -> None:
    assert is_acp(["codex-acp"]) and is_acp(["/x/bin/claude-agent-acp"]) and is_acp(["claude-code-acp"])
    assert preset_for(["node", "/p/lib/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"]) is not None
    assert not is_acp(["python", "agent.py"])


def test_claude_means_the_acp_adapter_never_claude_codes_own_tui(nothing_pinned: Path) -> None:
    exe(nothing_pinned / "bin", "claude")  # Claude Code's terminal UI: not an ACP server
    adapter = exe(nothing_pinned / "bin", "claude-code-acp")
    r = resolve(["claude"], str(nothing_pinned / "bin"), NODE)
    assert r is not None and r.launcher == adapter


def test_nothing_found_names_every_way_to_fix_it(nothing_pinned: Path) -> None:
    with pytest.raises(FileNotFoundError) as e:
        resolve(["gemini"], "/nonexistent", NODE)
    assert "PATH" in str(e.value) and "setup-agent gemini" in str(e.value) and "--acp --" in str(e.value)


def test_the_persons_acp_flag_and_settings_are_kept_the_presets_added_once(nothing_pinned: Path) -> None:
    g = exe(nothing_pinned / "bin", "gemini")
    r = resolve(["gemini", "--experimental-acp"], str(nothing_pinned / "bin"), NODE)
    assert r is not None and r.argv == [g, "--experimental-acp"]
    c = exe(nothing_pinned / "bin", "codex-acp")
    r = resolve(["codex-acp", "-c", 'approval_policy="never"', "-c", "model=x"], str(nothing_pinned / "bin"), NODE)
    assert r is not None
    assert r.argv == [c, "-c", 'approval_policy="untrusted"', "-c", "model=x"], r.argv


def test_a_node_script_runs_with_the_persons_node_or_else_with_node_24_by_path(nothing_pinned: Path) -> None:
    script = exe(nothing_pinned / "bin", "claude-agent-acp", "#!/usr/bin/env node\n")
    r = resolve(["claude-agent-acp"], str(nothing_pinned / "bin"), NODE)
    assert r is not None and r.argv[:2] == [str(NODE), script]
    exe(nothing_pinned / "bin", "node")
    r = resolve(["claude-agent-acp"], str(nothing_pinned / "bin"), NODE)
    assert r is not None and r.argv[0] == script


def test_the_agent_gets_the_persons_path_first_and_a_private_tmpdir_removed_at_close(tmp_path: Path) -> None:
    env = {"PATH": "/home/me/bin:/usr/bin", "HOME": "/home/me"}
    s = AcpSession(["x"], Settings(wrapper=WrapperSettings(record=False)), deny_all, str(tmp_path), env)
    got = s._agent_env()
    assert got["PATH"] == env["PATH"], "something was put in front of the person's PATH"
    assert got["HOME"] == "/home/me"
    tmp = got["TMPDIR"]
    assert os.path.isdir(tmp) and (os.stat(tmp).st_mode & 0o777) == 0o700 and tmp != os.environ.get("TMPDIR")
    (Path(tmp) / "left-behind").write_text("x")
    asyncio.run(s.close())
    assert not os.path.exists(tmp)
