"""How a command line becomes a monitored launch: is it dsh, which profile, where the overlay goes."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from wrapper.harness.dsh.provision import find_dsh
from wrapper.paths import bridge_file
from wrapper.settings import WrapperSettings

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
    handoff: Path | None = None

    @classmethod
    def of(cls, w: WrapperSettings, runner: bool, max_tokens: int, handoff: Path | None) -> BridgeSettings:
        """The wrapper's settings, in the bridge's units (the config has already refused what it cannot honour)."""
        return cls(
            runner=runner,
            verdict_timeout_ms=max(10, round(w.verdict_timeout_s * 1000)),
            approval_timeout_ms=0 if w.approval_timeout_s == 0 else max(10, round(w.approval_timeout_s * 1000)),
            result_timeout_ms=max(10, round(w.result_timeout_s * 1000)),
            max_line_bytes=w.max_line_bytes,
            max_tokens=max_tokens,
            handoff=handoff,
        )


def write_handoff(directory: Path, socket_path: Path, token: str) -> Path:
    """The 0600 file that gives the bridge the socket and the token; the bridge deletes it on reading."""
    path = directory / f"handoff-{secrets.token_hex(8)}.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"socket": str(socket_path), "token": token}, fh)
    return path


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
                    "handoff": str(settings.handoff) if settings.handoff else None,
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
