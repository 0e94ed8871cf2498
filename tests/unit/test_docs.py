"""The documentation site holds every config key, key binding, agent, subcommand and exit status.

The reference tables are generated from the code by `docs/_hooks/reference.py` (an mkdocs hook), so
these tests render the pages the way the build does, without building the site, and check that
nothing the code declares is missing and that the pages ask for the tables at all.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from types import ModuleType

import pytest

from engine.keynames import aliases
from tests.conftest import ROOT
from tui.cli import COMMANDS
from tui.keys import KEYS, validate_keymap
from wrapper.exits import Exit
from wrapper.harness.acp.presets import PRESETS
from wrapper.settings import SECTIONS

DOCS = ROOT / "docs"


@cache
def hook() -> ModuleType:
    """The mkdocs hook module, loaded from its file as mkdocs loads it."""
    spec = importlib.util.spec_from_file_location("docs_reference", DOCS / "_hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def page(name: str) -> str:
    """A docs page as the site shows it: with its generated tables filled in."""
    text = (DOCS / name).read_text()
    rendered: str = hook().render(text)
    return rendered


def test_every_page_with_a_table_asks_for_it() -> None:
    wanted = {"configuration.md": "config", "keys.md": "keys", "agents.md": "agents", "cli.md": "cli"}
    for name, table in wanted.items():
        assert hook().MARKER.format(table) in (DOCS / name).read_text(), f"{name} lost its generated {table} table"
        assert "<!-- generated:" not in page(name)


def test_the_config_reference_covers_every_section_of_the_config_file() -> None:
    assert set(hook().config_sections()) == set(SECTIONS) - {"keys"}


def test_every_config_key_is_on_the_configuration_page_with_its_docstring() -> None:
    text = page("configuration.md")
    for section, model in hook().config_sections().items():
        docs = hook().field_docs(model)
        assert f"### `[{section}]`" in text
        for key in model.model_fields:
            assert docs.get(key), f"[{section}] {key} has no docstring: the reference would show nothing"
            assert re.search(rf"^\| `{re.escape(key)}` \| .+ \| .+ \|$", text, re.M), f"[{section}] {key}"


def test_the_config_page_names_snake_case_keys_and_explains_the_aliases() -> None:
    text = page("configuration.md")
    for model in hook().config_sections().values():
        for alias in aliases(model):
            assert f"| `{alias}` |" not in text, f"the reference lists the alias {alias} as a key"
    assert "`noveltyStreak` is the seed name of `novelty_streak`" in text


def test_a_field_docstring_is_read_from_the_source() -> None:
    from engine.config import ThinkingConfig

    docs = hook().field_docs(ThinkingConfig)
    assert docs["novelty_streak"] == "Consecutive low-novelty blocks that trip."


def test_every_key_binding_is_on_the_keys_page() -> None:
    text = page("keys.md")
    for k in KEYS:
        assert f"| `{k.id}` |" in text, f"binding {k.id} ({k.key}) is not on the keys page"
    for binding_id in hook().keymap_ids():
        assert not validate_keymap({binding_id: "x"})
        assert f"`{binding_id}`" in text
    assert {"approve.arm", "approve.once", "approve.escape"} <= set(hook().keymap_ids())


def test_the_keys_page_lists_watchs_keys_in_their_own_table() -> None:
    from textual.binding import Binding

    from tui.watch import WatchApp

    text = page("keys.md")
    table = text[text.index("### breaker-tui watch") :]
    for b in WatchApp.BINDINGS:
        assert isinstance(b, Binding)
        assert f"`{b.key}`" in table and (b.description or b.action) in table, f"watch's {b.key} is not on the page"
    assert "| `a` / `y` | allow once |" in table and "| `d` / `n` | deny |" in table


def test_every_agent_is_on_the_agents_page() -> None:
    text = page("agents.md")
    assert "| **dsh** |" in text
    for name, preset in PRESETS.items():
        assert f"| **{name}** | `{preset.package}` {preset.version} |" in text


def test_every_subcommand_has_its_help_on_the_cli_page() -> None:
    text = page("cli.md")
    for name in COMMANDS:
        assert f"## `breaker-tui {name}`" in text
        assert f"usage: breaker-tui {name}" in text, f"`breaker-tui {name} --help` printed nothing"


def test_every_exit_status_is_in_the_guide() -> None:
    text = page("guide.md")
    for code in Exit:
        assert f"| `{int(code)}` |" in text, f"exit status {int(code)} ({code.name}) is not in the guide's table"


def test_every_page_in_the_nav_exists_and_every_page_is_in_the_nav() -> None:
    nav = re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M)
    pages = {p.name for p in DOCS.glob("*.md")}
    assert set(nav) <= pages, f"mkdocs.yml names pages that do not exist: {set(nav) - pages}"
    assert pages <= set(nav), f"pages missing from mkdocs.yml nav: {pages - set(nav)}"


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS.glob("*.md")))
def test_no_report_tags_in_the_docs(name: str) -> None:
    tags = re.findall(r"\b(?:issue \d+|M\d{1,2}\b|NOTES-\S+|report turn \d+)", (DOCS / name).read_text())
    assert not tags, f"{name} carries report tags {tags}: keep the reason, drop the tag"


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS.glob("*.md")))
def test_no_page_says_a_loosened_config_file_observes(name: str) -> None:
    """A loosened file is held back until accepted, then LOOSENED: only settings made in code say OBSERVING."""
    from wrapper.settings import from_mapping
    from wrapper.weakening import hold_back, status_word

    assert status_word(hold_back(from_mapping({"repeat": {"local_hosts": "allow"}}, "loose.toml"))) == ""
    text = " ".join((DOCS / name).read_text().split())
    for at in (m.start() for m in re.finditer(re.escape("OBSERVING (config loosened)"), text)):
        assert "in code" in text[max(0, at - 80) : at], f"{name} says a loosened config file makes the status OBSERVING"
