"""How a command line becomes a monitored launch: is it dsh, which profile, where the overlay goes."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from wrapper.paths import bridge_file
from wrapper.provision import find_dsh

LAUNCHER_VALUE_FLAGS = ("--profile", "--patch")
LAUNCHER_BARE_FLAGS = ("--dump-config", "--dump-default-config")
ONE_SHOT_BUNDLES = ("@deepseek-ai/dsh-headless", "@deepseek-ai/dsh-host-webserver", "@deepseek-ai/dsh-web")


@dataclass(frozen=True)
class BridgeSettings:
    """What the bridge is told in the overlay (everything else comes through the environment)."""

    runner: bool
    verdict_timeout_ms: int = 30000
    approval_timeout_ms: int = 0
    result_timeout_ms: int = 5000
    max_line_bytes: int = 1 << 20
    max_tokens: int = 0


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


def app_args(argv: list[str]) -> list[str]:
    """What follows the launcher flags (the profile app's own arguments)."""
    return argv[launcher_end(argv) :]


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


def write_overlay(directory: Path, settings: BridgeSettings) -> Path:
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
                },
            }
        ]
    }
    path = directory / "breaker-bridge.patch.yml"
    path.write_text("# written by breaker-tui for one launch\n" + json.dumps([row], indent=2) + "\n")
    os.chmod(path, 0o600)
    return path


def build_argv(argv: list[str], overlay: Path) -> list[str]:
    """Resolve `dsh` to a working launcher and insert `--patch overlay` after the launcher flags."""
    exe = argv[0]
    if os.path.basename(exe) == "dsh" and os.sep not in exe:
        found = find_dsh()
        if found is None:
            raise FileNotFoundError("dsh was not found. Run `breaker-tui setup-dsh` (or put a working dsh on PATH).")
        exe = str(found)
    end = launcher_end(argv)
    return [exe, *argv[1:end], "--patch", str(overlay), *argv[end:]]
