"""`breaker-tui agents` and `breaker-tui setup-agent NAME`, and the check before running a preset."""

from __future__ import annotations

import argparse
import sys

from wrapper.exits import Exit
from wrapper.harness.acp.install import setup_agent, version_of
from wrapper.harness.acp.presets import PRESETS
from wrapper.harness.acp.resolve import resolve
from wrapper.safetext import inert
from wrapper.toolchain import ProvisionError, node


def agents(args: list[str], description: str = "") -> int:
    """List the known ACP agents, whether each is installed, and how breaker-tui makes it ask."""
    argparse.ArgumentParser(prog="breaker-tui agents", description=description or None).parse_args(args)
    for p in PRESETS.values():
        v = version_of(p)
        state = (
            f"pinned copy {v}" if v else f"no pinned copy (`breaker-tui setup-agent {p.name}`, about {p.size_mb} MB)"
        )
        print(f"{p.name:9} {p.package}@{p.version}: {state}")
        print(f"{'':9} runs: {which_runs(p.name)}")
        print(f"{'':9} asks before tool calls: {p.asks}")
        print(f"{'':9} cannot: {p.cannot}")
    print("\nrun one with `breaker-tui -- NAME`; any other ACP agent with `breaker-tui --acp -- COMMAND ARGS`")
    return Exit.OK


def which_runs(name: str, path: str | None = None) -> str:
    """Which copy `breaker-tui -- NAME` runs, and why (the person's own first)."""
    try:
        r = resolve([name], path, node())
    except FileNotFoundError:
        return "nothing: not on PATH and no pinned copy"
    return f"{r.launcher} ({r.why})" if r is not None else "?"


def setup(args: list[str], description: str = "") -> int:
    """Install a pinned agent (or every known one) into the user data directory, or list the known ones."""
    ap = argparse.ArgumentParser(prog="breaker-tui setup-agent", description=description or None)
    ap.add_argument("name", nargs="?", choices=list(PRESETS), help="the agent to install")
    ap.add_argument("--all", action="store_true", help="install every known agent (what `make agents` runs)")
    ap.add_argument("--list", action="store_true", help="print the known agents' names, one a line, and exit")
    ap.add_argument("--force", action="store_true", help="reinstall even if present")
    a = ap.parse_args(args)
    if a.list:
        print("\n".join(PRESETS))
        return Exit.OK
    if (a.name is None) == (not a.all):
        ap.error(f"name one agent ({', '.join(PRESETS)}) or give --all (not both)")
    failed = [name for name in ([a.name] if a.name else list(PRESETS)) if not _installed_one(name, a.force)]
    return Exit.CANNOT_START if failed else Exit.OK


def _installed_one(name: str, force: bool) -> bool:
    """Install one agent, saying why not on stderr."""
    try:
        setup_agent(name, lambda s: print(s, flush=True), force=force)
    except ProvisionError as e:
        print(f"breaker-tui setup-agent: {inert(str(e))}", file=sys.stderr)
        return False
    return True


def cannot_run(command: list[str], path: str | None = None) -> str | None:
    """Why a known agent cannot run (not found, with the fix), or None."""
    try:
        resolve(command, path, node())
    except FileNotFoundError as e:
        return str(e)
    return None
