"""The whole install is the manifest: every file of a pinned harness install, checked before it runs.

A line prepended to `node_modules/commander/index.js` (one of the packages dsh loads, outside the
`@deepseek-ai` scope the first manifest covered) dropped `--patch`, the bridge never loaded, and
every call ran unchecked. So the manifest covers every file and symlink under the install folder:
its sha256 (checked in full by `doctor` and right after `setup-dsh` / `setup-agent`) and its size and
mtime (an index cheap enough to compare at every launch: a changed file's size or mtime moves,
unless the writer also reset the mtime, which the full hash catches). A file added, missing or
changed refuses the launch; the problem names the file and the command that reinstalls.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

NAME = "breaker-manifest.json"
VERSION = 2  # 1 hashed one package scope only; 2 covers every file, with the size+mtime index
SHOWN = 5  # problems named in one message (the count says how many more)


@dataclass(frozen=True)
class Entry:
    """One file as the manifest knows it."""

    digest: str  # sha256, or "link:TARGET" for a symlink
    size: int
    mtime_ns: int


def _walk(root: Path, rel: str = "") -> Iterator[tuple[str, os.stat_result, bool]]:
    """Every file and symlink under `root` (relative path, lstat, is a link), the manifest itself excepted.

    In directory order: callers that report sort what they found (sorting 29,000 names per launch cost
    more than comparing them).
    """
    try:
        with os.scandir(root / rel) as it:
            entries = list(it)
    except OSError:
        return
    for e in entries:
        path = f"{rel}/{e.name}" if rel else e.name
        if not rel and e.name.startswith(NAME):
            continue
        if e.is_symlink():
            yield path, e.stat(follow_symlinks=False), True
        elif e.is_dir(follow_symlinks=False):
            yield from _walk(root, path)
        else:
            yield path, e.stat(follow_symlinks=False), False


def _digest(path: Path, link: bool) -> str:
    if link:
        return "link:" + os.readlink(path)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write(root: Path) -> int:
    """Record every file under `root` (hash, size, mtime); the number of files recorded."""
    files = {rel: [_digest(root / rel, link), st.st_size, st.st_mtime_ns] for rel, st, link in _walk(root)}
    path = root / NAME
    tmp = root / (NAME + ".tmp")
    tmp.write_text(json.dumps({"version": VERSION, "files": files}, separators=(",", ":"), sort_keys=True))
    os.replace(tmp, path)
    return len(files)


def load(root: Path) -> dict[str, Entry] | str:
    """The manifest's entries, or why there is no usable one (with what to do)."""
    try:
        obj = json.loads((root / NAME).read_text())
    except (OSError, ValueError):
        return f"no manifest ({root / NAME})"
    if not isinstance(obj, dict) or obj.get("version") != VERSION or not isinstance(obj.get("files"), dict):
        return f"the manifest {root / NAME} does not cover every file of the install (an older format)"
    rows = obj["files"]
    try:
        return {str(rel): Entry(str(row[0]), int(row[1]), int(row[2])) for rel, row in rows.items()}
    except (TypeError, ValueError, IndexError, KeyError):
        return f"the manifest {root / NAME} is damaged"


def quick(root: Path) -> list[str]:
    """What differs from the manifest by size and mtime (every file listed, none hashed): the launch check."""
    return _compare(root, lambda rel, st, link, e: e.size != st.st_size or e.mtime_ns != st.st_mtime_ns)


def full(root: Path) -> list[str]:
    """What differs from the manifest by content (every file hashed): `doctor` and the end of `setup-*`."""
    return _compare(root, lambda rel, st, link, e: _read_digest(root / rel, link) != e.digest)


def _read_digest(path: Path, link: bool) -> str:
    """The file's digest, or "" when it cannot be read (then it differs from any recorded digest)."""
    try:
        return _digest(path, link)
    except OSError:
        return ""


def _compare(root: Path, differs: Callable[[str, os.stat_result, bool, Entry], bool]) -> list[str]:
    """Every file added, changed (as `differs` judges it) or missing against the manifest, by file name."""
    want = load(root)
    if isinstance(want, str):
        return [want]
    problems: list[str] = []
    seen: set[str] = set()
    for rel, st, link in _walk(root):
        seen.add(rel)
        e = want.get(rel)
        if e is None:
            problems.append(f"added: {rel}")
        elif differs(rel, st, link, e):
            problems.append(f"changed: {rel}")
    found = sorted(problems, key=lambda p: p.partition(": ")[2])
    return found + [f"missing: {rel}" for rel in sorted(set(want) - seen)]


def describe(problems: list[str], what: str, fix: str) -> str:
    """One message for a refused launch: the first files, how many more, and the command that reinstalls."""
    head = "; ".join(problems[:SHOWN])
    more = f" and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
    return f"{what} differs from what was installed: {head}{more}. Reinstall it: `{fix}`"
