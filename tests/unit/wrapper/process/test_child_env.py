"""The harness's environment: every variable of a refused kind is removed and named, the rest kept."""

from __future__ import annotations

import pytest

from wrapper.process.childenv import KINDS, kind_of, scrub


@pytest.mark.parametrize(
    "name",
    [
        "NODE_OPTIONS",
        "NODE_PATH",
        "npm_config_node_options",
        "NPM_CONFIG_PREFIX",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "DYLD_INSERT_LIBRARIES",
        "PYTHONSTARTUP",
        "PYTHONPATH",
        "PYTHONHOME",
        "PERL5OPT",
        "RUBYOPT",
        "BASH_ENV",
        "ENV",
        "BASH_FUNC_ls%%",
        "JAVA_TOOL_OPTIONS",
        "GIT_CONFIG_PARAMETERS",
        "TMUX",
        "TMUX_PANE",
        "STY",
        "ZELLIJ",
        "ZELLIJ_SESSION_NAME",
        "KITTY_LISTEN_ON",
        "KITTY_WINDOW_ID",
        "WEZTERM_UNIX_SOCKET",
    ],
)
def test_a_loader_or_multiplexer_variable_is_refused(name: str) -> None:
    assert kind_of(name) is not None
    got = scrub({name: "x", "PATH": "/usr/bin"})
    assert name not in got.env and got.env == {"PATH": "/usr/bin"}
    assert got.removed == ((name, kind_of(name).label),)  # type: ignore[union-attr]
    assert name in got.describe()


@pytest.mark.parametrize(
    "name", ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "DEEPSEEK_API_KEY", "HTTPS_PROXY", "DSH_HOME", "NODE_ENV"]
)
def test_what_an_agent_needs_is_kept(name: str) -> None:
    assert kind_of(name) is None
    assert scrub({name: "v"}).env == {name: "v"} and scrub({name: "v"}).describe() == ""


def test_the_banner_groups_the_removed_names_by_kind() -> None:
    line = scrub({"TMUX": "/tmp/tmux-0/default,1,0", "NODE_OPTIONS": "--require x", "TMUX_PANE": "%1"}).describe()
    assert "Node preload: NODE_OPTIONS" in line
    assert "terminal multiplexer control: TMUX, TMUX_PANE" in line


def test_every_kind_is_declared_once() -> None:
    labels = [k.label for k in KINDS]
    assert len(labels) == len(set(labels))
