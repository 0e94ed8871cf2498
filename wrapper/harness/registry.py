"""Which harness runs a command: dsh through its bridge, an ACP agent, or any other command.

`breaker-tui -- opencode` (a preset name) and `breaker-tui --acp -- COMMAND` run the ACP harness; dsh and
plain commands run the original `Session`. Adding a harness adds a branch here, not in the TUI.
"""

from __future__ import annotations

from wrapper.harness.acp.presets import command_line, preset_for
from wrapper.harness.acp.replay import AcpReplayer, is_acp_recording
from wrapper.harness.acp.session import AcpSession, Approver
from wrapper.harness.base import HarnessSession
from wrapper.provision import node
from wrapper.recorder import Recorder
from wrapper.replay import Replayer
from wrapper.session import Session
from wrapper.settings import Settings
from wrapper.sources import Loaded


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
) -> HarnessSession:
    """The session for `argv`; raises FileNotFoundError (with the fix) when a preset agent is not installed."""
    preset = preset_for(argv)
    if preset is not None:
        run = command_line(preset, argv, node(), settings.acp.make_ask)
        return AcpSession(run, settings, approver, cwd, env, recorder, preset, display_argv=list(argv))
    if acp:
        return AcpSession(list(argv), settings, approver, cwd, env, recorder)
    return Session(argv, settings, approver, cwd=cwd, env=env, recorder=recorder)


def replayer_for(loaded: Loaded, settings: Settings) -> Replayer | AcpReplayer:
    """The replayer that understands a loaded file (ACP recordings, else dsh recordings and logs)."""
    if is_acp_recording(loaded):
        return AcpReplayer(loaded, settings)
    return Replayer(loaded, settings)
