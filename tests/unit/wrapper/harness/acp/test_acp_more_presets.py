"""The presets added after the first four (Qwen Code, Kilo Code): named, listed, pointed at a model, made to ask.

No process runs here: the integration smoke tests (`tests/integration/test_acp_more_agents.py`) run the
real agents. These pin what the presets write, so a change that would stop an agent asking fails fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wrapper.harness.acp.cli import agents
from wrapper.harness.acp.own import kilo_settings
from wrapper.harness.acp.presets import PRESETS, ask_env, mock_env
from wrapper.harness.acp.resolve import preset_for, resolve


def test_agents_lists_six_or_more(capsys: pytest.CaptureFixture[str]) -> None:
    assert agents([]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line and not line[0].isspace()]
    for name in ("opencode", "claude", "codex", "gemini", "qwen", "kilo"):
        assert name in listed, listed
    assert len(PRESETS) >= 6


def test_names_and_aliases_pick_the_preset() -> None:
    for argv, name in ((["qwen"], "qwen"), (["/usr/bin/qwen-code", "-x"], "qwen"), (["kilocode"], "kilo")):
        p = preset_for(argv)
        assert p is not None and p.name == name, argv


def test_qwen_is_made_to_ask_by_its_mode_and_pointed_at_the_endpoint(tmp_path: Path) -> None:
    p = PRESETS["qwen"]
    assert p.mode == "default"  # it starts in `auto`, where a classifier approves calls without asking
    assert p.args == ("--acp",)
    env = mock_env(p, "http://127.0.0.1:9", tmp_path / "home", "m1")
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1" and env["OPENAI_MODEL"] == "m1"
    assert env["HOME"] == str(tmp_path / "home")
    settings = json.loads((tmp_path / "home" / ".qwen" / "settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "openai"
    assert settings["telemetry"]["enabled"] is False


def test_kilo_asks_before_shell_edit_and_fetch_and_its_own_permission_answers_them(tmp_path: Path) -> None:
    p = PRESETS["kilo"]
    cfg = json.loads(ask_env(p, {})["KILO_CONFIG_CONTENT"])
    assert cfg["permission"] == {"bash": "ask", "edit": "ask", "webfetch": "ask"}
    mine = {"KILO_CONFIG_CONTENT": json.dumps({"permission": {"bash": "allow"}, "model": "x/y"})}
    # read first (`own.py`), then replaced: an allow left there would let a repeat run unasked
    assert kilo_settings({**mine, "HOME": str(tmp_path)}, str(tmp_path)).decide("execute", "", "curl x") == "allow"
    asking = json.loads(ask_env(p, mine)["KILO_CONFIG_CONTENT"])
    assert asking == {"permission": {"bash": "ask", "edit": "ask", "webfetch": "ask"}, "model": "x/y"}
    for broken in ("{not json", "[1, 2]"):  # an unreadable inline config still gets the asks
        fixed = json.loads(ask_env(p, {"KILO_CONFIG_CONTENT": broken})["KILO_CONFIG_CONTENT"])
        assert fixed["permission"]["bash"] == "ask"


def test_kilo_mock_env_then_ask_env_keeps_the_provider(tmp_path: Path) -> None:
    p = PRESETS["kilo"]
    env = ask_env(p, mock_env(p, "http://127.0.0.1:9", tmp_path, "m1"))
    cfg = json.loads(env["KILO_CONFIG_CONTENT"])
    assert cfg["provider"]["mock"]["options"]["baseURL"] == "http://127.0.0.1:9/v1"
    assert cfg["model"] == "mock/m1" and cfg["permission"]["edit"] == "ask"
    assert env["KILO_DISABLE_MODELS_FETCH"] == "1"


def test_an_uninstalled_new_agent_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BREAKER_TUI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    for name in ("qwen", "kilo"):
        with pytest.raises(FileNotFoundError, match=f"breaker-tui setup-agent {name}"):
            resolve([name], str(tmp_path / "empty"), tmp_path / "node")
