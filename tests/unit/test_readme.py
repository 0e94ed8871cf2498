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


def test_the_command_line_in_brief_names_every_run_option() -> None:
    """CONTRIBUTING says a run option (before `--`) is named in the brief; `--digest-to` once was not."""
    from tui.cli import _run_option_arity

    brief = README[README.index("## The command line in brief") : README.index("## Read more")]
    for option in _run_option_arity():
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", brief), f"{option} is not in the README's brief"


def test_every_relative_link_resolves() -> None:
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_the_readme_says_what_a_loosened_config_does() -> None:
    """A loosened value of a file nobody accepted is held back: the status stays ENFORCING, not OBSERVING."""
    from wrapper.settings import from_mapping
    from wrapper.weakening import hold_back, report, status_word

    held = hold_back(from_mapping({"repeat": {"local_hosts": "allow"}}, "loose.toml"))
    assert status_word(held) == ""  # the default holds: nothing loosened is in effect, the status line says ENFORCING
    assert "NOT APPLIED (the default holds)" in " ".join(report(held))
    text = " ".join(README.split())
    assert "OBSERVING (config loosened)" not in text
    assert "`NOT APPLIED (the default holds)`" in text and "`LOOSENED (accepted config)`" in text
