"""Whether the installed hooks work: each command breaker wrote, whether it exists and runs, Codex's trust,
and whether the server answers.

A hook command that cannot run is worse than none: Gemini blocks every call whose hook command is
missing. `hooks status` and `doctor` both ask here, so an upgrade that moved breaker-tui is seen at once.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from wrapper.hooks.agents import AGENTS
from wrapper.hooks.install import config_path, hook_commands, hook_words
from wrapper.toolchain import Check

PROBE_TIMEOUT_S = 30.0  # a loaded machine can take seconds to start Python


@dataclass
class Health:
    """One agent's config: breaker's hook commands in it, and what is wrong with them (nothing: healthy)."""

    agent: str
    path: Path
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    installed: bool = False
    project: Path | None = None  # the folder whose own config this is (None: the person's)
    untrusted: bool = False  # Codex skips the hooks: the fix is its trust, not the command

    @property
    def fix(self) -> str:
        scope = " --project" if self.project is not None else ""
        if self.untrusted and self.project is not None:
            return (
                f"trust {self.project} in Codex (start `codex` there and answer its question), then "
                f"breaker-tui hooks install codex --project (in that folder)"
            )
        if self.untrusted:
            return "breaker-tui hooks install codex where `codex` runs (it asks Codex to trust them)"
        return (
            f"breaker-tui hooks install {self.agent}{scope} (writes a command that runs), "
            f"or hooks uninstall {self.agent}{scope}"
        )


def probe(start: list[str]) -> tuple[bool, str]:
    """Whether a hook command starts: its first words run with `--version` (what it printed, or why not)."""
    if not os.path.exists(start[0]):
        return False, f"{start[0]} does not exist"
    try:
        p = subprocess.run(
            [*start, "--version"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False, cwd="/"
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"{start[0]} did not run: {e}"
    out = (p.stdout.strip() or p.stderr.strip()).splitlines()
    line = out[-1][:300] if out else "(no output)"
    return p.returncode == 0, line if p.returncode == 0 else f"exit {p.returncode}: {line}"


def check(agent: str, project: Path | None = None) -> Health:
    """The health of breaker's hooks in one agent's config (user scope, or the project's)."""
    h = Health(agent, config_path(agent, project), project=project)
    for command in hook_commands(agent, h.path):
        h.installed = True
        split = hook_words(command)
        ok, said = probe(split[0]) if split else (False, "not a breaker hook command")
        h.lines.append(f"{command}: {'runs' if ok else 'BROKEN'} ({said})")
        if not ok:
            stake = "every Gemini call is blocked" if agent == "gemini" else "breaker does not check the calls"
            h.problems.append(f"the hook command {shlex.split(command)[0]} cannot run ({said}): {stake}")
    if h.installed and agent == "codex":
        trust = codex_trust(h.path, project)
        h.lines.append(trust)
        if "NOT trusted" in trust:
            h.untrusted = True
            h.problems.append(f"Codex does not trust the hooks, so it skips them ({trust.strip(', ')})")
    return h


def codex_trust(path: Path, project: Path | None) -> str:
    """Whether Codex runs breaker's hooks: Codex's own answer when `codex` runs here, else the file's entries."""
    from wrapper.hooks.codex_trust import codex_says
    from wrapper.hooks.install import InstallError, codex_keys, codex_trusted, config_path, project_trusted

    try:
        said = codex_says(codex_keys(path), project)
    except InstallError as e:
        return f"trust unknown: {e}"
    if said is None:
        written = project_trusted(config_path("codex"), path) if project else codex_trusted(path)
        return "trust entries written (codex is not on PATH to confirm)" if written else "NOT trusted"
    return "trusted (Codex says)" if said == "trusted" else f"NOT trusted: Codex says {said} (it skips them)"


SERVER_FIX = "fix the config `breaker-tui doctor` names (`breaker-tui serve` then starts and says it listens)"


def server() -> tuple[bool, str]:
    """Whether the server is fine: it answers on its socket, or is not running and the first hook can start it.

    A server that cannot start (a config it refuses) is not fine: every hooked call then goes unchecked.
    """
    from wrapper.hooks.client import _connect
    from wrapper.hooks.rundir import socket_name

    path = socket_name()
    try:
        _connect(path).close()
    except OSError as e:
        why = cannot_start()
        if why:
            return False, (
                f"not running, and no hook can start it: {why}; every hooked call runs unchecked "
                "(or is refused, installed --fail-closed)"
            )
        return True, f"not running (no one listens on {path}: {e.strerror or e}); the first hook starts it"
    return True, f"running ({path}{stopped_by(path)}){asks_said()}"


def stopped_by(sock: str) -> str:
    """How to stop the running server: its pid, from the file it writes beside its socket ("" when absent)."""
    from wrapper.hooks.rundir import PID

    try:
        pid = int((Path(sock).parent / PID).read_text())
    except (OSError, ValueError):
        return ""
    return f", pid {pid}: `kill {pid}` stops it, ending its recordings"


def cannot_start() -> str:
    """Why a server a hook starts would exit at once (the config it would read), or "" when it would start."""
    from engine.errors import ConfigError
    from wrapper.hooks.server import load_settings

    try:
        load_settings(None)
    except ConfigError as e:
        return f"bad config: {e}"
    return ""


def asks_said() -> str:
    """Who can answer the asks now, as the server says (nothing from a server too old to say)."""
    from wrapper.hooks.client import NoVerdict, server_op

    try:
        st = server_op(b'{"v": 2, "op": "status"}').get("status")
    except NoVerdict:
        return ""
    if not isinstance(st, dict):
        return ""
    n, waiting = st.get("sessions"), st.get("asks")
    if st.get("watches"):
        return f": {n} session(s), a `breaker-tui watch` answers asks ({waiting} waiting)"
    return f": {n} session(s); no `breaker-tui watch` runs, so asks are refused (Claude: its own prompt)"


def every(project: Path | None = None) -> list[Health]:
    """Each agent's health, user scope, and the project's own config when it has breaker's hooks."""
    out = [check(a) for a in AGENTS]
    if project is not None:
        out += [h for h in (check(a, project) for a in AGENTS) if h.installed]
    return out


def doctor_checks(project: Path | None = None) -> list[Check]:
    """`doctor`'s lines: one per agent whose config (the user's, or this folder's) holds breaker's hooks, and
    the server when any does.
    """
    found = [h for h in every(Path.cwd() if project is None else project) if h.installed]
    if not found:
        return [Check("hooks", True, "none installed (breaker-tui hooks install claude|codex|gemini)")]
    out = [
        Check(
            f"hooks {h.agent}",
            not h.problems,
            "; ".join(h.problems) or f"{len(h.lines)} ok in {h.path}: " + "; ".join(h.lines),
            h.fix,
        )
        for h in found
    ]
    ok, said = server()
    out.append(Check("hook server", ok, said, "" if ok else SERVER_FIX))
    return out
