"""Shared fixtures: hermetic config and state directories for every test."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(autouse=True)
def _hermetic(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's own config or writes to their state directory."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("BREAKER_TUI_CONFIG", str(home / "no-config.toml"))
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(home / "state"))
