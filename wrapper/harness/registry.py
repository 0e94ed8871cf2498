"""Which harness runs a command: dsh through its bridge, an ACP agent, or any other command.

`breaker-tui -- opencode` (a known agent under any of its usual names or paths, `resolve.py`) and
`breaker-tui --acp -- COMMAND` run the ACP harness; `dsh ...` runs
the dsh harness; anything else runs the plain harness. Adding a harness is a folder beside these and a line
here, and nothing in the TUI changes: this is the only module of the wrapper that imports a harness folder.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from wrapper.harness.acp.cli import cannot_run as acp_cannot_run
from wrapper.harness.acp.install import agent_checks
from wrapper.harness.acp.replay import AcpReplayer, is_acp_recording
from wrapper.harness.acp.resolve import preset_for, resolve
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import Approver, HarnessSession
from wrapper.harness.dsh.launch import is_dsh, profile_of, with_resume
from wrapper.harness.dsh.layers import watched_files as dsh_watched_files
from wrapper.harness.dsh.provision import dsh_checks, find_dsh
from wrapper.harness.dsh.replay import Replayer
from wrapper.harness.dsh.session import Session
from wrapper.harness.past import agent_label, session_id_problem
from wrapper.harness.plain.session import PlainSession
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
    if is_dsh(argv):
        argv = with_resume(argv, resume) if resume else argv
        return Session(argv, settings, approver, cwd=cwd, env=env, recorder=recorder)
    return PlainSession(argv, settings, approver, cwd=cwd, env=env, recorder=recorder, pipes=pipes)


def replayer_for(loaded: Loaded, settings: Settings) -> Replayer | AcpReplayer:
    """The replayer that understands a loaded file (ACP recordings, else dsh recordings and logs)."""
    if is_acp_recording(loaded):
        return AcpReplayer(loaded, settings)
    return Replayer(loaded, settings)


def harness_checks() -> list[Check]:
    """`doctor`'s lines from every harness: dsh, then each known ACP agent."""
    return [*dsh_checks(), *agent_checks()]


def cannot_start(argv: list[str], env: dict[str, str] | None = None) -> str:
    """Why `argv` cannot be launched, or "" when it can (checked before any screen opens)."""
    path = (os.environ if env is None else env).get("PATH", "")
    if is_acp(argv) and (why := acp_cannot_run(argv, path)) is not None:
        return why
    if is_acp(argv):
        return ""  # a preset: its installed command line is resolved by the harness
    exe = argv[0]
    if is_dsh(argv) and os.path.basename(exe) == "dsh" and os.sep not in exe:
        found = find_dsh()
        if found is None or not os.access(found, os.X_OK):
            where = f" ({found} is not an executable file)" if found is not None else ""
            return f"dsh was not found{where}. Run `breaker-tui setup-dsh` (`breaker-tui doctor` says what is missing)."
        return ""
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
    if is_dsh(argv):
        if profile_of(argv) in ("headless", "web"):
            return f"dsh's {profile_of(argv)} profile runs one task in a fresh session: it cannot resume one"
        return ""
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
    return dsh_watched_files(argv, env) if is_dsh(argv) else {}
