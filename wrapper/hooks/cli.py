"""The command lines of the hooks: `hooks install|uninstall|status`, `hook AGENT` and `serve`.

`hook` runs before every tool call: it parses its two words by hand and imports only the client.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from wrapper.hooks.agents import AGENTS

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
HOOK_HELP = f"""usage: breaker-tui hook {{{",".join(AGENTS)}}} [--fail-closed]

The command an agent runs before and after every tool call (`breaker-tui hooks install AGENT` writes it
into the agent's config). It reads the agent's payload on stdin, asks `breaker-tui serve` (starting it
when absent) and answers in the agent's own format: nothing to allow, a refusal with its reason.
With no verdict the call runs and stderr says why; with --fail-closed it is refused."""


def hook(args: list[str]) -> int:
    """`breaker-tui hook AGENT [--fail-closed]`: the agent's hook command."""
    from wrapper.hooks.client import main

    if "-h" in args or "--help" in args:
        print(HOOK_HELP)
        return EXIT_OK
    words = [a for a in args if a != "--fail-closed"]
    if len(words) != 1 or words[0] not in AGENTS:
        print(HOOK_HELP, file=sys.stderr)
        return EXIT_USAGE
    return main(words[0], "--fail-closed" in args)


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
    p.add_argument("action", choices=("install", "uninstall", "status"))
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


def own_executable() -> str:
    """The absolute path of `breaker-tui`, written into the agent's config."""
    import shutil

    from wrapper.hooks.install import InstallError

    found = shutil.which("breaker-tui")
    if found is None:
        beside = Path(sys.executable).parent / "breaker-tui"
        found = str(beside) if os.access(beside, os.X_OK) else None
    if found is None:
        raise InstallError("breaker-tui is not on PATH: install it (pipx install breaker-tui) and run this again")
    return os.path.abspath(found)


def install(agent: str, project: Path | None, dry_run: bool, fail_closed: bool, codex: str | None) -> int:
    """Merge breaker's entries into the agent's config (Codex: then ask Codex to trust them)."""
    from wrapper.hooks.install import apply, config_path, install_plan

    path = config_path(agent, project)
    exe = own_executable()
    plan = install_plan(agent, path, exe, fail_closed)
    if dry_run:
        print(plan.diff() or f"{path}: already installed, nothing to change")
        if agent == "codex":
            print("# codex: the trust entries are asked from `codex app-server` once the hooks are written")
        return EXIT_OK
    apply(plan, installing=True)
    print(f"installed breaker-tui's hooks for {agent} in {path}" + (" (fail-closed)" if fail_closed else ""))
    if agent == "codex":
        return trust_codex(path, exe, fail_closed, codex, project)
    return EXIT_OK


def trust_codex(path: Path, exe: str, fail_closed: bool, codex: str | None, project: Path | None) -> int:
    """Write Codex's trust for the two hooks just written (it skips untrusted hooks without a word)."""
    from wrapper.hooks.codex_trust import codex_hashes
    from wrapper.hooks.install import InstallError, apply, codex_keys, codex_trusted, install_plan

    try:
        hashes = codex_hashes(path, codex_keys(path), codex, project)
    except InstallError as e:
        if codex_trusted(path):  # the same hooks as before: the trust Codex gave them still holds
            print(f"kept the trust Codex gave these hooks before (could not ask it again: {e})", file=sys.stderr)
            return EXIT_OK
        print(f"breaker-tui hooks install codex: the hooks are written but NOT trusted: {e}", file=sys.stderr)
        return EXIT_FAILED
    apply(install_plan("codex", path, exe, fail_closed, hashes), installing=True)
    print(f"trusted them in {path} (Codex's own hashes)")
    return EXIT_OK


def uninstall(agent: str, project: Path | None, dry_run: bool) -> int:
    """Take breaker's entries out of the agent's config as it is now."""
    from wrapper.hooks.install import apply, config_path, uninstall_plan

    path = config_path(agent, project)
    plan = uninstall_plan(agent, path)
    if dry_run:
        print(plan.diff() or f"{path}: {plan.note or 'nothing to remove'}")
        return EXIT_OK
    apply(plan, installing=False)
    gone = " (the file install created is removed)" if plan.before is not None and plan.after is None else ""
    print(f"removed breaker-tui's hooks for {agent} from {path}{gone}" if plan.changes else f"{path}: {plan.note}")
    return EXIT_OK


def status(agents: list[str], project: Path | None) -> int:
    """Per agent: where its config is, whether breaker's hooks are in it (and trusted), whether serve answers."""
    from wrapper.hooks.client import NoVerdict, connect
    from wrapper.hooks.install import config_path, installed

    try:
        connect(start=False).close()
        reach = "serve: running"
    except (NoVerdict, OSError) as e:
        reach = f"serve: not running ({e}); the first hook starts it"
    for agent in agents:
        path = config_path(agent, project)
        state = "installed" if installed(agent, path) else "not installed"
        if agent == "codex" and state == "installed":
            state += codex_trust_state(path, project)
        print(f"{agent}: {state} ({path})")
    print(reach)
    return EXIT_OK


def codex_trust_state(path: Path, project: Path | None) -> str:
    """Whether Codex runs breaker's hooks: Codex's own answer when `codex` runs here, else the file's entries."""
    from wrapper.hooks.codex_trust import codex_says
    from wrapper.hooks.install import InstallError, codex_keys, codex_trusted

    try:
        said = codex_says(codex_keys(path), project)
    except InstallError as e:
        return f", trust unknown: {e}"
    if said is None:
        written = codex_trusted(path)
        return ", trust entries written (codex is not on PATH to confirm)" if written else ", NOT trusted"
    return ", trusted (Codex says)" if said == "trusted" else f", NOT trusted: Codex says {said} (it skips them)"
