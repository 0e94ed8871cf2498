"""The command lines of the hooks: `hooks install|uninstall|status`, `hook AGENT` and `serve`.

`hook` runs before every tool call: it parses its two words by hand and imports only the client (the
installed command runs the client's file directly, see `wrapper.hooks.client`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from wrapper.hooks.agents import AGENTS

EXIT_OK, EXIT_FAILED = 0, 1


def hook(args: list[str]) -> int:
    """`breaker-tui hook AGENT [--fail-closed]`: the alias of the installed `PYTHON -I -m wrapper.hooks.client`."""
    from wrapper.hooks.client import cli

    return cli(args)


def serve(args: list[str]) -> int:
    """`breaker-tui serve`: the per-user hook server (the first hook starts it)."""
    from wrapper.hooks.server import main

    return main(args)


def hooks(args: list[str]) -> int:
    """`breaker-tui hooks install|uninstall|status [AGENT]`."""
    import argparse

    p = argparse.ArgumentParser(
        prog="breaker-tui hooks",
        description="Guard Claude Code, Codex or Gemini CLI in its own terminal: breaker's entries in the agent's "
        "own hook config (merged beside the person's own hooks; uninstall removes only breaker's).",
    )
    p.add_argument(
        "action",
        choices=("install", "uninstall", "status"),
        help="install: add breaker-tui's hooks to the agent's config (what you have there is kept); "
        "uninstall: take them out again, leaving the rest byte for byte; "
        "status: whether each agent's hooks are installed and their command exists",
    )
    p.add_argument("agent", nargs="?", choices=AGENTS, help="the agent (status: all when left out)")
    p.add_argument("--project", action="store_true", help="the current folder's config, not the user's")
    p.add_argument("--dry-run", action="store_true", help="print the change as a unified diff; write nothing")
    p.add_argument("--fail-closed", action="store_true", help="refuse every call when no verdict comes")
    p.add_argument("--codex", metavar="PATH", help="the codex executable asked to trust the hooks (default: PATH)")
    a = p.parse_args(args)
    if a.action != "status" and a.agent is None:
        p.error(f"{a.action} needs an agent: one of {', '.join(AGENTS)}")
    project = Path.cwd() if a.project else None
    if a.action == "status":
        return status([a.agent] if a.agent else list(AGENTS), project)
    from wrapper.hooks.install import InstallError

    try:
        if a.action == "install":
            return install(a.agent, project, a.dry_run, a.fail_closed, a.codex)
        return uninstall(a.agent, project, a.dry_run)
    except InstallError as e:
        print(f"breaker-tui hooks {a.action} {a.agent}: {e}", file=sys.stderr)
        return EXIT_FAILED


def install(agent: str, project: Path | None, dry_run: bool, fail_closed: bool, codex: str | None) -> int:
    """Merge breaker's entries into the agent's config (Codex: then ask Codex to trust them)."""
    from wrapper.hooks.health import probe
    from wrapper.hooks.install import InstallError, apply, config_path, install_plan, launcher

    path = config_path(agent, project)
    start = launcher()
    ok, said = probe(start)
    if not ok:  # a command that cannot run would block every Gemini call: never write one
        raise InstallError(f"the hook command does not run here ({said}): reinstall breaker-tui and try again")
    plan = install_plan(agent, path, start, fail_closed)
    if dry_run:
        print(plan.diff() or f"{path}: already installed, nothing to change")
        if agent == "codex":
            print("# codex: the trust entries are asked from `codex app-server` once the hooks are written")
        return EXIT_OK
    apply(plan, installing=True)
    mode = " (fail-closed)" if fail_closed else ""
    done = "installed breaker-tui's hooks" if plan.changes else "breaker-tui's hooks were already installed, unchanged,"
    print(f"{done} for {agent} in {path}{mode}")
    if agent == "codex":
        return trust_codex(path, start, fail_closed, codex, project)
    return EXIT_OK


def trust_codex(path: Path, start: list[str], fail_closed: bool, codex: str | None, project: Path | None) -> int:
    """Write Codex's trust for the two hooks just written (it skips untrusted hooks without a word).

    A project's hooks are trusted in the person's own Codex config: Codex ignores trust a project gives itself.
    """
    from wrapper.hooks.codex_trust import codex_hashes
    from wrapper.hooks.install import (
        InstallError,
        apply,
        codex_keys,
        codex_trusted,
        config_path,
        install_plan,
        project_trusted,
        trust_plan,
    )

    user = config_path("codex")
    try:
        hashes = codex_hashes(path, codex_keys(path), codex, project)
    except InstallError as e:
        if project_trusted(user, path) if project else codex_trusted(path):  # the trust Codex gave still holds
            print(f"kept the trust Codex gave these hooks before (could not ask it again: {e})", file=sys.stderr)
            return EXIT_OK
        print(f"breaker-tui hooks install codex: the hooks are written but NOT trusted: {e}", file=sys.stderr)
        return EXIT_FAILED
    if project is None:
        apply(install_plan("codex", path, start, fail_closed, hashes), installing=True)
        print(f"trusted them in {path} (Codex's own hashes)")
    else:
        apply(trust_plan(user, path, hashes), installing=True, note=False)
        print(f"trusted them in {user} (Codex's own hashes; Codex takes a project's hook trust only from there)")
    return EXIT_OK


def uninstall(agent: str, project: Path | None, dry_run: bool) -> int:
    """Take breaker's entries out of the agent's config as it is now."""
    from wrapper.hooks.install import apply, config_path, trust_plan, uninstall_plan

    path = config_path(agent, project)
    plan = uninstall_plan(agent, path)
    trust = trust_plan(config_path("codex"), path, None) if agent == "codex" and project else None
    if dry_run:
        print(plan.diff() or f"{path}: {plan.note or 'nothing to remove'}")
        if trust is not None and trust.changes:
            print(trust.diff())
        return EXIT_OK
    apply(plan, installing=False)
    gone = " (the file install created is removed)" if plan.before is not None and plan.after is None else ""
    print(f"removed breaker-tui's hooks for {agent} from {path}{gone}" if plan.changes else f"{path}: {plan.note}")
    if trust is not None and trust.changes:
        apply(trust, installing=False, note=False)
        print(f"removed their trust from {trust.path}")
    return EXIT_OK


def status(agents: list[str], project: Path | None) -> int:
    """Per agent: its config, each of breaker's hook commands and whether it runs, Codex's trust, the server.

    Exits 1 when an installed hook cannot run or is not trusted (a missing command blocks every Gemini call),
    or when no hook can start the server (every call would go unchecked).
    """
    from wrapper.hooks.health import SERVER_FIX, check, server

    bad = False
    for agent in agents:
        h = check(agent, project)
        print(f"{agent}: {'installed' if h.installed else 'not installed'} ({h.path})")
        for line in h.lines:
            print(f"  {line}")
        for problem in h.problems:
            print(f"  PROBLEM: {problem}\n  fix: {h.fix}")
        bad = bad or bool(h.problems)
    ok, said = server()
    print(f"serve: {said}" if ok else f"serve: PROBLEM: {said}\n  fix: {SERVER_FIX}")
    return EXIT_FAILED if bad or not ok else EXIT_OK
