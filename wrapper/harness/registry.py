"""Which harness runs a command: dsh through its bridge, an ACP agent, or any other command.

`breaker-tui -- opencode` (a known agent under any of its usual names or paths, `resolve.py`) and
`breaker-tui --acp -- COMMAND` run the ACP harness; `dsh ...` runs
the dsh harness; anything else runs the plain harness. Adding a harness is a folder beside these and a line
here, and nothing in the TUI changes: this is the only module of the wrapper that imports a harness folder,
and it reaches dsh through its declaration (`harness.dsh.declaration.DSH`) alone.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from wrapper.harness.acp.cli import cannot_run as acp_cannot_run
from wrapper.harness.acp.install import agent_checks
from wrapper.harness.acp.replay import AcpReplayer, is_acp_recording
from wrapper.harness.acp.resolve import preset_for, resolve
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import Approver, HarnessSession
from wrapper.harness.declaration import Harness, ScriptedAgentFeed
from wrapper.harness.dsh.declaration import DSH
from wrapper.harness.past import agent_label, session_id_problem
from wrapper.harness.plain.session import PlainSession
from wrapper.mock.world import World
from wrapper.records.recorder import Recorder
from wrapper.records.sources import Loaded
from wrapper.settings import Settings
from wrapper.toolchain import Check, child_env, node


def is_acp(argv: list[str], acp: bool = False) -> bool:
    """Whether this command runs under the ACP harness."""
    return acp or preset_for(argv) is not None


def open_session(
    argv: list[str],
    settings: Settings,
    approver: Approver,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    recorder: Recorder | None = None,
    acp: bool = False,
    pipes: bool = False,
    resume: str | None = None,
) -> HarnessSession:
    """The session for `argv`; raises FileNotFoundError (with the fix) when a preset agent is not installed.

    `pipes`: without a screen, a plain command keeps its own stdin, stdout and stderr (no pty).
    `resume`: a past session to continue (`--resume ID`, checked by `resume_problem` first): an ACP
    agent loads it with `session/load`, dsh's runner gets `--resume ID`.
    """
    base = os.environ if env is None else env
    resolved = resolve(argv, base.get("PATH", ""), node(), settings.acp.make_ask)
    if resolved is not None:
        return AcpSession(
            resolved.argv, settings, approver, cwd, env, recorder, resolved.preset, list(argv), resolved.why, resume
        )
    if acp:
        return AcpSession(list(argv), settings, approver, cwd, env, recorder, resume=resume)
    if DSH.matches(argv):
        return DSH.open(argv, settings, approver, cwd, env, recorder, resume)
    return PlainSession(argv, settings, approver, cwd=cwd, env=env, recorder=recorder, pipes=pipes)


def replayer_for(loaded: Loaded, settings: Settings) -> Any:
    """The replayer that understands a loaded file (ACP recordings, else dsh recordings and logs)."""
    if is_acp_recording(loaded):
        return AcpReplayer(loaded, settings)
    return DSH.replayer(loaded, settings)


def harness_checks() -> list[Check]:
    """`doctor`'s lines from every harness: dsh, then each known ACP agent."""
    return [*DSH.checks(), *agent_checks()]


def cannot_start(argv: list[str], env: dict[str, str] | None = None) -> str:
    """Why `argv` cannot be launched, or "" when it can (checked before any screen opens)."""
    path = (os.environ if env is None else env).get("PATH", "")
    if is_acp(argv) and (why := acp_cannot_run(argv, path)) is not None:
        return why
    if is_acp(argv):
        return ""  # a preset: its installed command line is resolved by the harness
    exe = argv[0]
    if DSH.matches(argv) and (why := DSH.cannot_start(argv)) is not None:
        return why
    if os.sep in exe:
        return "" if os.access(exe, os.X_OK) else f"{exe}: no such executable file"
    path = child_env(env).get("PATH", "")
    return "" if shutil.which(exe, path=path) else f"{exe}: command not found on PATH"


def resume_problem(argv: list[str], acp: bool, session_id: str) -> str:
    """Why `--resume session_id` cannot work with `argv`, or "" when it can."""
    if why := session_id_problem(session_id):
        return why
    if is_acp(argv, acp):
        return ""
    if DSH.matches(argv):
        return DSH.resume_problem(argv)
    return f"--resume works with dsh and ACP agents; {os.path.basename(argv[0])} is neither"


def session_label(argv: list[str], acp: bool = False) -> str:
    """Who `argv` is in the session list (`past.agent_label` of the recordings it writes)."""
    resolved = preset_for(argv)
    if resolved is not None:
        return agent_label({"harness": "acp", "agent": resolved.name})
    if acp:
        return agent_label({"harness": "acp", "agent": os.path.basename(argv[0])})
    return agent_label({"argv": argv})


def watched_files(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Path]:
    """The harness's files whose change since the last session `startup.banner` reports (dsh's; none else)."""
    return DSH.watched_files(argv, env) if DSH.matches(argv) else {}


def harness(name: str) -> Harness:
    """A harness's declaration by name (`dsh`): its setup, checks, demo world, scripted feed and load bench."""
    if name != DSH.name:
        raise KeyError(f"no harness declared as {name!r}; the declared ones: {DSH.name}")
    return DSH


def takes_prompts(argv: list[str], acp: bool = False) -> bool:
    """Whether `argv` reads prompts (an ACP agent or dsh), not only its stdin as a plain command does."""
    return is_acp(argv, acp) or DSH.matches(argv)


def agent_cannot_run(argv: list[str]) -> str | None:
    """Why a known ACP agent cannot run (not found, with the fix), or None."""
    return acp_cannot_run(argv)


def known_agents() -> list[str]:
    """The ACP agents declared in `acp.presets`, by name."""
    from wrapper.harness.acp.presets import PRESETS

    return list(PRESETS)


def installed_agents() -> list[str]:
    """The declared ACP agents that can run here (installed by `setup-agent` or found on PATH)."""
    from wrapper.harness.acp.presets import PRESETS, installed

    return [name for name, preset in PRESETS.items() if installed(preset)]


def scripted_agent(settings: Settings, agent: str) -> ScriptedAgentFeed:
    """An ACP agent's frames played from memory through its real monitor (the screen's Pilot tests and snapshots)."""
    from wrapper.harness.acp.scripted import ScriptedAgent

    return ScriptedAgent(settings, agent)


def agent_world(agent: str, scenario: str) -> World:
    """The mock model serving `scenario`, with the declared agent `agent` pointed at it (the demo's world)."""
    from wrapper.harness.acp.world import make_acp_world

    return make_acp_world(agent, scenario, defaults=True)


def agents_command(args: list[str], description: str = "") -> int:
    """`breaker-tui agents` (`description`: what its `--help` says it does)."""
    from wrapper.harness.acp.cli import agents

    return agents(args, description)


def setup_agent_command(args: list[str], description: str = "") -> int:
    """`breaker-tui setup-agent` (`description`: what its `--help` says it does)."""
    from wrapper.harness.acp.cli import setup

    return setup(args, description)
