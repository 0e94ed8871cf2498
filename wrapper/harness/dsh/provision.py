"""Installs and finds a working dsh: Node 24 from PyPI, pnpm, the pinned dsh package set."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from wrapper.paths import data_dir
from wrapper.toolchain import Check, ProvisionError, Say, child_env, node, npm_cli, run_tool

DSH_VERSION = "0.1.0-rc.8"
PNPM_VERSION = "9.15.9"
PINNED = Path(__file__).resolve().parent / "package"


def tools_dir() -> Path:
    """Where pnpm is installed."""
    return data_dir() / "tools"


def install_dir() -> Path:
    """Where the pinned dsh package set is installed."""
    return data_dir() / "dsh"


def pnpm() -> Path:
    """The installed pnpm launcher."""
    return tools_dir() / "node_modules" / ".bin" / "pnpm"


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
    v = run_tool([str(node()), "--version"], Path.cwd(), 60, "node --version").strip()
    if not v.startswith("v24."):
        raise ProvisionError(f"dsh needs Node 24, but the bundled node is {v}")
    say(f"      {v}")
    tools_dir().mkdir(parents=True, exist_ok=True)
    if force or not pnpm().exists():
        say(f"[2/4] installing pnpm {PNPM_VERSION} into {tools_dir()} ...")
        run_tool(
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
        run_tool([str(pnpm()), "install", "--frozen-lockfile", "--reporter=append-only"], d, 900, "pnpm install")
    else:
        say(f"[3/4] dsh {DSH_VERSION} already installed")
    got = version_of(installed_dsh())
    if got != DSH_VERSION:
        raise ProvisionError(f"the installed dsh does not run (`dsh --version` gave {got!r}); try `setup-dsh --force`")
    say(f"[4/4] dsh {got} works: {installed_dsh()}")
    return installed_dsh()


def dsh_checks() -> list[Check]:
    """`doctor`'s lines about dsh: pnpm, the dsh that runs, the profiles."""
    out = [Check("pnpm", pnpm().exists(), str(pnpm()), "run `breaker-tui setup-dsh`")]
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
    return out
