"""Where the per-user hook server listens: an owner-only folder holding its socket, lock and log."""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # not `typing`'s: the hook process imports this module and skips that import
if TYPE_CHECKING:
    from pathlib import Path

SOCKET = "serve.sock"
LOCK = "serve.lock"
LOG = "serve.log"
PID = "serve.pid"
MAX_SOCKET_PATH = 100  # a unix socket path is limited to ~107 bytes; keep a margin


class RunDirError(OSError):
    """The folder is not private to this user, or its path is too long for a socket."""


def run_dir_name(env: dict[str, str] | None = None) -> str:
    """`$BREAKER_TUI_RUN_DIR`, else `$XDG_RUNTIME_DIR/breaker-tui`, else `run/` in the state folder (a string:
    the hook process computes it on every call and does without pathlib and platformdirs).
    """
    e = os.environ if env is None else env
    if e.get("BREAKER_TUI_RUN_DIR"):
        return e["BREAKER_TUI_RUN_DIR"]
    if e.get("XDG_RUNTIME_DIR"):
        return os.path.join(e["XDG_RUNTIME_DIR"], "breaker-tui")
    from wrapper.paths import state_dir  # platformdirs costs the hook ~20 ms: only when no folder is set

    return os.path.join(state_dir(), "run")


def run_dir(env: dict[str, str] | None = None) -> Path:
    """The run folder as a Path."""
    from pathlib import Path

    return Path(run_dir_name(env))


def private_dir(env: dict[str, str] | None = None) -> Path:
    """The run folder, created 0700; RunDirError when someone else owns it or others may enter it."""
    d = run_dir(env)
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = os.lstat(d)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise RunDirError(f"{d} is not a folder owned by you: remove it, or set BREAKER_TUI_RUN_DIR")
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(d, 0o700)  # made by an older umask: tighten it rather than listen where others can reach
    sock = d / SOCKET
    if len(os.fsencode(sock)) > MAX_SOCKET_PATH:
        raise RunDirError(f"{sock} is too long for a unix socket: set BREAKER_TUI_RUN_DIR to a short folder")
    return d


def socket_path(env: dict[str, str] | None = None) -> Path:
    """The server's socket (the folder is not created)."""
    return run_dir(env) / SOCKET


def socket_name(env: dict[str, str] | None = None) -> str:
    """The server's socket as a string, for the hook process."""
    return os.path.join(run_dir_name(env), SOCKET)
