"""Which dsh runs: the pinned install unless the person opts in to another, and whether it is intact.

A `dsh` planted early on PATH (a wrapper that loads a bridge copy which never asks) used to be
preferred over the pinned install, and `doctor` called it "ok" (report C4). Now the pinned install
is what runs, launched as `node bin.js` with the bundled Node (no PATH lookup at all); another dsh
runs only when `$BREAKER_TUI_DSH` names it, and a different `dsh` on PATH is reported, never run
(not even for `--version`). `setup-dsh` writes a manifest (sha256 of every file of
`@deepseek-ai/*`, the package set and its lock); each launch checks the files dsh loads first
(its launcher and package.json), `doctor` checks them all.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from wrapper.paths import data_dir

MANIFEST = "breaker-manifest.json"
SCOPE = "node_modules/@deepseek-ai"
QUICK = ("package.json", "pnpm-lock.yaml", f"{SCOPE}/dsh/lib/bin.js", f"{SCOPE}/dsh/package.json")


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


def _files(root: Path) -> list[str]:
    out = [p for p in ("package.json", "pnpm-lock.yaml") if (root / p).is_file()]
    for dirpath, dirs, files in os.walk(root / SCOPE, followlinks=False):
        dirs.sort()
        for f in sorted(files):
            out.append(str(Path(dirpath, f).relative_to(root)))
    return out


def _digest(path: Path) -> str:
    if path.is_symlink():
        return "link:" + os.readlink(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(root: Path | None = None) -> Path:
    """Record the sha256 of every file of the pinned package set (called by `setup-dsh`)."""
    root = root or install_dir()
    files = {rel: _digest(root / rel) for rel in _files(root)}
    path = root / MANIFEST
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"files": files}, indent=0, sort_keys=True))
    os.replace(tmp, path)
    return path


def verify(root: Path | None = None, full: bool = False) -> list[str]:
    """What differs from the manifest (the launch's first files, or every file); one entry when there is none."""
    root = root or install_dir()
    try:
        files: dict[str, str] = json.loads((root / MANIFEST).read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return [f"no manifest ({root / MANIFEST}): run `breaker-tui setup-dsh --force` to write one"]
    problems: list[str] = []
    names = list(files) if full else [q for q in QUICK if q in files]
    for rel in names:
        p = root / rel
        try:
            got = _digest(p)
        except OSError:
            problems.append(f"missing: {rel}")
            continue
        if got != files[rel]:
            problems.append(f"changed: {rel}")
    if full:
        extra = sorted(set(_files(root)) - set(files))
        problems.extend(f"added: {rel}" for rel in extra[:20])
    return problems


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
