"""The README documents every config key, every subcommand and every exit code."""

from __future__ import annotations

import re

from pydantic import BaseModel

from engine.config import EngineConfig, ThinkingConfig
from engine.keynames import aliases
from engine.repeat_config import RepeatConfig
from tests.conftest import ROOT
from tui.cli import COMMANDS
from wrapper.settings import AcpSettings, UiSettings, WrapperSettings

README = (ROOT / "README.md").read_text()


def test_every_config_key_is_documented() -> None:
    for cls in (RepeatConfig, ThinkingConfig, EngineConfig, WrapperSettings, UiSettings, AcpSettings):
        for key in cls.model_fields:
            assert f"| `{key}` |" in README, f"{cls.__name__}.{key} is not in the README"


def _config_table(section: str) -> list[str]:
    """The keys listed in the README's table under **`[section]`**, in order."""
    lines = README[README.index(f"**`[{section}]`**") :].split("\n")[1:]
    rows: list[str] = []
    for line in lines:
        if rows and not line.startswith("|"):
            break
        if line.startswith("| `"):
            rows.append(line)
    return [m.group(1) for r in rows if (m := re.match(r"\| `([^`]+)` \|", r))]


def test_each_config_table_lists_exactly_the_snake_case_keys_of_its_section() -> None:
    sections: dict[str, type[BaseModel]] = {
        "repeat": RepeatConfig,
        "thinking": ThinkingConfig,
        "engine": EngineConfig,
        "wrapper": WrapperSettings,
        "acp": AcpSettings,
        "ui": UiSettings,
    }
    for section, cls in sections.items():
        assert _config_table(section) == list(cls.model_fields), f"README [{section}] table"
        for alias in aliases(cls):
            assert f"| `{alias}` |" not in README, f"the README lists the alias {alias} as a key"
    assert aliases(ThinkingConfig) and "`noveltyStreak` is the seed name of `novelty_streak`" in README


def test_every_subcommand_and_exit_code_is_documented() -> None:
    for cmd in COMMANDS:
        assert f"breaker-tui {cmd}" in README
    for code in ("`0`", "`1`", "`2`", "`3`", "`70`"):
        assert f"| {code} |" in README
    assert "make demo" in README and "make test" in README
