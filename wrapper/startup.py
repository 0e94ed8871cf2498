"""What a session says before it starts: a loosened config, and what changed since the last session.

A tool that can write the config, the dsh profile or the dsh install could switch the next session
off. None of that can be prevented by a same-user monitor; all of it can be said. So at every start
the config keys that enforce less than their defaults are named with their file until the person
accepts that exact file (`wrapper.weakening`), and the config file, the profile (its package.json and patch layer) and
the dsh entry that will run are compared with what the last session saw, kept as sha256 digests in
`<state dir>/last-session.json`. Never raises: a problem here is a line, not a failed start.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from wrapper.paths import state_dir
from wrapper.settings import Settings
from wrapper.weakening import report

DIGESTS = "last-session.json"


def _digest(p: Path) -> str:
    try:
        return hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        return "absent"


def watched(config: Path | None, harness_files: dict[str, Path]) -> dict[str, Path]:
    """The files whose change since the last session is news: the config, and the harness's own
    (for dsh: the profile, its patch layers, the dsh that runs; from `harness.registry.watched_files`).
    """
    out: dict[str, Path] = {}
    if config is not None:
        out["config"] = config
    out.update(harness_files)
    return out


def changes(files: dict[str, Path], store: Path | None = None) -> list[str]:
    """What differs from the last session's digests (then remember these); empty on the first run."""
    path = (store or state_dir()) / DIGESTS
    now = {name: [str(p), _digest(p)] for name, p in files.items()}
    try:
        before = json.loads(path.read_text())
    except (OSError, ValueError):
        before = None
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(now))
        os.replace(tmp, path)
    if not isinstance(before, dict):
        return []
    out: list[str] = []
    for name, (where, digest) in now.items():
        old = before.get(name)
        if isinstance(old, list) and len(old) == 2 and old[0] == where and old[1] != digest:
            how = "created" if old[1] == "absent" else "removed" if digest == "absent" else "changed"
            out.append(f"{name} {where} was {how} since the last session")
    return out


def banner(settings: Settings, config: Path | None, harness_files: dict[str, Path]) -> list[str]:
    """The start-up lines: the loosened keys, then the changes since the last session."""
    lines = report(settings)
    with contextlib.suppress(Exception):  # never a failed start over a report
        lines += changes(watched(config, harness_files))
    return lines
