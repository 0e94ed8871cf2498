"""Codex's mock home: the mock model is in a model catalog, so Codex's fallback warning never reaches an answer.

Without it codex-acp sent ``Model metadata for `mock-model` not found. Defaulting to fallback metadata…`` as
agent message text, glued to the model's answer in the demo. The unit tests pin what the home says; the
integration one runs the headless demo on the real Codex and reads its stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from wrapper.harness.acp.presets import PRESETS, installed, mock_env
from wrapper.mock.codex_models import INSTRUCTIONS

ROOT = Path(__file__).resolve().parents[5]


def test_the_mock_codex_home_names_a_catalog_holding_the_mock_model(tmp_path: Path) -> None:
    env = mock_env(PRESETS["codex"], "http://127.0.0.1:9", tmp_path / "h", "m1")
    config = tomllib.loads((Path(env["CODEX_HOME"]) / "config.toml").read_text())
    # what the home already said stays: the provider, asking, the model
    assert config["model"] == "m1" and config["model_provider"] == "mock"
    assert config["approval_policy"] == "untrusted"
    assert config["model_providers"]["mock"]["base_url"] == "http://127.0.0.1:9/v1"
    catalog = json.loads(Path(config["model_catalog_json"]).read_text())
    assert [m["slug"] for m in catalog["models"]] == ["m1"]


def test_the_catalog_entry_keeps_the_tools_codex_gives_an_unknown_model(tmp_path: Path) -> None:
    """The fallback's values (the default shell tool, no parallel calls, text search), and Codex's patch tool."""
    env = mock_env(PRESETS["codex"], "http://127.0.0.1:9", tmp_path / "h", "mock-model")
    config = tomllib.loads((Path(env["CODEX_HOME"]) / "config.toml").read_text())
    (entry,) = json.loads(Path(config["model_catalog_json"]).read_text())["models"]
    assert entry["shell_type"] == "default" and entry["apply_patch_tool_type"] == "freeform"
    assert entry["supports_parallel_tool_calls"] is False and entry["experimental_supported_tools"] == []
    assert entry["web_search_tool_type"] == "text" and entry["supports_search_tool"] is False
    assert entry["truncation_policy"] == {"mode": "bytes", "limit": 10_000}
    assert entry["base_instructions"] == INSTRUCTIONS


def test_a_home_path_that_needs_escaping_still_reads_as_toml(tmp_path: Path) -> None:
    home = tmp_path / 'a "quoted" \\ hömé'
    env = mock_env(PRESETS["codex"], "http://127.0.0.1:9", home, "m1")
    config = tomllib.loads((Path(env["CODEX_HOME"]) / "config.toml").read_text())
    assert Path(config["model_catalog_json"]).is_file()


@pytest.mark.integration
def test_the_headless_codex_demo_prints_the_models_answer_without_codexs_warning(tmp_path: Path) -> None:
    if not installed(PRESETS["codex"]):
        pytest.skip("codex is not installed: run `breaker-tui setup-agent codex`")
    env = {**os.environ, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
    (tmp_path / "config.toml").write_text("")  # empty: the defaults (a named config must exist)
    env["BREAKER_TUI_CONFIG"] = str(tmp_path / "config.toml")
    cmd = [sys.executable, "-m", "tui", "demo", "read-loop", "--agent", "codex", "--no-tui", "--quiet"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = [line for line in done.stdout.splitlines() if line and not line.startswith("breaker:")]
    assert answer, done.stdout
    assert "Model metadata" not in done.stdout and "fallback metadata" not in done.stdout, done.stdout
    assert answer[0].startswith("I stopped re-reading notes.txt"), done.stdout
