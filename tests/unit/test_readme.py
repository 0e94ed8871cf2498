"""The README stays a newcomer's page: short, the two commands first, every agent and command named.

The manual lives in `docs/` (see `test_docs.py`); the README points into it, so its links must resolve.
"""

from __future__ import annotations

import re

from tests.conftest import ROOT
from tui.cli import COMMANDS
from wrapper.harness.acp.presets import PRESETS

README = (ROOT / "README.md").read_text()
MAX_LINES = 200


def test_the_readme_is_at_most_200_lines() -> None:
    lines = README.count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; move the detail to a page under docs/"


def test_the_two_commands_are_on_the_first_screen() -> None:
    first_screen = "\n".join(README.split("\n")[:40])
    assert "make demo" in first_screen and "make test" in first_screen


def test_every_agent_has_a_row_in_the_agents_table() -> None:
    for name in PRESETS:
        assert f"`breaker-tui -- {name}`" in README, f"the README's agent table has no row for {name}"
    assert "`breaker-tui -- dsh --profile dev`" in README


def test_the_command_line_in_brief_names_every_subcommand() -> None:
    brief = README[README.index("## The command line in brief") :]
    for name in COMMANDS:
        assert re.search(rf"\b{re.escape(name)}\b", brief), f"`breaker-tui {name}` is not in the README"


def test_every_relative_link_resolves() -> None:
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
