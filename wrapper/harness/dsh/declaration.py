"""dsh as the registry declares it: the one place outside this folder learns what dsh is and can do.

The registry, and through it the CLI (`setup-dsh`, `init-profile`, `doctor`), the demo, the screen's scripted
source and the round-trip benchmark, reach dsh only through `DSH`.
"""

from __future__ import annotations

import os
from pathlib import Path

from wrapper.harness.base import Approver, HarnessSession
from wrapper.harness.declaration import Harness
from wrapper.harness.dsh.launch import is_dsh, profile_of, with_resume
from wrapper.harness.dsh.layers import watched_files
from wrapper.harness.dsh.load import under_load
from wrapper.harness.dsh.profiles import write_dev_profile
from wrapper.harness.dsh.provision import dsh_checks, find_dsh, setup_dsh
from wrapper.harness.dsh.replay import Replayer
from wrapper.harness.dsh.scripted import ScriptedBridge
from wrapper.harness.dsh.session import Session
from wrapper.harness.dsh.world import make_world
from wrapper.records.recorder import Recorder
from wrapper.settings import Settings


def _open(
    argv: list[str],
    settings: Settings,
    approver: Approver,
    cwd: str | None,
    env: dict[str, str] | None,
    recorder: Recorder | None,
    resume: str | None,
) -> HarnessSession:
    """dsh's session; `resume` reaches its runner as `--resume ID`."""
    argv = with_resume(argv, resume) if resume else argv
    return Session(argv, settings, approver, cwd=cwd, env=env, recorder=recorder)


def _cannot_start(argv: list[str]) -> str | None:
    """A bare `dsh` runs the pinned install (never a PATH `dsh`): say so when it is missing; else the PATH check."""
    exe = argv[0]
    if os.path.basename(exe) != "dsh" or os.sep in exe:
        return None
    found = find_dsh()
    if found is None or not os.access(found, os.X_OK):
        where = f" ({found} is not an executable file)" if found is not None else ""
        return f"dsh was not found{where}. Run `breaker-tui setup-dsh` (`breaker-tui doctor` says what is missing)."
    return ""


def _resume_problem(argv: list[str]) -> str:
    if profile_of(argv) in ("headless", "web"):
        return f"dsh's {profile_of(argv)} profile runs one task in a fresh session: it cannot resume one"
    return ""


def _write_profile(home: Path, name: str, overwrite: bool) -> Path:
    return write_dev_profile(home, name, overwrite=overwrite)


DSH = Harness(
    name="dsh",
    matches=is_dsh,
    open=_open,
    replayer=Replayer,
    checks=dsh_checks,
    find=find_dsh,
    setup=lambda say, force: setup_dsh(say, force=force),
    cannot_start=_cannot_start,
    resume_problem=_resume_problem,
    watched_files=watched_files,
    demo_argv=("dsh", "--profile", "dev"),
    demo_world=make_world,
    write_profile=_write_profile,
    scripted=ScriptedBridge,
    load=under_load,
)
