"""Which dsh runs: the pinned install unless the person opts in to another, and whether it is intact.

A `dsh` planted early on PATH (a wrapper that loads a bridge copy which never asks) used to be
preferred over the pinned install, and `doctor` called it "ok". Now the pinned install
is what runs, launched as `node bin.js` with the bundled Node (no PATH lookup at all); another dsh
runs only when `$BREAKER_TUI_DSH` names it, and a different `dsh` on PATH is reported, never run
(not even for `--version`). `setup-dsh` writes a manifest of every file of the install
(`wrapper.process.manifest`); each launch compares sizes and mtimes and refuses a difference,
`doctor` and `setup-dsh` compare contents.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from wrapper.paths import data_dir
from wrapper.process import manifest

MANIFEST = manifest.NAME
SCOPE = "node_modules/@deepseek-ai"
REINSTALL = "breaker-tui setup-dsh --force"


def install_dir() -> Path:
    """Where the pinned dsh package set is installed."""
    return data_dir() / "dsh"


def installed_dsh() -> Path:
    """The dsh launcher `setup-dsh` installs."""
    return install_dir() / "node_modules" / ".bin" / "dsh"


def pinned_entry(root: Path | None = None) -> Path:
    """The pinned dsh's entry script (what its launcher links to)."""
    return (root or install_dir()) / SCOPE / "dsh" / "lib" / "bin.js"


@dataclass(frozen=True)
class DshChoice:
    """The dsh a launch runs: its launcher, whether it is the pinned install, and what to say about it."""

    path: Path
    pinned: bool
    source: str  # "pinned install" or "$BREAKER_TUI_DSH"
    notes: tuple[str, ...] = field(default=())


class InstallChanged(OSError):
    """The pinned install differs from its manifest: the launch is refused (the message names the files)."""


def write_manifest(root: Path | None = None) -> Path:
    """Record every file of the pinned install (`wrapper.process.manifest`; called by `setup-dsh`)."""
    root = root or install_dir()
    manifest.write(root)
    return root / MANIFEST


def verify(root: Path | None = None, full: bool = False) -> list[str]:
    """What differs from the manifest: by size and mtime (each launch), or by content (`full`: doctor, setup)."""
    root = root or install_dir()
    return manifest.full(root) if full else manifest.quick(root)


def refusal(problems: list[str]) -> str:
    """Why the pinned dsh is not launched, naming the files and the command that reinstalls."""
    return manifest.describe(problems, "the pinned dsh install", REINSTALL)


def path_dsh(env: dict[str, str] | None = None) -> Path | None:
    """A `dsh` on PATH that is not the pinned one (found, never run)."""
    e = os.environ if env is None else env
    found = shutil.which("dsh", path=e.get("PATH"))
    if found is None:
        return None
    with_links = Path(found).resolve()
    return None if with_links == pinned_entry().resolve() else Path(found)


def resolve_dsh(env: dict[str, str] | None = None) -> DshChoice | None:
    """`$BREAKER_TUI_DSH` when set (an opt-in, named), else the pinned install; None when neither exists."""
    e = dict(os.environ) if env is None else env
    notes: list[str] = []
    other = path_dsh(e)
    opted = e.get("BREAKER_TUI_DSH")
    if opted:
        notes.append(f"running the dsh named by $BREAKER_TUI_DSH: {opted} (not the pinned install)")
        return DshChoice(Path(opted), False, "$BREAKER_TUI_DSH", tuple(notes))
    entry = pinned_entry()
    if not entry.is_file():
        return None
    if other is not None:
        notes.append(f"a different dsh is on PATH: {other} (not used; set BREAKER_TUI_DSH to opt in to it)")
    return DshChoice(entry, True, "pinned install", tuple(notes))
