"""`breaker-tui agents` and `breaker-tui setup-agent NAME`, and the check before running a preset."""

from __future__ import annotations

import argparse
import sys

from wrapper.harness.acp.install import setup_agent, version_of
from wrapper.harness.acp.presets import PRESETS, command_line, preset_for
from wrapper.safetext import inert
from wrapper.toolchain import ProvisionError, node


def agents(args: list[str]) -> int:
    """List the known ACP agents, whether each is installed, and how breaker-tui makes it ask."""
    argparse.ArgumentParser(prog="breaker-tui agents", description="the ACP agents breaker-tui knows").parse_args(args)
    for p in PRESETS.values():
        v = version_of(p)
        state = f"installed {v}" if v else f"not installed (`breaker-tui setup-agent {p.name}`, about {p.size_mb} MB)"
        print(f"{p.name:9} {p.package}@{p.version}: {state}")
        print(f"{'':9} asks before tool calls: {p.asks}")
        print(f"{'':9} cannot: {p.cannot}")
    print("\nrun one with `breaker-tui -- NAME`; any other ACP agent with `breaker-tui --acp -- COMMAND ARGS`")
    return 0


def setup(args: list[str]) -> int:
    """Install a pinned agent into the user data directory."""
    ap = argparse.ArgumentParser(prog="breaker-tui setup-agent")
    ap.add_argument("name", choices=list(PRESETS), help="the agent to install")
    ap.add_argument("--force", action="store_true", help="reinstall even if present")
    a = ap.parse_args(args)
    try:
        setup_agent(a.name, lambda s: print(s, flush=True), force=a.force)
    except ProvisionError as e:
        print(f"breaker-tui setup-agent: {inert(str(e))}", file=sys.stderr)
        return 3
    return 0


def cannot_run(command: list[str]) -> str | None:
    """Why a preset agent cannot run (not installed, with the fix), or None."""
    p = preset_for(command)
    if p is None:
        return None
    try:
        command_line(p, command, node())
    except FileNotFoundError as e:
        return str(e)
    return None
