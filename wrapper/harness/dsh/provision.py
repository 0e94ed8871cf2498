"""Installs and finds a working dsh: Node 24 from PyPI, pnpm, the pinned dsh package set."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from wrapper.harness.dsh.pinned import (
    REINSTALL,
    install_dir,
    installed_dsh,
    refusal,
    resolve_dsh,
    verify,
    write_manifest,
)
from wrapper.paths import data_dir
from wrapper.process import manifest
from wrapper.toolchain import Check, ProvisionError, Say, child_env, node, npm_cli, run_tool

DSH_VERSION = "0.1.0-rc.8"
PNPM_VERSION = "9.15.9"
PINNED = Path(__file__).resolve().parent / "package"


def tools_dir() -> Path:
    """Where pnpm is installed."""
    return data_dir() / "tools"


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


def find_dsh() -> Path | None:
    """The dsh a launch runs: `$BREAKER_TUI_DSH` (an opt-in), else the pinned install (never a PATH `dsh`)."""
    choice = resolve_dsh()
    return choice.path if choice is not None else None


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
        (d / "breaker-manifest.json").unlink(missing_ok=True)
    else:
        say(f"[3/4] dsh {DSH_VERSION} already installed")
    got = version_of(installed_dsh())
    if got != DSH_VERSION:
        raise ProvisionError(f"the installed dsh does not run (`dsh --version` gave {got!r}); try `setup-dsh --force`")
    had = manifest.load(d)
    if isinstance(had, str):  # none yet, or one that covered a single package scope
        if (d / manifest.NAME).exists():
            say(
                "      the earlier manifest covered @deepseek-ai only: every file is recorded as it is now "
                f"(`{REINSTALL}` reinstalls the rest from the lockfile)"
            )
        write_manifest(d)  # what each launch (sizes, mtimes) and `doctor` (contents) check the install against
    bad = verify(d, full=True)
    if bad:
        raise ProvisionError(refusal(bad))
    say(f"[4/4] dsh {got} works: {installed_dsh()} (every file matches {d / manifest.NAME})")
    return installed_dsh()


def dsh_checks() -> list[Check]:
    """`doctor`'s lines about dsh: pnpm, the dsh that runs, the profiles."""
    out = [Check("pnpm", pnpm().exists(), str(pnpm()), "run `breaker-tui setup-dsh`")]
    choice = resolve_dsh()
    if choice is None:
        out.append(Check("dsh", False, f"not found (pinned install: {install_dir()})", "run `breaker-tui setup-dsh`"))
    else:
        dv = version_of(choice.path) if not choice.pinned else version_of(installed_dsh())
        where = f"{choice.source}: {choice.path}"
        out.append(Check("dsh", bool(dv), f"{dv or 'not working'} ({where})", "run `breaker-tui setup-dsh`"))
        if choice.pinned:
            bad = verify(full=True)
            text = "every file matches the manifest setup-dsh wrote" if not bad else refusal(bad)
            out.append(Check("dsh install", not bad, text, f"run `{REINSTALL}` to reinstall"))
        else:
            out.append(
                Check(
                    "dsh install",
                    False,
                    "not the pinned install (opted in by $BREAKER_TUI_DSH)",
                    "unset BREAKER_TUI_DSH to run the pinned, verified dsh",
                )
            )
        for n in choice.notes:
            if "on PATH" in n:
                out.append(Check("dsh on PATH", False, n, "remove it from PATH, or opt in with BREAKER_TUI_DSH"))
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
