"""dsh's live patch layers, watched for changes during a session.

dsh re-reads two user patch layers while it runs, `$DSH_HOME/cordis.patch.yml` and the profile's
`cordis.patch.yml`, and a tool that can write one can insert a plugin into the running dsh (report
C2). The bridge refuses dsh's watch on them, so a change is not applied in this session; this
reports it anyway, because the next start would load it. A digest (sha256) is taken at each launch
and compared about once a second: cheap (`stat` first, hashing only on a change).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

Sig = tuple[int, int, int] | None  # (inode, size, mtime_ns), None when absent


@dataclass(frozen=True)
class Change:
    """One layer that differs from the launch's snapshot."""

    path: Path
    how: str  # "created", "changed", "removed"


def _sig(p: Path) -> Sig:
    try:
        st = p.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


# dsh writes a profile's patch layer itself on first use: comments and an empty list (`[]`). A layer
# with no entries inserts nothing, so it is the same as no layer: only entries are news.
EMPTY = "empty"


def _digest(p: Path) -> str | None:
    try:
        data = p.read_bytes()
    except OSError:
        return None
    body = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines()]
    body = [ln for ln in body if ln and not ln.startswith("#")]
    if body in ([], ["[]"]):
        return EMPTY
    return hashlib.sha256(data).hexdigest()


class PatchLayers:
    """The live layers of one profile; `snapshot()` at launch, `changes()` to poll."""

    def __init__(self, dsh_home: Path, profile: str) -> None:
        self.paths = (dsh_home / "cordis.patch.yml", dsh_home / "profiles" / profile / "cordis.patch.yml")
        self._base: dict[Path, tuple[Sig, str | None]] = {}

    def snapshot(self) -> None:
        """What the launch boots with."""
        self._base = {p: (_sig(p), _digest(p)) for p in self.paths}

    def changes(self) -> list[Change]:
        """Layers that differ from the snapshot; each change is reported once (the snapshot moves on)."""
        out: list[Change] = []
        for p, (sig, digest) in list(self._base.items()):
            now = _sig(p)
            if now == sig:
                continue
            d = _digest(p) if now is not None else None
            self._base[p] = (now, d)
            if d == digest or {d, digest} <= {None, EMPTY}:
                continue  # touched, same content; or an empty layer (dsh's own template) came or went
            how = "created" if digest is None else "removed" if d is None else "changed"
            out.append(Change(p, how))
        return out


def watched_files(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Path]:
    """The dsh files whose change since the last session is news: the profile, its patch layers, the dsh."""
    from wrapper.harness.dsh.launch import profile_of
    from wrapper.harness.dsh.pinned import resolve_dsh

    e = dict(os.environ) if env is None else env
    home = Path(e.get("DSH_HOME", Path.home() / ".dsh"))
    prof = home / "profiles" / (profile_of(argv) or "default")
    out = {
        "dsh profile package.json": prof / "package.json",
        "dsh profile patch layer": prof / "cordis.patch.yml",
        "dsh home patch layer": home / "cordis.patch.yml",
    }
    choice = resolve_dsh(e)
    if choice is not None:
        out["dsh"] = choice.path
    return out
