"""The README documents every config key, every subcommand and every exit code."""

from __future__ import annotations

from engine.config import EngineConfig, ThinkingConfig
from engine.repeat_config import RepeatConfig
from tests.conftest import ROOT
from tui.cli import COMMANDS
from wrapper.harness.acp.config import AcpSettings
from wrapper.settings import UiSettings, WrapperSettings

README = (ROOT / "README.md").read_text()


def test_every_config_key_is_documented() -> None:
    for cls in (RepeatConfig, ThinkingConfig, EngineConfig, WrapperSettings, UiSettings, AcpSettings):
        for key in cls.model_fields:
            assert f"| `{key}` |" in README, f"{cls.__name__}.{key} is not in the README"


def test_every_subcommand_and_exit_code_is_documented() -> None:
    for cmd in COMMANDS:
        assert f"breaker-tui {cmd}" in README
    for code in ("`0`", "`1`", "`2`", "`3`", "`70`"):
        assert f"| {code} |" in README
    assert "make demo" in README and "make test" in README
