"""A failed model request is said once, in words, naming the endpoint (real dsh, the mock stopped or no key)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration
CLI = [sys.executable, "-m", "tui"]
DEV = ["--", "dsh", "--profile", "dev"]


def _run(w: Any, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [*CLI, "--no-tui", "--prompt", "Say hello", *DEV],
        cwd=w.workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def _model_lines(stderr: str, words: str) -> list[str]:
    return [line for line in stderr.splitlines() if words in line]


def test_an_endpoint_that_is_down_is_named_once_in_words(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("normal")
    url = w.env["DEEPSEEK_BASE_URL"]
    w.mock.stop()
    p = _run(w, tmp_path, w.env)
    assert p.returncode == 1, p.stderr[-2000:]
    said = [line for line in p.stderr.splitlines() if "the model endpoint" in line]
    assert said and all(url in line for line in said), p.stderr[-2000:]
    assert "agent error" not in p.stderr, "the failed request is not said again as an agent error"
    assert "model request failed:" not in p.stderr


def test_a_missing_key_says_what_to_set_or_to_use_the_mock(world_factory: Any, tmp_path: Path) -> None:
    w = world_factory("normal")
    env = {k: v for k, v in w.env.items() if k != "DEEPSEEK_API_KEY"}
    p = _run(w, tmp_path, env)
    assert p.returncode == 1, p.stderr[-2000:]
    said = _model_lines(p.stderr, "no API key for the model endpoint")
    assert len(said) == 1 and "DEEPSEEK_API_KEY" in said[0] and "mock-llm" in said[0], p.stderr[-2000:]
    assert "agent error" not in p.stderr
