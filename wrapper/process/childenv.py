"""What of the person's environment never reaches a monitored harness (dsh, an ACP agent) or its tools.

Two kinds of variable can switch the monitor off without touching a file it checks. A loader or
injection variable runs code inside the pinned harness before its first line: `NODE_OPTIONS=--require
X` (written by a tool into a `.bashrc` or `.envrc`) kept dsh from loading its bridge, and every call
then ran unchecked. A terminal-multiplexer variable tells a tool where the person's terminal is:
with `TMUX` a helper typed `Tab a` into the approval modal, and the call ran as if the person had
allowed it. Both are removed by kind, declared once here; the session names what it removed.

Why a table of refused kinds and not a list of allowed names: agents need variables nobody can list
ahead (API keys, proxies, their own settings); the kinds below are the ones that load code or drive
the terminal, and a kind (a prefix) covers the names a tool could invent within it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """One kind of variable the harness never gets: exact names and name prefixes, and why."""

    label: str
    names: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()

    def matches(self, name: str) -> bool:
        """Whether `name` is of this kind (prefixes compare case-insensitively: npm reads any case)."""
        if name in self.names:
            return True
        upper = name.upper()
        return any(upper.startswith(p.upper()) for p in self.prefixes)


KINDS: tuple[Kind, ...] = (
    Kind("Node preload", ("NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE"), ("npm_config_",)),
    Kind("dynamic loader", (), ("LD_", "DYLD_")),
    Kind("Python startup", ("PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONBREAKPOINT")),
    Kind("Perl/Ruby startup", ("PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB")),
    Kind(
        "shell startup",
        ("BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4"),
        ("BASH_FUNC_",),
    ),
    Kind("JVM options", ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")),
    Kind(
        "git config injection", ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"), ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")
    ),
    Kind(
        "terminal multiplexer control",
        ("TMUX", "TMUX_PANE", "TMUX_TMPDIR", "STY", "WINDOW", "KITTY_LISTEN_ON", "KITTY_WINDOW_ID", "KITTY_PID"),
        ("ZELLIJ", "WEZTERM_", "ALACRITTY_SOCKET", "NVIM_LISTEN_ADDRESS"),
    ),
)


def kind_of(name: str) -> Kind | None:
    """The refused kind `name` belongs to, or None when the harness may have it."""
    return next((k for k in KINDS if k.matches(name)), None)


@dataclass(frozen=True)
class Scrubbed:
    """The environment the harness gets, and what was removed (name, kind), in the order found."""

    env: dict[str, str]
    removed: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        """One line for the banner: the removed names, grouped by kind ("" when nothing was removed)."""
        by_kind: dict[str, list[str]] = {}
        for name, label in self.removed:
            by_kind.setdefault(label, []).append(name)
        if not by_kind:
            return ""
        parts = "; ".join(f"{label}: {', '.join(sorted(names))}" for label, names in by_kind.items())
        return f"removed from the agent's environment (they load code into it or drive your terminal): {parts}"


def scrub(env: Mapping[str, str]) -> Scrubbed:
    """`env` without every variable of a refused kind."""
    kept: dict[str, str] = {}
    removed: list[tuple[str, str]] = []
    for name, value in env.items():
        kind = kind_of(name)
        if kind is None:
            kept[name] = value
        else:
            removed.append((name, kind.label))
    return Scrubbed(kept, tuple(removed))
