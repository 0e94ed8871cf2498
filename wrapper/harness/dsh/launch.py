"""How a command line becomes a monitored launch: is it dsh, which profile, the overlay and how dsh gets it.

The overlay (the `--patch` that mounts the bridge and names its channel descriptor) is a sealed
memfd the child inherits, passed as `--patch /proc/self/fd/N`: there is no file in a directory a
tool could rewrite before dsh reads it, and the seals refuse every write, even through
`/proc/<dsh>/fd/N`.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path

from wrapper.harness.dsh.pinned import resolve_dsh
from wrapper.paths import bridge_file
from wrapper.settings import WrapperSettings
from wrapper.toolchain import node

LAUNCHER_VALUE_FLAGS = ("--profile", "--patch")
LAUNCHER_BARE_FLAGS = ("--dump-config", "--dump-default-config")
ONE_SHOT_BUNDLES = ("@deepseek-ai/dsh-headless", "@deepseek-ai/dsh-host-webserver", "@deepseek-ai/dsh-web")


@dataclass(frozen=True)
class BridgeSettings:
    """What the bridge is told in the overlay: its only source of timeouts and limits."""

    runner: bool
    verdict_timeout_ms: int
    approval_timeout_ms: int
    result_timeout_ms: int
    max_line_bytes: int
    max_tokens: int
    fd: int | None = None  # the channel's descriptor in the child

    @classmethod
    def of(cls, w: WrapperSettings, runner: bool, max_tokens: int, fd: int | None) -> BridgeSettings:
        """The wrapper's settings, in the bridge's units (the config has already refused what it cannot honour)."""
        return cls(
            runner=runner,
            verdict_timeout_ms=max(10, round(w.verdict_timeout_s * 1000)),
            approval_timeout_ms=0 if w.approval_timeout_s == 0 else max(10, round(w.approval_timeout_s * 1000)),
            result_timeout_ms=max(10, round(w.result_timeout_s * 1000)),
            max_line_bytes=w.max_line_bytes,
            max_tokens=max_tokens,
            fd=fd,
        )


def is_dsh(argv: list[str]) -> bool:
    """Whether the command is dsh (by name, or the configured dsh path)."""
    if not argv:
        return False
    name = os.path.basename(argv[0])
    return name == "dsh" or argv[0] == os.environ.get("BREAKER_TUI_DSH")


def launcher_end(argv: list[str]) -> int:
    """Index just after dsh's own launcher flags (where `--patch` may be inserted)."""
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in LAUNCHER_VALUE_FLAGS:
            i += 2
        elif any(a.startswith(f + "=") for f in LAUNCHER_VALUE_FLAGS) or a in LAUNCHER_BARE_FLAGS:
            i += 1
        else:
            break
    return min(i, len(argv))


def profile_of(argv: list[str]) -> str | None:
    """The `--profile` value, if any."""
    for i, a in enumerate(argv[: launcher_end(argv)]):
        if a == "--profile" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--profile="):
            return a.split("=", 1)[1]
    return None


def wants_runner(argv: list[str], dsh_home: Path) -> bool:
    """Interactive (our runner drives one persistent agent) unless the profile has its own app."""
    profile = profile_of(argv) or "default"
    if profile in ("headless", "web"):
        return False
    pkg = dsh_home / "profiles" / profile / "package.json"
    try:
        bundles = json.loads(pkg.read_text()).get("dsh", {}).get("profile", {}).get("bundles", [])
    except (OSError, ValueError, AttributeError):
        bundles = []
    return not any(b in ONE_SHOT_BUNDLES for b in bundles)


def with_resume(argv: list[str], session_id: str) -> list[str]:
    """The same command line, resuming `session_id` (replacing any earlier `--resume`)."""
    end = launcher_end(argv)
    head, args = argv[:end], argv[end:]
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--resume":
            skip = True
            continue
        out.append(a)
    return [*head, *out, "--resume", session_id]


def overlay_text(settings: BridgeSettings) -> str:
    """The `--patch` overlay that inserts the bridge row (JSON is valid YAML)."""
    row = {
        "insert": [
            {
                "id": "breaker-bridge",
                "name": str(bridge_file()),
                "config": {
                    "runner": settings.runner,
                    "verdictTimeoutMs": settings.verdict_timeout_ms,
                    "approvalTimeoutMs": settings.approval_timeout_ms,
                    "resultTimeoutMs": settings.result_timeout_ms,
                    "maxLineBytes": settings.max_line_bytes,
                    "maxTokens": settings.max_tokens,
                    "fd": settings.fd,
                },
            }
        ]
    }
    return "# written by breaker-tui for one launch\n" + json.dumps([row], indent=2) + "\n"


_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL


def sealed_overlay(text: str) -> int:
    """The overlay in a sealed memfd (no file to swap, no write accepted); the caller closes it after the launch."""
    fd = os.memfd_create("breaker-bridge-overlay", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        data = text.encode()
        if os.write(fd, data) != len(data):
            raise OSError("short write to the overlay memfd")
        os.lseek(fd, 0, os.SEEK_SET)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)
    except BaseException:
        os.close(fd)
        raise
    return fd


# Node opens its inspector (code evaluated inside dsh, bridge included) on SIGUSR1 from any process
# of the user, a tool included: the pinned dsh never listens for it
NODE_FLAGS = ("--disable-sigusr1",)


def overlay_arg(fd: int) -> str:
    """How the child names its inherited overlay descriptor."""
    return f"/proc/self/fd/{fd}"


def build_argv(argv: list[str], overlay: str, env: dict[str, str] | None = None) -> list[str]:
    """Resolve `dsh` (the pinned install, or the one opted in) and insert `--patch overlay` after its launcher flags."""
    exe = argv[0]
    if os.path.basename(exe) == "dsh" and os.sep not in exe:
        found = resolve_dsh(env)
        if found is None:
            raise FileNotFoundError("dsh was not found. Run `breaker-tui setup-dsh` (or set BREAKER_TUI_DSH).")
        # the pinned entry runs on the bundled Node: no `env node` lookup on a PATH a tool may have changed
        head = [str(node()), *NODE_FLAGS, str(found.path)] if found.pinned else [str(found.path)]
    else:
        head = [exe]
    end = launcher_end(argv)
    return [*head, *argv[1:end], "--patch", overlay, *argv[end:]]
